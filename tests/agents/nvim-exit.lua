-- nvim-exit.lua — the real Claude Code adapter in headless Neovim
-- (scripts/test-agents.sh, case claude-nvim-exit): one chat turn, then
-- Neovim quits (:qa!, so VimLeavePre runs). Neovim's exit waits for the
-- chat's gentle close (session/close, bounded), so Claude saves its session;
-- the case then checks, after Neovim is gone, that `rad chat --continue`
-- resumes it. Run as:
--   RADIUM_LUA=bindings/lua WS=<workspace> RHOME=<radium home> AGENT=<id> \
--     nvim --headless -u NONE -l tests/agents/nvim-exit.lua
-- Prints "ok ..." / "FAIL ..." lines; quits with :qa! (exit 0) or exits 1.

local env = vim.env
vim.opt.rtp:prepend(env.RADIUM_LUA)
vim.cmd("runtime plugin/radium.lua")
local ws, agent = env.WS, env.AGENT

local function say(line)
  io.stdout:write(line, "\n")
  io.stdout:flush()
end

require("radium").setup({ workspace = ws, radium_home = env.RHOME, notify = true, chat_agent = false })
vim.fn.chdir(ws)
local chat = require("radium.chat").open(agent)
vim.wait(90000, function() return chat.session ~= nil or chat.failed ~= nil end, 50)
if not chat.session then
  say("FAIL the chat's session opened: " .. tostring(chat.failed))
  os.exit(1)
end
local n = vim.api.nvim_buf_line_count(chat.buf)
vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "chat: apple tree" })
vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
vim.cmd("write")
vim.wait(150000, function() return chat.turns and chat.turns > 0 and not chat.running end, 50)
require("radium.chat_render").flush(chat)
local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
if not text:find("pong: apple tree", 1, true) then
  say("FAIL the turn's answer is in the chat:\n" .. text)
  os.exit(1)
end
say("ok the turn ended; quitting")
-- Neovim's wait for the close is bounded (chat_exit.WAIT_MS, 2 s: a user's
-- :qa is not held longer); on a test machine loaded by a release build,
-- Claude's close can take longer than that, so this case gives it 20 s
-- (the bound itself is held by bindings/lua/tests/spec/chat_history.lua).
require("radium.chat_exit").WAIT_MS = 20000
-- After radium's own VimLeavePre (defined before this one): how the close
-- went, printed for the case's failure report.
local quitting = vim.uv.hrtime()
vim.api.nvim_create_autocmd("VimLeavePre", {
  callback = function()
    local ms = math.floor((vim.uv.hrtime() - quitting) / 1e6)
    say(("ok Neovim's exit waited %d ms; the session %s"):format(ms,
      chat.session.closed and "closed" or "was still closing"))
  end,
})
vim.cmd("qa!")
