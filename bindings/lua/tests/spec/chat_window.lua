-- The chat's windows: :RadiumChat shows or hides the chat of an agent (the
-- same session), :RadiumChats and :RadiumChat! pick one of the open chats,
-- and a review asked from the chat opens beside it, not over it.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local function ready(chat)
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "the chat's session did not open: " .. tostring(chat.failed))
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

-- The chat buffers shown in the current tab.
local function shown_chats()
  local out = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    if require("radium.chat").get(buf) then
      out[#out + 1] = buf
    end
  end
  return out
end

test(":RadiumChat shows and hides the agent's chat, one session; :RadiumChats picks one of the open chats", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = require("radium.chat")
  vim.cmd("RadiumChat example")
  local one = chat.get()
  check(one ~= nil, "a chat opened, in the current window")
  ready(one)
  local session = one.session
  eq(#vim.api.nvim_tabpage_list_wins(0), 2, "beside the file")
  vim.cmd("RadiumChat example")
  eq(shown_chats(), {}, "the second :RadiumChat hid it")
  eq(#vim.api.nvim_tabpage_list_wins(0), 1, "its window closed")
  check(vim.api.nvim_buf_is_valid(one.buf), "the chat is kept")
  vim.cmd("RadiumChat example")
  eq(shown_chats(), { one.buf }, "the third showed it again")
  check(one.session == session, "the same session")
  eq(vim.tbl_count(chat.list()), 1, "no new chat")
  -- From the file's window too: the chat shown in the tab is hidden.
  vim.cmd("wincmd p")
  eq(vim.api.nvim_buf_get_name(0), p.ws .. "/src/main.rs", "back in the file")
  vim.cmd("RadiumChat example")
  eq(shown_chats(), {}, "hidden from the file's window")
  vim.cmd("RadiumChat example")
  eq(shown_chats(), { one.buf }, "shown again")
  -- The chat in the tab's only window: hiding it shows the file there.
  vim.cmd("only")
  vim.cmd("RadiumChat example")
  eq(vim.api.nvim_buf_get_name(0), p.ws .. "/src/main.rs", "the file took the chat's place")
  check(vim.api.nvim_buf_is_valid(one.buf), "the chat is kept")

  -- A second chat: with another agent's name.
  vim.cmd("RadiumChat answer")
  local two = chat.get()
  check(two ~= nil and two ~= one, "a chat with the other agent")
  vim.cmd("wincmd p")
  local seen, prompt
  local saved = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    prompt = opts.prompt
    seen = vim.tbl_map(opts.format_item, items)
    on_choice(items[1])
  end
  vim.cmd("RadiumChats")
  eq(prompt, "radium: show the chat", "asked which")
  eq(#seen, 2, "both chats listed: " .. vim.inspect(seen))
  check(seen[1]:find("example", 1, true) ~= nil and seen[2]:find("answer", 1, true) ~= nil, "by agent, oldest first: " .. vim.inspect(seen))
  check(seen[2]:find("shown", 1, true) ~= nil and seen[1]:find("shown", 1, true) == nil, "which are shown: " .. vim.inspect(seen))
  eq(vim.api.nvim_get_current_buf(), one.buf, "the one picked is shown and entered")
  eq(#shown_chats(), 2, "beside the other")
  vim.cmd("RadiumChat example")
  vim.cmd("RadiumChat!")
  eq(vim.api.nvim_get_current_buf(), one.buf, ":RadiumChat! picks too")
  vim.ui.select = saved
  eq(vim.tbl_count(chat.list()), 2, "still two chats")
  close_all()
  local notes = pt.notes()
  vim.cmd("RadiumChats")
  notes.stop()
  eq(notes.last(), { "radium: no chats are open (:RadiumChat opens one)", vim.log.levels.WARN }, "none to pick")
end)

test("a review asked from the chat opens beside it, never over the chat", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  p.answer("Two changes:\n```rust path=src/main.rs\nfn main() { run(); }\n```\n```python path=py/x.py\nprint(1)\n```")
  local c = require("radium.chat").open("answer")
  ready(c)
  local chat_win = vim.api.nvim_get_current_win()
  local n = vim.api.nvim_buf_line_count(c.buf)
  vim.api.nvim_buf_set_lines(c.buf, n - 1, n, false, { "change things" })
  vim.cmd("write")
  pt.wait(function() return c.turns and c.turns > 0 and not c.running end, 15000)
  vim.cmd("RadiumPreview all")
  eq(vim.api.nvim_win_get_buf(chat_win), c.buf, "the chat keeps its window")
  check(vim.api.nvim_get_current_win() ~= chat_win, "the review is in another window")
  eq(vim.api.nvim_buf_get_name(0), p.ws .. "/src/main.rs", "the file's window shows the first file")
  eq(#vim.api.nvim_tabpage_list_wins(0), 2, "no new window: the file's one was used")
  require("radium.review").all(false)
  eq(require("radium.review").pending(), {}, "rejected")

  -- The chat alone in the tab: the review opens in a split beside it.
  vim.api.nvim_set_current_win(chat_win)
  vim.cmd("only")
  vim.cmd("RadiumPreview 1")
  eq(#vim.api.nvim_tabpage_list_wins(0), 2, "a split")
  eq(vim.api.nvim_win_get_buf(chat_win), c.buf, "the chat still shown")
  eq(vim.api.nvim_buf_get_name(0), p.ws .. "/src/main.rs", "the review in the new window")
  vim.api.nvim_feedkeys("q", "xt", false)
  close_all()
end)

test("text typed in the chat while a turn streams is the next message, never mixed into the answer", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local c = require("radium.chat").open("example")
  ready(c)
  local function text() return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), "\n") end
  local n = vim.api.nvim_buf_line_count(c.buf)
  vim.api.nvim_buf_set_lines(c.buf, n - 1, n, false, { "slow" })
  vim.cmd("write")
  pt.wait(function() return text():find("chunk 2", 1, true) ~= nil end, 15000)
  eq(vim.api.nvim_win_get_cursor(0), { vim.api.nvim_buf_line_count(c.buf), 0 }, "the cursor under the next ## You")
  -- Typed in pieces while the answer goes on.
  vim.api.nvim_feedkeys("Anext", "xt", false)
  pt.wait(function() return text():find("chunk 4", 1, true) ~= nil end, 15000)
  vim.api.nvim_feedkeys("A question", "xt", false)
  pt.wait(function() return text():find("chunk 6", 1, true) ~= nil end, 15000)
  vim.cmd("RadiumCancel")
  pt.wait(function() return not c.running end, 15000)
  require("radium.chat_render").flush(c)
  local all = text()
  check(all:find("\n## example\nchunk 0 chunk 1 chunk 2 chunk 3 chunk 4 chunk 5 chunk 6 ", 1, true) ~= nil, "the answer whole: " .. all)
  check(all:match("\n## You\nnext question$") ~= nil, "the typed text under the next ## You, alone: " .. vim.inspect(all:sub(-120)))
  local _, yous = all:gsub("\n## You\n", "")
  eq(yous, 2, "one ## You per message: " .. all)
  eq(require("radium.chat_render").user_text(c), "next question", "the next message")
  vim.cmd("write")
  pt.wait(function() return c.turns == 2 and not c.running end, 15000)
  require("radium.chat_render").flush(c)
  check(text():find("You said: next question", 1, true) ~= nil, "sent as it was typed: " .. text())
  check(text():match("\n## You\n$") ~= nil, "a new ## You at the end: " .. vim.inspect(text():sub(-40)))
  close_all()
end)

test("a chat wiped while its answer streams: the agent is closed, and no error is raised by the chunks still arriving", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local c = require("radium.chat").open("example")
  ready(c)
  local n = vim.api.nvim_buf_line_count(c.buf)
  vim.api.nvim_buf_set_lines(c.buf, n - 1, n, false, { "slow" })
  vim.cmd("write")
  pt.wait(function()
    return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), "\n"):find("chunk 1", 1, true) ~= nil
  end, 15000)
  vim.v.errmsg = ""
  vim.cmd("messages clear")
  vim.cmd("bwipeout! " .. c.buf)
  pt.wait(function() return c.closed end, 15000)
  vim.wait(400, function() return false end) -- chunks in flight reach the wiped chat
  eq(vim.v.errmsg, "", "no error")
  local msgs = vim.api.nvim_exec2("messages", { output = true }).output
  check(not msgs:find("Error", 1, true) and not msgs:find("Invalid buffer", 1, true), "no error message: " .. msgs)
  eq(c.running, false, "the chat is not running")
  close_all()
end)
