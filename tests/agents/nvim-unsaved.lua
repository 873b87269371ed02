-- nvim-unsaved.lua — the real Claude Code adapter in headless Neovim
-- (scripts/test-agents.sh, case claude-nvim): a buffer with an unsaved line,
-- a chat turn in which Claude edits that file on disk itself; the buffer
-- must then hold the user's line and Claude's change and still be modified;
-- :RadiumUndo takes Claude's change back on disk and the buffer keeps the
-- user's line. With follow_agent on, Claude's edit shows notes.txt again in
-- the window the chat was opened from (showing another file meanwhile),
-- the chat's window staying current. Run as:
--   RADIUM_LUA=bindings/lua WS=<workspace> RHOME=<radium home> AGENT=<id> \
--     nvim --headless -u NONE -l tests/agents/nvim-unsaved.lua
-- Prints one line per check ("ok ..." / "FAIL ...") and exits 1 on a failure.

local env = vim.env
vim.opt.rtp:prepend(env.RADIUM_LUA)
vim.cmd("runtime plugin/radium.lua")
local ws, agent = env.WS, env.AGENT
local file = ws .. "/notes.txt"
local USER_LINE = "epsilon: typed, not saved"

local function say(line)
  io.stdout:write(line, "\n")
end

local failed = 0
local function check(cond, what)
  say((cond and "ok " or "FAIL ") .. what)
  if not cond then
    failed = failed + 1
  end
end
local function finish()
  io.stdout:flush()
  os.exit(failed > 0 and 1 or 0)
end

local said = {}
vim.notify = function(msg, level)
  said[#said + 1] = tostring(msg)
  say("notify(" .. tostring(level) .. "): " .. tostring(msg))
end
local function said_text()
  return table.concat(said, " | ")
end

-- The permission to edit is allowed (the first option that allows). What
-- the chat buffer shows when the question is asked is kept: the diff must
-- be on screen before the answer.
local chat
local at_question
vim.ui.select = function(items, opts, on_choice)
  if chat and chat.buf and vim.api.nvim_buf_is_valid(chat.buf) and at_question == nil then
    at_question = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  end
  local pick = items[1]
  for _, item in ipairs(items) do
    local shown = opts.format_item and opts.format_item(item) or tostring(item)
    say("option: " .. shown)
    if shown:lower():find("allow") and not shown:lower():find("reject") then
      pick = item
      break
    end
  end
  vim.schedule(function() on_choice(pick) end)
end

require("radium").setup({ workspace = ws, radium_home = env.RHOME, notify = true, chat_agent = false, follow_agent = true })
vim.fn.chdir(ws)
vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { USER_LINE })
check(vim.bo[buf].modified, "the buffer has an unsaved line")

chat = require("radium.chat").open(agent)
vim.wait(90000, function() return chat.session ~= nil or chat.failed ~= nil end, 50)
check(chat.session ~= nil, "the chat's session opened: " .. tostring(chat.failed))
if not chat.session then
  finish()
end
-- Follow the agent: the window the chat was opened from now shows another
-- file; Claude's edit (its tool call's locations) brings notes.txt back
-- into it, while the chat's window stays current.
local from_win = vim.fn.bufwinid(buf)
vim.fn.writefile({ "other" }, ws .. "/other.txt")
vim.api.nvim_win_call(from_win, function() vim.cmd("edit " .. ws .. "/other.txt") end)
local chat_win = vim.fn.bufwinid(chat.buf)
vim.api.nvim_set_current_win(chat_win)
local n = vim.api.nvim_buf_line_count(chat.buf)
vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "Change beta in notes.txt" })
vim.cmd("write")
vim.wait(150000, function() return chat.turns and chat.turns > 0 and not chat.running end, 50)
require("radium.chat_render").flush(chat)
vim.wait(15000, function() return require("radium.merge").running == 0 end, 50)
check(chat.turns and chat.turns > 0 and not chat.running, "the turn ended")
check(vim.api.nvim_win_is_valid(from_win) and vim.api.nvim_win_get_buf(from_win) == buf,
  "follow_agent: the window the chat was opened from shows notes.txt again")
check(vim.api.nvim_get_current_win() == chat_win, "follow_agent: the chat's window stayed current")
local chat_text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
say("--- chat\n" .. chat_text .. "\n--- end of chat")
check(at_question ~= nil, "a permission question was asked")
check(at_question ~= nil and at_question:find("-beta", 1, true) ~= nil and at_question:find("+beta from claude", 1, true) ~= nil,
  "the diff (-beta, +beta from claude) was in the chat before the question was answered")

local disk = vim.fn.readfile(file)
local agents_line = "beta from claude"
check(vim.tbl_contains(disk, agents_line), "Claude's change is on disk: " .. vim.inspect(disk))
check(not vim.tbl_contains(disk, USER_LINE), "the user's line is not saved by anyone")
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
check(vim.tbl_contains(lines, USER_LINE), "the buffer keeps the user's line: " .. vim.inspect(lines))
check(vim.tbl_contains(lines, agents_line), "the buffer has Claude's change: " .. vim.inspect(lines))
check(vim.bo[buf].modified, "the buffer is still modified ([+])")
check(said_text():find("notes.txt changed on disk and was merged into its buffer", 1, true) ~= nil, "the user was told: " .. said_text())

vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))
local ok, err = pcall(vim.cmd, "RadiumUndo")
vim.wait(15000, function() return require("radium.merge").running == 0 end, 50)
check(ok, ":RadiumUndo ran: " .. tostring(err))
check(vim.deep_equal(vim.fn.readfile(file), before), "Claude's change is undone on disk: " .. vim.inspect(vim.fn.readfile(file)))
lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
check(vim.tbl_contains(lines, USER_LINE), "after :RadiumUndo the user's line is still there: " .. vim.inspect(lines))
check(not vim.tbl_contains(lines, agents_line), "after :RadiumUndo Claude's change is gone from the buffer: " .. vim.inspect(lines))
check(vim.bo[buf].modified, "and the buffer is still modified")
-- Closing the chat closes its session (the agent's processes end).
for chat_buf in pairs(require("radium.chat").list()) do
  pcall(vim.api.nvim_buf_delete, chat_buf, { force = true })
end
vim.wait(2000, function() return false end, 100)
finish()
