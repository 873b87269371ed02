-- Agent sessions from Neovim with the example ACP agent (a real Node
-- process): opened without blocking, events on the main loop while a timer
-- keeps ticking, permissions decided by a Lua function (at once or later),
-- the agent's write undone, cancel, close, and the errors.

local h = ...
local check, eq, test, raises = h.check, h.eq, h.test, h.raises
local radium = h.radium

local agent = h.repo .. "/examples/acp-agent/agent.mjs"

-- An engine whose user agents.toml has the example agent as `example`.
local function engine_with_agent()
  local dir = vim.fn.tempname()
  local ws, home = dir .. "/ws", dir .. "/home"
  vim.fn.mkdir(ws, "p")
  vim.fn.mkdir(home, "p")
  vim.fn.writefile({
    "[[agents]]",
    'id = "example"',
    'protocol = "acp"',
    string.format('command = ["node", "%s"]', agent),
  }, home .. "/agents.toml")
  return radium.new({ workspace = ws, radium_home = home }), ws
end

local function open(e, handlers)
  local session, err
  e:session_open("example", handlers, function(s, message)
    session, err = s, message
  end)
  vim.wait(15000, function() return session ~= nil or err ~= nil end, 10)
  assert(session, "the session did not open: " .. tostring(err))
  return session
end

local function wait_end(events)
  vim.wait(15000, function()
    local last = events[#events]
    return last ~= nil and (last.type == "turn_end" or last.type == "error")
  end, 10)
  return events[#events] or {}
end

local function of_type(events, kind)
  local out = {}
  for _, ev in ipairs(events) do
    if ev.type == kind then
      out[#out + 1] = ev
    end
  end
  return out
end

test("a session streams on the main loop and a Lua function allows the write", function()
  local e, ws = engine_with_agent()
  vim.fn.writefile({ "old" }, ws .. "/notes.txt")
  local events, on_main, asked = {}, true, nil
  local t0 = vim.uv.hrtime()
  local session
  e:session_open("example", {
    on_event = function(ev)
      on_main = on_main and not vim.in_fast_event()
      events[#events + 1] = ev
    end,
    on_permission = function(ev)
      asked = ev
      return "allow"
    end,
  }, function(s) session = s end)
  local returned_ms = (vim.uv.hrtime() - t0) / 1e6
  -- The session comes on a later turn of the loop, once the agent answered.
  eq(session, nil, "session_open returned before the agent was ready (" .. returned_ms .. " ms)")
  vim.wait(15000, function() return session ~= nil end, 10)
  assert(session, "opened")

  local started = session:prompt("write notes.txt from neovim", {
    context = { file_path = ws .. "/notes.txt", selection = "old", selection_range = { start_line = 1, end_line = 1 } },
  })
  eq(started.running, true, "the prompt returns at once")
  local last = wait_end(events)
  eq(last.type, "turn_end", "the turn ended")
  eq(last.stop_reason, "end_turn", "stop reason")
  check(on_main, "events ran on the main loop, outside fast events")
  check(asked ~= nil and asked.tool_call.diffs[1].old_text == "old\n", "on_permission saw the diff")
  eq(#of_type(events, "permission"), 0, "a permission decided by on_permission is not an event")
  eq(vim.fn.readfile(ws .. "/notes.txt"), { "from neovim" }, "the agent wrote the file")
  check(#of_type(events, "text") >= 1, "text streamed")

  -- The write is an edit: undo with the turn's tag restores the file.
  local undo = e:request({ command = "undo", tag = last.tag })
  eq(undo.ok, true, "undo: " .. vim.inspect(undo))
  eq(vim.fn.readfile(ws .. "/notes.txt"), { "old" }, "undo restored it")

  session:close()
end)

test("a permission answered later, a rejected one, cancel and close", function()
  local e, ws = engine_with_agent()
  local events, pending, closed = {}, nil, false
  local session = open(e, {
    on_event = function(ev) events[#events + 1] = ev end,
    on_permission = function(_, answer) pending = answer end,
    on_close = function() closed = true end,
  })
  session:prompt("write later.txt decided later")
  vim.wait(10000, function() return pending ~= nil end, 10)
  check(pending ~= nil, "asked")
  pending("reject")
  local last = wait_end(events)
  check(last.text and last.text:find("not allowed", 1, true) ~= nil, "the agent was told no: " .. vim.inspect(last))
  eq(vim.fn.filereadable(ws .. "/later.txt"), 0, "nothing written")

  events = {}
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(10, 10, vim.schedule_wrap(function() ticks = ticks + 1 end))
  local t0 = vim.uv.hrtime()
  session:prompt("slow")
  raises(function() session:prompt("again") end, "a turn is already running", "one turn at a time")
  vim.wait(10000, function() return #of_type(events, "text") >= 2 end, 10)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  local chunks = #of_type(events, "text")
  session:cancel()
  last = wait_end(events)
  timer:stop()
  timer:close()
  eq(last.stop_reason, "cancelled", "cancelled")
  check(chunks >= 2, "chunks arrived while the turn ran (" .. chunks .. ")")
  h.ticked(ticks, ms, 10, "while the agent streamed")

  session:close()
  vim.wait(5000, function() return closed end, 10)
  check(closed, "on_close ran")
  raises(function() session:prompt("x") end, "no session", "a closed session refuses prompts")
end)

test("Lua hooks decide a session's permissions on the main loop: a stop rejects, permission = allow allows", function()
  local e, ws = engine_with_agent()
  local seen, on_main = {}, true
  e:register("gate", "before_tool", function(ctx)
    on_main = on_main and not vim.in_fast_event() and vim.uv.thread_self ~= nil
    seen[#seen + 1] = ctx.data.tool_call and ctx.data.tool_call.toolCallId
    if ctx.data.tool_call and tostring(vim.inspect(ctx.data.tool_call)):find("blocked.txt", 1, true) then
      return { action = "stop", reason = "not this file" }
    end
    return { action = "modify", data = { permission = "allow" } }
  end)
  local events, asked = {}, false
  local session = open(e, {
    on_event = function(ev) events[#events + 1] = ev end,
    on_permission = function() asked = true; return "reject" end,
  })
  session:prompt("write blocked.txt nope")
  local last = wait_end(events)
  eq(last.type, "turn_end", "the turn ended")
  local decided = of_type(events, "permission_decided")
  eq(#decided, 1, "one decision: " .. vim.inspect(events))
  eq(decided[1].allowed, false, "rejected")
  eq(decided[1].by, "hook:gate", "by the Lua hook")
  eq(vim.fn.filereadable(ws .. "/blocked.txt"), 0, "nothing written")

  events = {}
  session:prompt("write allowed.txt yes")
  last = wait_end(events)
  decided = of_type(events, "permission_decided")
  eq(decided[1] and decided[1].allowed, true, "allowed: " .. vim.inspect(decided))
  eq(decided[1].by, "hook:gate", "by the Lua hook")
  eq(vim.fn.readfile(ws .. "/allowed.txt"), { "yes" }, "written")
  check(not asked, "on_permission was never asked")
  eq(#seen, 2, "the hook ran for both calls")
  check(on_main, "the hook ran on the main thread, outside fast events")
  session:close()
end)

test("a Lua hook stops a call Claude Code would run without asking (its PreToolUse hook, relayed by rad) on the main loop", function()
  -- `rad` (built by `cargo build -p radium-cli`, as scripts/test.sh does first) runs the relay.
  local rad = vim.env.RADIUM_RAD or (h.repo .. "/target/debug/rad")
  check(vim.fn.executable(rad) == 1, "no rad at " .. rad .. ": build it with cargo build -p radium-cli (or set RADIUM_RAD)")
  local dir = vim.fn.tempname()
  local ws, home = dir .. "/ws", dir .. "/home"
  vim.fn.mkdir(ws, "p")
  vim.fn.mkdir(home, "p")
  vim.fn.writefile({
    "[[agents]]",
    'id = "claudeish"',
    'protocol = "acp"',
    string.format('command = ["node", "%s", "--claude-hooks"]', agent),
  }, home .. "/agents.toml")
  local e = radium.new({ workspace = ws, radium_home = home, rad_program = rad })
  local seen, on_main = {}, true
  e:register("no-ls", "before_tool", function(ctx)
    on_main = on_main and not vim.in_fast_event()
    seen[#seen + 1] = ctx.data.via
    if tostring(ctx.data.arguments.command):match("^ls") then
      return { action = "stop", reason = "no ls from Lua" }
    end
  end)
  local events, session, err = {}, nil, nil
  e:session_open("claudeish", {
    on_event = function(ev) events[#events + 1] = ev end,
  }, function(s, message)
    session, err = s, message
  end)
  vim.wait(15000, function() return session ~= nil or err ~= nil end, 10)
  assert(session, "the session did not open: " .. tostring(err))
  session:prompt("quiet ls -la")
  local last = wait_end(events)
  check(tostring(last.text):find("hook decision: deny: radium: the before_tool hook `no-ls` refused it: no ls from Lua", 1, true),
    "refused: " .. vim.inspect(events))
  local decided = of_type(events, "permission_decided")
  eq(decided[1] and decided[1].by, "hook:no-ls", "decided by the Lua hook")
  events = {}
  session:prompt("quiet echo hi")
  last = wait_end(events)
  check(tostring(last.text):find("hook decision: none", 1, true), "no opinion: " .. vim.inspect(events))
  eq(seen, { "pre_tool_use", "pre_tool_use" }, "the hook saw both calls through the relay")
  check(on_main, "the hook ran on the main thread, outside fast events")
  session:close()
end)

test("session errors: unknown agent, bad handlers, unknown session", function()
  local e = engine_with_agent()
  local err, code
  e:session_open("nobody", {}, function(s, message, c)
    check(s == nil, "no session")
    err, code = message, c
  end)
  vim.wait(5000, function() return err ~= nil end, 10)
  check(err and err:find("nobody", 1, true) ~= nil, "names the agent: " .. tostring(err))
  eq(code, "unknown_agent", "code")
  raises(function() e:session_open("example", { on_event = 3 }, function() end) end,
    "handler `on_event` must be a function", "bad handler")
  raises(function() e._handle:session_subscribe("s42", function() end) end, "no session `s42`", "unknown session")
end)

test("a session has its conversation's tag from the start; a later one continues it", function()
  local e, ws = engine_with_agent()
  local first = open(e, {})
  check(type(first.tag) == "string" and first.tag ~= "", "a tag before any write: " .. vim.inspect(first.tag))
  -- A step the editor records with it is in the same conversation.
  vim.fn.writefile({ "after" }, ws .. "/r.txt")
  local rec = e:request({ command = "record", tag = first.tag, follow = true, args = { files = { { path = "r.txt", old_text = "before\n" } } } })
  eq(rec.ok, true, vim.inspect(rec))
  local second
  e:session_open("example", {}, function(s) second = s end, { tag = rec.tag })
  vim.wait(15000, function() return second ~= nil end, 10)
  eq(second and second.tag, rec.tag, "continued at the latest state")
  raises(function() e:session_open("example", {}, function() end, { tag = 5 }) end, "`tag` must be a dog tag", "bad tag")
  first:close()
  second:close()
end)

test("a poll answers whether a stream holds more than one poll takes (a flood), and not for a short answer", function()
  local e = engine_with_agent()
  local bytes, ended = 0, false
  local session = open(e, { on_event = function(ev)
    if ev.type == "text" then bytes = bytes + #ev.text end
    if ev.type == "turn_end" then ended = true end
  end })
  -- 8 MB of text; the main loop is held (uv.sleep) so the events pile up
  -- in the stream, then one poll by hand takes at most its share.
  session:prompt("stream 8000 1024")
  local more, polled = false, 0
  for _ = 1, 100 do
    vim.uv.sleep(100)
    local before = bytes
    local _, m = radium.native.poll(true)
    polled = bytes - before
    if m then
      more = true
      break
    end
  end
  check(more, "a poll left events of the flood for the next one")
  check(polled >= 256 * 1024 and polled < 2 * 1024 * 1024, "one poll took about 256 KiB, not all: " .. polled)
  vim.wait(60000, function() return ended end, 10)
  eq(bytes, 8000 * 1024, "every byte arrived")
  -- A short answer: nothing left over.
  ended = false
  session:prompt("hello")
  local any_more = false
  vim.wait(15000, function()
    local _, m = radium.native.poll(true)
    any_more = any_more or m
    return ended
  end, 10)
  check(ended, "the short turn ended")
  eq(any_more, false, "no poll of a short answer left more")
  session:close()
end)

test("a flood of updates to one tool call is folded before it counts against a poll's share", function()
  local e = engine_with_agent()
  local updates, ended = 0, false
  local session = open(e, { on_event = function(ev)
    if ev.type == "tool_call_update" then updates = updates + 1 end
    if ev.type == "turn_end" then ended = true end
  end })
  -- 4,000 updates, each with the whole output so far (up to 64 KiB): one
  -- poll folds them into one, so none leaves more for the next.
  session:prompt("toollines 4000 95")
  local more = false
  for _ = 1, 200 do
    vim.uv.sleep(100)
    local _, m = radium.native.poll(true)
    more = more or m
    if ended then break end
  end
  check(ended, "the turn ended")
  eq(more, false, "no poll left more")
  check(updates >= 1 and updates < 100, "the updates reached Lua folded: " .. updates)
  session:close()
end)
