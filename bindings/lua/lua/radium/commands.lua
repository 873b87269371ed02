-- The user commands (defined by plugin/radium.lua, loaded on first use).
-- Every command reports errors with vim.notify, never a stack trace.
local M = {}

local function project() return require("radium.project") end
local function editor() return require("radium.editor") end

local levels = vim.log.levels

local function complete_from(list)
  return function(lead)
    return vim.tbl_filter(function(x) return vim.startswith(x, lead) end, list())
  end
end

local function block_numbers()
  local out = {}
  for i = 1, #editor().blocks() do
    out[#out + 1] = tostring(i)
  end
  if #out > 1 then
    out[#out + 1] = "all"
  end
  return out
end

--- Agent ids of the current buffer's project (for completion and pickers).
function M.agent_ids()
  local ok, agents = pcall(project().agents)
  local out = {}
  for _, a in ipairs(ok and agents or {}) do
    out[#out + 1] = a.id
  end
  return out
end

local function block_arg(args)
  if args == "" then
    return 1
  end
  if args == "all" then
    return "all"
  end
  local n = tonumber(args)
  if not n or n < 1 or n % 1 ~= 0 then
    error(string.format("radium: `%s` is not a block number (1, 2, ... or all)", args), 0)
  end
  return n
end

-- The columns of a charwise visual selection of lines l1..l2, if that is
-- what the range came from.
local function charwise_cols(opts)
  if opts.range ~= 2 or vim.fn.visualmode() ~= "v" then
    return nil
  end
  local s, e = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if s[2] ~= opts.line1 or e[2] ~= opts.line2 then
    return nil
  end
  local last = vim.api.nvim_buf_get_lines(0, e[2] - 1, e[2], false)[1] or ""
  local ecol = math.min(e[3], #last)
  if ecol > 0 then
    ecol = ecol + vim.str_utf_end(last, ecol)
  end
  return { s[3] - 1, ecol }
end

local function send(opts)
  local cols = charwise_cols(opts)
  if opts.args ~= "" then
    return editor().send(opts.line1, opts.line2, opts.args, nil, cols)
  end
  vim.ui.input({ prompt = "radium prompt: " }, function(text)
    if text == nil then
      return
    end
    project().guard(editor().send, opts.line1, opts.line2, text, nil, cols)
  end)
end

local function cancel()
  local n = require("radium.chat").cancel_current()
  n = n + editor().cancel()
  if n == 0 then
    project().notify("nothing is running")
  else
    project().notify(string.format("cancelled %d request(s)", n))
  end
end

local function blocks()
  local lines = editor().list_lines()
  if #lines == 0 then
    project().notify(editor().last and "the answer has no code blocks" or "no code blocks yet; send a selection first (:RadiumSend)")
  else
    project().notify(table.concat(lines, "\n"))
  end
end

--- :RadiumTrust [revoke]: trusts (or no longer trusts) the current buffer's project.
function M.trust(arg)
  if arg ~= "" and arg ~= "revoke" then
    error(string.format("radium: :RadiumTrust takes nothing or `revoke`, not `%s`", arg), 0)
  end
  local engine, root = project().engine()
  local r = engine:request({ command = "trust", args = { path = root, revoke = arg == "revoke" } })
  if not r.ok then
    error("radium: " .. r.error, 0)
  end
  project().notify(string.format("%s %s", r.data.trusted and "trusted" or "no longer trusted:", r.data.path))
  return r.data
end

--- :RadiumAgents: the agents of the current buffer's project.
function M.agents()
  local list, err = project().agents()
  if not list then
    error("radium: " .. err, 0)
  end
  require("radium.agents").show()
  return list
end

--- :RadiumUndo / :RadiumRedo: the project's latest radium edit (an agent's
--- write, an edit tool, an accepted review) taken back or brought back, every
--- file of it; their loaded buffers follow.
function M.history(command)
  local engine, root = project().engine()
  local r = engine:request({ command = command })
  if not r.ok then
    error("radium: " .. r.error, 0)
  end
  project().set_tag(root, r.tag)
  local op = r.data.undone or r.data.redone
  -- A step of several files (an accepted review) lists them all in `files`.
  local files = op and (type(op.files) == "table" and op.files or (op.file and { op.file })) or {}
  for _, file in ipairs(files) do
    -- The step's seq names it: a modified buffer of any of its files is
    -- merged from what the step did to that file (lua/radium/merge.lua).
    require("radium.writes").sync(file:sub(1, 1) == "/" and file or (root .. "/" .. file), { seq = op and op.seq, root = root })
  end
  project().notify(string.format("%s: %s (%s) [seq:%s]", command == "undo" and "undone" or "redone",
    op and op.command or "?", #files > 0 and table.concat(files, ", ") or "?", op and op.seq or "?"))
  for _, w in ipairs(r.warnings or {}) do
    project().notify(w, levels.WARN)
  end
  return r.data
end

local function review_cmd(arg)
  local review = require("radium.review")
  if arg == "accept" then
    return review.all(true)
  elseif arg == "reject" or arg == "close" then
    return review.all(false)
  elseif arg == "" or arg == "list" then
    local lines = {}
    for buf, n in pairs(review.pending()) do
      lines[#lines + 1] = string.format("%s: %d hunk(s)", vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":~:."), n)
    end
    return project().notify(#lines == 0 and "nothing under review" or table.concat(lines, "\n"))
  end
  error(string.format("radium: :RadiumReview takes list, accept, reject or close, not `%s`", arg), 0)
end

local function clipboard_cmd(o)
  local sub, rest = o.args:match("^%s*(%S*)%s*(.-)%s*$")
  local clipboard = require("radium.clipboard")
  if sub == "send" then
    return clipboard.send({ range = o.range > 0, first = o.line1, last = o.line2, prompt = rest })
  elseif sub == "receive" then
    if rest:find("%s") then
      error(string.format("radium: :RadiumClipboard receive takes one register at most, not `%s`", rest), 0)
    end
    return clipboard.receive(rest)
  end
  error("radium: :RadiumClipboard takes send [prompt] or receive [register]" .. (sub ~= "" and string.format(", not `%s`", sub) or ""), 0)
end

-- Completion of :RadiumClipboard: send or receive, then receive's registers.
local function clipboard_complete(lead, line, pos)
  local rest = line:sub(1, pos):match("Radium%a*!?%s+(.*)$") or ""
  local words = vim.split(rest, "%s+", { trimempty = false })
  local out = {}
  if #words == 1 then
    out = { "send", "receive" }
  elseif #words == 2 and words[1] == "receive" then
    out = require("radium.clipboard").registers()
  end
  return vim.tbl_filter(function(x) return vim.startswith(x, lead) end, out)
end

--- Defines the commands.
function M.define()
  local guard = function(fn)
    return function(opts)
      project().guard(fn, opts)
    end
  end
  local cmd = vim.api.nvim_create_user_command
  cmd("RadiumSend", guard(send), { range = true, nargs = "?", desc = "Send the selection (or the current line) to the agent" })
  cmd("RadiumCancel", guard(cancel), { desc = "Stop the running chat turn and agent steps" })
  cmd("RadiumBlocks", guard(blocks), { desc = "List the code blocks of the last answer" })
  cmd("RadiumPreview", guard(function(o) editor().review(block_arg(o.args)) end),
    { nargs = "?", complete = complete_from(block_numbers), desc = "Review a code block (or all) as hunks to accept or reject" })
  cmd("RadiumApply", guard(function(o)
    local n = block_arg(o.args)
    if n == "all" then
      require("radium.record").run(function()
        for i = 1, #editor().blocks() do editor().apply(i) end
      end)
    else
      editor().apply(n)
    end
  end), { nargs = "?", complete = complete_from(block_numbers), desc = "Apply a code block where it belongs (saved; :RadiumUndo takes it back)" })
  cmd("RadiumReview", guard(function(o) review_cmd(o.args) end),
    { nargs = "?", complete = complete_from(function() return { "list", "accept", "reject", "close" } end), desc = "The review: list, accept or reject everything" })
  cmd("RadiumTrust", guard(function(o) M.trust(o.args) end),
    { nargs = "?", complete = complete_from(function() return { "revoke" } end), desc = "Trust the project of the current buffer" })
  cmd("RadiumAgents", guard(function(o)
    if o.args == "" then
      return M.agents()
    end
    require("radium.agents").command(o.args)
  end), { nargs = "*", complete = function(lead, line) return require("radium.agents").complete(lead, line) end,
    desc = "The agents (radium's catalogue and agents.toml) with their status; `install ID` installs one, `pick` chooses one" })
  cmd("RadiumInstall", function() require("radium.install").command() end,
    { desc = "Download the native module and `rad` of the plugin's version (checksums verified), or build them with cargo" })
  cmd("RadiumUndo", guard(function() M.history("undo") end), { desc = "Undo the project's latest radium edit" })
  cmd("RadiumRedo", guard(function() M.history("redo") end), { desc = "Redo the edit :RadiumUndo took back" })
  cmd("RadiumClipboard", guard(clipboard_cmd), { range = true, nargs = "*", complete = clipboard_complete,
    desc = "Clipboard mode: send the file or lines to the clipboard, receive an answer into the review" })
  cmd("RadiumReferences", guard(function(o) require("radium.code").references(o.args ~= "" and o.args or nil) end),
    { nargs = "?", desc = "The references of the name under the cursor (or the one given) across the project, in the quickfix list" })
  cmd("RadiumRename", guard(function(o) require("radium.code").rename(o.args) end),
    { nargs = 1, desc = "Rename the name under the cursor across the project, through the review" })
  cmd("RadiumLog", guard(function() require("radium.log").open() end),
    { desc = "The engine's log of the project: failed requests, agents and language servers" })
  cmd("RadiumChat", guard(function(o)
    local chat = require("radium.chat")
    if o.bang then
      return chat.pick()
    end
    local history, agent = o.args:match("^(history)%s*(%S*)$")
    if history then
      return require("radium.chat_history").pick(agent ~= "" and agent or nil)
    end
    chat.toggle(o.args ~= "" and o.args or nil)
  end), { nargs = "?", bang = true, complete = function(lead, line)
    local after = line:match("history%s+(%S*)$")
    if after then
      return complete_from(M.agent_ids)(after)
    end
    return complete_from(function()
      local ids = M.agent_ids()
      table.insert(ids, "history")
      return ids
    end)(lead)
  end, desc = "Show or hide the chat with an agent (a new one when there is none); with ! pick one of the open chats; `history [AGENT]`: reopen a past conversation, or one of the agent's own sessions" })
  -- :RadiumEffort sets the option of category thought_level (the reasoning effort).
  for _, c in ipairs({ { "RadiumMode", "mode" }, { "RadiumModel", "model" }, { "RadiumEffort", "thought_level", "reasoning effort" } }) do
    cmd(c[1], guard(function(o) require("radium.chat_options").command(c[2], o.args) end), {
      nargs = "?",
      complete = complete_from(function() return require("radium.chat_options").values(c[2]) end),
      desc = "Set the " .. (c[3] or c[2]) .. " of the chat's agent (without an argument: pick one)",
    })
  end
  cmd("RadiumChats", guard(function() require("radium.chat").pick() end), { desc = "Pick one of the open chats and show it" })
  cmd("RadiumRestore", guard(function(o)
    local n = o.args ~= "" and tonumber(o.args) or nil
    if o.args ~= "" and not n then
      error("radium: :RadiumRestore takes a prompt's number, not `" .. o.args .. "`", 0)
    end
    require("radium.chat_restore").restore(nil, n)
  end), { nargs = "?", desc = "Restore the files to before a prompt of this chat (the one under the cursor, or number n)" })
end

return M
