-- "Follow the agent" (setup({ follow_agent = true })) with the example ACP
-- agent, whose write tool calls carry `locations`: on, the window the chat
-- was opened from shows the written file while the chat keeps the focus;
-- off (the default), that window keeps its file; a location outside the
-- project is never shown.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin
local radium = h.radium

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

-- Opens other.txt, then a chat from its window; the agent writes notes.txt
-- (allowed). Answers the chat, the file's window and the project.
local function write_from_chat(follow)
  local p = pt.project()
  radium.setup({ follow_agent = follow })
  pt.trust(p.ws)
  vim.fn.writefile({ "old" }, p.ws .. "/notes.txt")
  vim.fn.writefile({ "other" }, p.ws .. "/other.txt")
  vim.cmd("edit " .. p.ws .. "/other.txt")
  local file_win = vim.api.nvim_get_current_win()
  local saved = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    vim.schedule(function() on_choice(items[1]) end)
  end
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "the chat's session did not open: " .. tostring(chat.failed))
  local chat_win = vim.fn.bufwinid(chat.buf)
  vim.api.nvim_set_current_win(chat_win)
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "write notes.txt from the agent" })
  vim.cmd("write")
  pt.wait(function() return (chat.turns or 0) > 0 and not chat.running end, 15000)
  vim.ui.select = saved
  return chat, file_win, chat_win, p
end

test("follow_agent off (the default): the window the chat was opened from keeps its file", function()
  eq(require("radium.project").config.follow_agent, false, "off by default")
  local chat, file_win, chat_win, p = write_from_chat(false)
  eq(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(file_win)), p.ws .. "/other.txt", "the other window keeps its file")
  eq(vim.api.nvim_win_get_buf(chat_win), chat.buf, "the chat shows the chat")
  eq(vim.fn.readfile(p.ws .. "/notes.txt"), { "from the agent" }, "the agent wrote")
  close_all()
end)

test("follow_agent on: the agent's tool call shows its file in the window the chat was opened from; the chat keeps the focus", function()
  local chat, file_win, chat_win, p = write_from_chat(true)
  eq(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(file_win)), p.ws .. "/notes.txt", "the other window shows the agent's file")
  eq(vim.api.nvim_get_current_win(), chat_win, "the chat's window stays current")
  eq(vim.api.nvim_win_get_buf(chat_win), chat.buf, "and shows the chat")
  eq(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(file_win), 0, -1, false), { "from the agent" }, "with the agent's text")
  -- A location outside the project, or no window to show it in: nothing shown.
  local follow = require("radium.chat_follow")
  eq(follow.event(chat, { type = "tool_call", locations = { { path = "/etc/hostname", line = 1 } } }), nil, "outside the project")
  eq(follow.event(chat, { type = "tool_call", locations = { { path = p.ws .. "/../escape.txt" } } }), nil, "out through ..")
  eq(follow.event(chat, { type = "tool_call", locations = { { line = 3 } } }), nil, "no path")
  eq(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(file_win)), p.ws .. "/notes.txt", "the window still shows the agent's file")
  vim.api.nvim_win_close(file_win, true)
  eq(follow.event(chat, { type = "tool_call", locations = { { path = p.ws .. "/other.txt" } } }), nil, "the window is gone: no other window is taken")
  eq(vim.api.nvim_win_get_buf(chat_win), chat.buf, "the chat's window still shows the chat")
  radium.setup({ follow_agent = false })
  close_all()
end)
