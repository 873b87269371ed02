-- radium: user commands. The engine loads on first use, not at start-up.
if vim.g.loaded_radium then
  return
end
vim.g.loaded_radium = true

local function editor()
  return require("radium.editor")
end

vim.api.nvim_create_user_command("RadiumSend", function(opts)
  editor().send(opts.line1, opts.line2, opts.args)
end, { range = true, nargs = "?", desc = "Send the selection (or the current line) to the agent" })

vim.api.nvim_create_user_command("RadiumCancel", function()
  if not editor().cancel() then
    vim.notify("radium: no request is running")
  end
end, { desc = "Stop the agent that is answering (its process is killed)" })

vim.api.nvim_create_user_command("RadiumBlocks", function()
  local lines = editor().list_lines()
  if #lines == 0 then
    vim.notify("radium: no code blocks yet")
  else
    vim.notify(table.concat(lines, "\n"))
  end
end, { desc = "List the code blocks of the last answer" })

vim.api.nvim_create_user_command("RadiumPreview", function(opts)
  editor().show_preview(tonumber(opts.args) or 1)
end, { nargs = "?", desc = "Preview a code block as a diff against the selection" })

vim.api.nvim_create_user_command("RadiumApply", function(opts)
  editor().apply(tonumber(opts.args) or 1)
end, { nargs = "?", desc = "Apply a code block to the selection (undo with u)" })
