-- The agent's slash commands and usage in a chat buffer, with the example
-- agent (it sends /review and /explain after session/new, answers
-- `/name args` with what it got, and reports its usage): the commands are
-- completed with their hints and descriptions, `/review the parser`
-- reaches the agent unchanged, the usage is in the winbar and statusline().

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin
local slash = require("radium.chat_slash")

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

local function open_chat()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/notes.txt")
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, tostring(chat.failed))
  pt.wait(function() return chat.commands ~= nil end, 15000)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  return chat
end

test("the agent's commands are completed in the chat buffer with their hints and descriptions", function()
  local chat = open_chat()
  eq(#chat.commands, 2, "the example agent's two commands")
  eq(vim.bo[chat.buf].omnifunc, "v:lua.require'radium.chat_slash'.omnifunc", "the chat's omnifunc")
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "/re" })
  vim.api.nvim_win_set_cursor(0, { n, 3 })
  eq(slash.omnifunc(1, ""), 0, "completion starts at the /")
  local items = slash.omnifunc(0, "/re")
  eq(#items, 1, "only /review starts with /re")
  eq(items[1].abbr, "/review", "its name")
  eq(items[1].word, "/review ", "inserted with a space for its input")
  eq(items[1].menu, "<what to look at>", "its input hint")
  eq(items[1].info, "Review the changes of this branch", "its description")
  eq(#slash.omnifunc(0, "/"), 2, "/ alone lists both")
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "see /re" })
  vim.api.nvim_win_set_cursor(0, { n, 7 })
  eq(slash.omnifunc(1, ""), -3, "no completion past the line's start")
  -- `/` typed at a line's start opens the completion; elsewhere it is a `/`.
  local slash_key = vim.fn.maparg("/", "i", false, true)
  eq(slash_key.expr, 1, "`/` is an expression mapping in the chat buffer")
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "" })
  vim.api.nvim_win_set_cursor(0, { n, 0 })
  eq(slash_key.callback(), "/<C-x><C-o>", "at the line's start: the completion")
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "ab" })
  vim.api.nvim_win_set_cursor(0, { n, 1 })
  eq(slash_key.callback(), "/", "after text: a plain /")
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "" })
  close_all()
end)

test("a command reaches the agent as /name args, and the usage is in the winbar and statusline()", function()
  local chat = open_chat()
  eq(require("radium").statusline(), "radium: example · mode default · model small · effort medium", "no usage before a turn (the agent's mode and model only)")
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "/review the parser" })
  vim.cmd("write")
  pt.wait(function() return (chat.turns or 0) >= 1 and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  check(text:find("command /review got: the parser", 1, true) ~= nil, "the agent got it unchanged: " .. text)
  eq(chat.usage and chat.usage.used, 12300, "the usage kept")
  local win = vim.fn.bufwinid(chat.buf)
  eq(vim.wo[win].winbar, "radium: example · 12.3k/200k tokens, $0.04", "the winbar")
  eq(require("radium").statusline(), "radium: example · mode default · model small · effort medium · 12.3k/200k tokens, $0.04", "statusline() in the chat: mode, model, then usage")
  close_all()
end)

test("usage text: token counts, other currencies, nothing reported", function()
  eq(slash.usage_text({ used = 950, size = 1500000 }), "950/1.5M tokens", "small and large counts")
  eq(slash.usage_text({ used = 2000, cost = { amount = 1.5, currency = "EUR" } }), "2k tokens, 1.50 EUR", "no size, euros")
  eq(slash.usage_text({ totalTokens = 12345 }), "12.3k tokens", "a prompt answer's total")
  eq(slash.usage_text({ size = 10 }), nil, "no count: nothing")
  eq(slash.usage_text(nil), nil, "no usage")
  eq(slash.items(nil, "/"), {}, "no chat: no items")
end)
