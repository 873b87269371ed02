-- :RadiumChat history: the project's past conversations in a picker; the
-- one picked reopens in a chat buffer with its transcript (each turn once),
-- resumed (the example agent cannot resume its own session: the earlier
-- turns go with the next prompt as context, which it counts), and its
-- prompts can still be restored to.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin
require("radium.commands").define()

local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, vim.split(text, "\n"))
  vim.cmd("write")
end

local function turn_done(chat, turns)
  pt.wait(function() return (chat.turns or 0) >= turns and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

local function count(lines, wanted)
  local n = 0
  for _, l in ipairs(lines) do
    if l == wanted then
      n = n + 1
    end
  end
  return n
end

test(":RadiumChat history reopens a past conversation with its transcript, once, and the agent gets it as context", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.fn.writefile({ "x" }, p.ws .. "/x.txt")
  vim.cmd("edit " .. p.ws .. "/x.txt")
  local first = require("radium.chat").open("example")
  pt.wait(function() return first.session ~= nil or first.failed ~= nil end, 15000)
  assert(first.session, tostring(first.failed))
  eq(first.session.resumed, nil, "a new conversation is not resumed")
  check(type(first.session.conversation) == "string", "the history keeps it")
  say(first, "hello from before")
  turn_done(first, 1)
  close_all()

  vim.cmd("edit " .. p.ws .. "/x.txt")
  local offered
  local saved = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    vim.schedule(function() on_choice(items[1]) end)
  end
  local notes = pt.notes()
  vim.cmd("RadiumChat history")
  local chat
  pt.wait(function()
    chat = select(2, next(require("radium.chat").list()))
    return chat ~= nil and (chat.session ~= nil or chat.failed ~= nil)
  end, 15000)
  vim.ui.select = saved
  assert(chat.session, tostring(chat.failed))
  eq(#offered, 1, "one conversation offered")
  check(offered[1]:find("example · 1 turn(s)", 1, true) and offered[1]:find("hello from before", 1, true), offered[1])
  eq(chat.resumed, "context", "the example agent cannot resume its own session")
  pt.wait(function() return notes.find("reopened with `example`") ~= nil end, 5000)
  notes.stop()
  check(notes.find("it gets the earlier turns with your next prompt") ~= nil, notes.text())
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  eq(count(lines, "hello from before"), 1, "the earlier prompt once")
  eq(count(lines, "You said: hello from before"), 1, "the earlier answer once")
  eq(#chat.prompts, 1, "the earlier prompt is kept for :RadiumRestore")
  check(type(chat.prompts[1].tag_before) == "string", "with its tag_before")

  say(chat, "remember")
  turn_done(chat, 2)
  lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  local joined = table.concat(lines, "\n")
  check(joined:find("earlier turns given as context: 1", 1, true) ~= nil, joined)
  eq(count(lines, "You said: hello from before"), 1, "still once after the next turn")
  eq(#chat.prompts, 2)
  close_all()
end)

test(":RadiumChat history in a project with none says so; `history` completes", function()
  local p = pt.project()
  vim.fn.writefile({ "x" }, p.ws .. "/y.txt")
  vim.cmd("edit " .. p.ws .. "/y.txt")
  local notes = pt.notes()
  local listed
  require("radium.chat_history").pick(function(list) listed = list end)
  pt.wait(function() return listed ~= nil end, 5000)
  notes.stop()
  eq(listed, {}, "nothing listed")
  check(notes.find("no past conversations") ~= nil, notes.text())
  check(vim.tbl_contains(vim.fn.getcompletion("RadiumChat h", "cmdline"), "history"), "history completes")
  close_all()
end)

test("Neovim's exit waits for the agent to save its session (session/close), bounded", function()
  local dir = vim.fn.tempname()
  local ws, home, state = dir .. "/ws", dir .. "/home", dir .. "/state"
  vim.fn.mkdir(ws .. "/.git", "p")
  vim.fn.mkdir(home, "p")
  vim.fn.mkdir(state, "p")
  vim.fn.writefile({ "x" }, ws .. "/a.txt")
  vim.fn.writefile({
    "[[agents]]",
    'id = "resuming"',
    'protocol = "acp"',
    string.format('command = ["node", "%s/examples/acp-agent/agent.mjs", "--resume"]', vim.fs.dirname(vim.fs.dirname(h.root))),
    -- Saving takes 500 ms, as Claude Code's does: an exit that does not
    -- wait ends the agent first.
    string.format('env = { EXAMPLE_AGENT_STATE = "%s", EXAMPLE_AGENT_CLOSE_DELAY_MS = "500" }', state),
  }, home .. "/agents.toml")
  local script = dir .. "/quit.lua"
  vim.fn.writefile({
    "vim.opt.rtp:prepend(" .. vim.inspect(h.root) .. ")",
    "require('radium').setup({ workspace = false, radium_home = " .. vim.inspect(home) .. ", notify = false, chat_agent = false })",
    "vim.cmd.edit(" .. vim.inspect(ws .. "/a.txt") .. ")",
    "local chat = require('radium.chat').open('resuming')",
    "vim.wait(15000, function() return chat.session ~= nil or chat.failed ~= nil end, 20)",
    "io.stdout:write(chat.session and 'opened\\n' or ('failed: ' .. tostring(chat.failed) .. '\\n'))",
    "vim.cmd('qa!')",
  }, script)
  local r = vim.system({ vim.v.progpath, "--headless", "-u", "NONE", "-c", "luafile " .. script }, { text = true }):wait(30000)
  check(tostring(r.stdout):find("opened", 1, true) ~= nil, "the chat opened: " .. tostring(r.stdout) .. tostring(r.stderr))
  eq(r.code, 0, "exit status 0 (stderr: " .. tostring(r.stderr) .. ")")
  -- Checked as Neovim is gone: the agent had saved the session.
  local saved = vim.fn.glob(state .. "/*.closed", false, true)
  eq(#saved, 1, "the agent got session/close before Neovim exited")
  vim.fn.delete(dir, "rf")
end)
