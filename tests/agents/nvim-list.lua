-- nvim-list.lua — the real Claude Code adapter in headless Neovim
-- (scripts/test-agents.sh, case claude-nvim-list): `:RadiumChat history
-- AGENT` offers Claude's own session (session/list) marked "(the agent's
-- own)"; the one picked opens a chat that takes it up, and the next prompt's
-- answer recalls the earlier turn (the scripted model answers `chat: recall`
-- with the earlier `chat:` words it was sent). Run as:
--   RADIUM_LUA=bindings/lua WS=<workspace> RHOME=<radium home> AGENT=<id> \
--     nvim --headless -u NONE -l tests/agents/nvim-list.lua
-- Prints "ok ..." / "FAIL ..." lines; quits with :qa! (exit 0) or exits 1.

local env = vim.env
vim.opt.rtp:prepend(env.RADIUM_LUA)
vim.cmd("runtime plugin/radium.lua")
local ws, agent = env.WS, env.AGENT

local function say(line)
  io.stdout:write(line, "\n")
  io.stdout:flush()
end

local function fail(line)
  say("FAIL " .. line)
  os.exit(1)
end

require("radium").setup({ workspace = ws, radium_home = env.RHOME, notify = true, chat_agent = false })
vim.fn.chdir(ws)
local offered
vim.ui.select = function(items, opts, on_choice)
  offered = vim.tbl_map(opts.format_item, items)
  for _, item in ipairs(items) do
    if item.source == "agent" then
      return vim.schedule(function() on_choice(item) end)
    end
  end
  vim.schedule(function() on_choice(nil) end)
end
vim.cmd("RadiumChat history " .. agent)
vim.wait(90000, function() return offered ~= nil end, 50)
if not offered then
  fail("the picker did not open")
end
local mine = vim.tbl_filter(function(l) return l:find(agent .. " · (the agent's own)", 1, true) ~= nil end, offered)
if #mine == 0 then
  fail("Claude's own session is not offered: " .. vim.inspect(offered))
end
say("ok offered: " .. mine[1])
local chat
vim.wait(90000, function()
  chat = select(2, next(require("radium.chat").list()))
  return chat ~= nil and (chat.session ~= nil or chat.failed ~= nil)
end, 50)
if not (chat and chat.session) then
  fail("the chat's session opened: " .. tostring(chat and chat.failed))
end
if chat.resumed ~= "resume" and chat.resumed ~= "load" then
  fail("the chat took up Claude's session: resumed = " .. tostring(chat.resumed))
end
local n = vim.api.nvim_buf_line_count(chat.buf)
vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "chat: recall" })
vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
vim.cmd("write")
vim.wait(150000, function() return chat.turns and chat.turns > 0 and not chat.running end, 50)
require("radium.chat_render").flush(chat)
local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
if not text:find("radium holds no transcript of it", 1, true) then
  fail("the chat does not say it has no transcript:\n" .. text)
end
if not text:find("recall: apple tree", 1, true) then
  fail("the answer does not recall the earlier turn:\n" .. text)
end
say("ok the agent remembers; quitting")
vim.cmd("qa!")
