-- :RadiumChat history AGENT: the agent's own sessions (ACP `session/list`)
-- that radium's history does not hold are offered after radium's
-- conversations, marked "(the agent's own)"; the one picked opens a chat
-- that takes it up (the agent remembers, the chat says radium has no
-- transcript). The example agent with `--resume --list` keeps its sessions
-- in EXAMPLE_AGENT_STATE, as Claude Code keeps its own.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin
require("radium.commands").define()

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

-- A project with a `listing` agent that lists its sessions; one session of
-- the project's folder is in its state, started in its own command line.
local function listing_project()
  local p = pt.project()
  local state = p.home .. "/agent-state"
  vim.fn.mkdir(state, "p")
  local lines = vim.fn.readfile(p.home .. "/agents.toml")
  vim.list_extend(lines, {
    "",
    "[[agents]]",
    'id = "listing"',
    'protocol = "acp"',
    string.format('command = ["node", "%s/examples/acp-agent/agent.mjs", "--resume", "--list"]', h.repo),
    string.format('env = { EXAMPLE_AGENT_STATE = "%s" }', state),
  })
  vim.fn.writefile(lines, p.home .. "/agents.toml")
  local ws = vim.uv.fs_realpath(p.ws)
  vim.fn.writefile({ vim.json.encode({ cwd = ws, prompts = { "from the cli" } }) }, state .. "/cli-a.json")
  pt.trust(p.ws)
  vim.fn.writefile({ "x" }, p.ws .. "/x.txt")
  vim.cmd("edit " .. p.ws .. "/x.txt")
  return p
end

-- Runs `:RadiumChat <args>` with vim.ui.select answering `choose(items)`;
-- answers the lines offered (nil when no picker opened).
local function pick(args, choose)
  local offered, saved = nil, vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    vim.schedule(function() on_choice(choose(items)) end)
  end
  vim.cmd("RadiumChat " .. args)
  pt.wait(function() return require("radium.chat_history").running == 0 and offered ~= nil end, 20000)
  vim.ui.select = saved
  return offered
end

test(":RadiumChat history AGENT offers the agent's own sessions and the one picked is taken up", function()
  local p = listing_project()
  local offered = pick("history listing", function(items) return items[#items] end)
  assert(offered, "the picker opened")
  eq(#offered, 1, "the agent's one session, no conversation yet")
  check(offered[1]:find("listing · (the agent's own) · ", 1, true) and offered[1]:find("from the cli", 1, true), offered[1])
  local chat
  pt.wait(function()
    chat = select(2, next(require("radium.chat").list()))
    return chat ~= nil and (chat.session ~= nil or chat.failed ~= nil)
  end, 15000)
  assert(chat.session, tostring(chat.failed))
  eq(chat.agent, "listing")
  eq(chat.resumed, "resume", "the agent took up its own session")
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  check(text:find("the agent's own session cli-a: radium holds no transcript of it", 1, true) ~= nil, text)

  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "remember" })
  vim.cmd("write")
  pt.wait(function() return (chat.turns or 0) >= 1 and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
  text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  check(text:find("I remember: from the cli; earlier turns given as context: 0", 1, true) ~= nil, text)

  -- With the chat open, a plain `:RadiumChat history` asks its agent too:
  -- cli-a is radium's conversation now, listed once, as radium's; another
  -- session of the agent's own follows it.
  vim.fn.writefile({ vim.json.encode({ cwd = vim.uv.fs_realpath(p.ws), prompts = { "another from the cli" } }) },
    p.home .. "/agent-state/cli-b.json")
  vim.cmd("wincmd p")
  offered = pick("history", function() return nil end)
  eq(#offered, 2, vim.inspect(offered))
  check(offered[1]:find("listing · 1 turn(s)", 1, true) ~= nil, offered[1])
  check(offered[2]:find("listing · (the agent's own)", 1, true) and offered[2]:find("another from the cli", 1, true), offered[2])
  close_all()
end)

test(":RadiumChat history without an agent asks none; an unknown agent is a warning naming it", function()
  listing_project()
  local notes = pt.notes()
  local listed
  require("radium.chat_history").pick(function(list) listed = list end)
  pt.wait(function() return listed ~= nil end, 10000)
  eq(listed, {}, "no chat open: no agent started to list its sessions")
  listed = nil
  require("radium.chat_history").pick("nosuch", function(list) listed = list end)
  pt.wait(function() return listed ~= nil end, 10000)
  notes.stop()
  eq(listed, {})
  check(notes.find("the sessions of `nosuch` could not be listed") ~= nil, notes.text())
  check(notes.find("nosuch") and notes.find("listing") ~= nil, notes.text())
  -- An agent that does not list its sessions, named: said.
  notes = pt.notes()
  listed = nil
  require("radium.chat_history").pick("example", function(list) listed = list end)
  pt.wait(function() return listed ~= nil end, 15000)
  notes.stop()
  check(notes.find("does not list its sessions") ~= nil, notes.text())
  check(vim.tbl_contains(vim.fn.getcompletion("RadiumChat history li", "cmdline"), "listing"), vim.inspect(vim.fn.getcompletion("RadiumChat history li", "cmdline")))
  close_all()
end)
