-- "Review hunks" at a chat's permission prompt, with the example ACP agent
-- (a real process): each hunk drawn in the chat and asked Keep/Reject, the
-- call allowed with the hunks kept, only they on disk, one undo step.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local function chat_text(chat)
  return table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
end

local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, vim.split(text, "\n"))
  vim.cmd("write")
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

test("Review hunks: each hunk drawn and asked, only the kept one lands, in one undo step", function()
  local p = pt.project()
  pt.trust(p.ws)
  local old = { "a", "b", "c", "d", "e", "f", "g", "h" }
  vim.fn.writefile(old, p.ws .. "/f.txt")
  vim.cmd("edit " .. p.ws .. "/f.txt")
  local buf = vim.api.nvim_get_current_buf()
  local chat
  local asked, shown_first, at_hunk = {}, nil, {}
  local saved = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    asked[#asked + 1] = opts.prompt
    local pick
    if #asked == 1 then
      shown_first = vim.tbl_map(opts.format_item, items)
      pick = items[#items] -- "Review hunks"
    else
      at_hunk[#at_hunk + 1] = chat_text(chat)
      pick = #asked == 2 and "Keep" or "Reject"
    end
    vim.schedule(function() on_choice(pick) end)
  end
  chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  say(chat, "selflines f.txt a|B|c|d|e|f|G|h")
  pt.wait(function() return chat.turns and chat.turns > 0 and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
  vim.ui.select = saved
  eq(shown_first and shown_first[#shown_first], "Review hunks (keep some, allow with them)", "offered: " .. vim.inspect(shown_first))
  eq(#asked, 3, "the permission, then one question a hunk: " .. vim.inspect(asked))
  check((asked[2] or ""):find("keep hunk 1 of 2 of `f.txt`", 1, true) ~= nil, "names the hunk: " .. tostring(asked[2]))
  check((at_hunk[1] or ""):find("**hunk** hunk 1 of 2 of `f.txt`\n    @@ -2,1 +2,1 @@\n    -b\n    +B", 1, true) ~= nil, "drawn before its question: " .. tostring(at_hunk[1]))
  check((at_hunk[2] or ""):find("    -g\n    +G", 1, true) ~= nil, "the second drawn too")
  eq(vim.fn.readfile(p.ws .. "/f.txt"), { "a", "B", "c", "d", "e", "f", "g", "h" }, "only the kept hunk on disk")
  local text = chat_text(chat)
  check(text:find("rejected hunks left out: 2", 1, true) ~= nil, "the write says what was left out: " .. text)
  eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "a", "B", "c", "d", "e", "f", "g", "h" }, "the buffer shows it")
  vim.api.nvim_buf_call(buf, function() vim.cmd("silent undo") end)
  eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), old, "u takes the call back in one step")
  close_all()
end)

test("Review hunks dismissed: the call is rejected and the file untouched", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.fn.writefile({ "a", "b" }, p.ws .. "/g.txt")
  local n = 0
  local saved = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    n = n + 1
    local pick = n == 1 and items[#items] or nil
    vim.schedule(function() on_choice(pick) end)
  end
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  say(chat, "selflines g.txt A|b")
  pt.wait(function() return chat.turns and chat.turns > 0 and not chat.running end, 15000)
  vim.ui.select = saved
  eq(vim.fn.readfile(p.ws .. "/g.txt"), { "a", "b" }, "untouched")
  check(chat_text(chat):find("I was not allowed to write", 1, true) ~= nil, "the agent was told no")
  close_all()
end)
