-- Hostile and extreme use must never crash or freeze Neovim: data nested
-- 200,000 deep and cyclic tables are clear errors, 100 MB strings work,
-- hooks that raise or never return are isolated while the main loop goes on,
-- engines dropped (there is no close) or Neovim quitting with a chain in
-- flight, hooks unregistering themselves mid-chain, and engines created and
-- dropped in a loop without growing memory.

local h = ...
local check, eq, raises, test = h.check, h.eq, h.raises, h.test
local radium = h.radium
local names = h.names
local tracer = h.tracer

local DEPTH = 200000

local function deep_map()
  local root = {}
  local cur = root
  for _ = 1, DEPTH do
    local child = {}
    cur.next = child
    cur = child
  end
  return root
end

local function deep_list()
  local root = {}
  local cur = root
  for _ = 1, DEPTH do
    local child = {}
    cur[1] = child
    cur = child
  end
  return root
end

-- The hooks of an outcome by name.
local function by_name(outcome)
  local out = {}
  for _, run in ipairs(outcome.hooks) do
    out[run.name] = run
  end
  return out
end

-- Calls fn and returns its error message ("" when it did not raise).
local function error_of(fn)
  local ok, err = pcall(fn)
  return ok and "" or tostring(err)
end

-- The engine answers and Neovim's API works: nothing was left broken.
local function still_alive(e, what)
  eq(e:request({ command = "ping" }), { ok = true, data = "pong" }, what .. ": the engine still answers")
  eq(vim.api.nvim_eval("1 + 1"), 2, what .. ": Neovim's API still works")
end

-- `value` is refused by each of the three ways into the engine, with a
-- message containing `wanted`, and starts no chain.
local function refused_everywhere(e, value, wanted, what)
  local calls = {
    execute = function() e:execute("custom_logging", value) end,
    request = function()
      e:request({ command = "hooks-execute", args = { hook_type = "custom_logging", data = value } })
    end,
    execute_async = function() e:execute_async("custom_logging", value, function() end) end,
  }
  for door, call in pairs(calls) do
    local err = error_of(call)
    check(err:find("radium: the %a+ cannot be converted to JSON: ") ~= nil, what .. " via " .. door .. ": " .. err:sub(1, 200))
    check(err:find(wanted, 1, true) ~= nil, what .. " via " .. door .. " names the cause: " .. err:sub(1, 200))
  end
  eq(radium.pending(), 0, what .. ": no chain was started")
end

test("data nested 200,000 deep is a clear error, in and out of hooks", function()
  local e = radium.new()
  refused_everywhere(e, deep_map(), "excessive nesting", "a map nested 200,000 deep")
  refused_everywhere(e, deep_list(), "excessive nesting", "a list nested 200,000 deep")
  still_alive(e, "after deep data")
  -- A hook answering deep data, and a script printing 200,000 nested
  -- brackets, are that hook's error; the chain goes on.
  local deep = deep_map()
  e:register("deep-answer", "before_tool", function() return { action = "modify", data = deep } end, { priority = 300 })
  e:register_script("deep-script", "before_tool", {
    "sh", "-c", [[cat >/dev/null; printf '{"data":'; head -c 200000 /dev/zero | tr '\0' '['; head -c 200000 /dev/zero | tr '\0' ']'; printf '}']],
  }, { priority = 200 })
  e:register("after", "before_tool", tracer("after"), { priority = 100 })
  local out = e:execute("before_tool", {})
  local runs = by_name(out)
  eq(out.status, "completed", "the chain completed")
  eq(out.data.trace, { "after" }, "the hook after the deep answers ran on the original data")
  eq(runs["deep-answer"].status, "error", "deep answer")
  check(runs["deep-answer"].error:find("excessive nesting", 1, true) ~= nil, runs["deep-answer"].error)
  eq(runs["deep-script"].status, "error", "deep script output")
  check(runs["deep-script"].error:find("nested deeper than 127 levels", 1, true) ~= nil, runs["deep-script"].error:sub(1, 200))
  check(#runs["deep-script"].error < 10000, "the script's error does not repeat its output whole (" .. #runs["deep-script"].error .. " bytes)")
  still_alive(e, "after deep answers")
end)

test("cyclic tables are a clear error, in and out of hooks", function()
  local e = radium.new()
  local self_cycle = { name = "loop" }
  self_cycle.self = self_cycle
  local a, b = { name = "a" }, { name = "b" }
  a.b, b.list = b, { 1, 2, a }
  refused_everywhere(e, self_cycle, "excessive nesting", "a table holding itself")
  refused_everywhere(e, { wrapper = { a } }, "excessive nesting", "a cycle through a list")
  raises(function()
    e:request({ command = "hooks-execute", args = { hook_type = "custom_logging", data = {}, metadata = a } })
  end, "excessive nesting", "cyclic metadata")
  e:register("cyclic-answer", "after_model", function() return { action = "modify", data = a } end, { priority = 200 })
  e:register("after", "after_model", tracer("after"), { priority = 100 })
  local out = e:execute("after_model", { response = "x" })
  eq(by_name(out)["cyclic-answer"].status, "error", "a cyclic answer is that hook's error")
  check(by_name(out)["cyclic-answer"].error:find("excessive nesting", 1, true) ~= nil, by_name(out)["cyclic-answer"].error)
  eq(out.data, { response = "x", trace = { "after" } }, "the chain went on")
  still_alive(e, "after cycles")
end)

test("a 100 MB string round-trips through execute, request and execute_async", function()
  local e = radium.new()
  local big = "<start>" .. string.rep("0123456789abcdef", 100 * 1024 * 1024 / 16) .. "é<end>"
  local seen = {}
  e:register("measure", "custom_logging", function(ctx)
    seen[#seen + 1] = #ctx.data.text
    return { action = "modify", data = { text = ctx.data.text, length = #ctx.data.text } }
  end)
  local out = e:execute("custom_logging", { text = big })
  eq(out.status, "completed", "execute")
  eq(#out.data.text, #big, "execute: the string came back whole")
  check(out.data.text == big, "execute: the same bytes")
  eq(out.data.length, #big, "execute: the hook saw it whole")
  out = nil
  local r = e:request({ command = "hooks-execute", args = { hook_type = "custom_logging", data = { text = big } } })
  eq(r.ok, true, "request")
  check(r.data.data.text == big, "request: the same bytes")
  r = nil
  local async_out
  e:execute_async("custom_logging", { text = big }, function(o) async_out = o end)
  vim.wait(20000, function() return async_out ~= nil end, 10)
  check(async_out ~= nil and async_out.data.text == big, "execute_async: the same bytes")
  eq(seen, { #big, #big, #big }, "the hook saw the whole string each time")
  async_out = nil
  collectgarbage()
  still_alive(e, "after 100 MB strings")
end)

test("Lua hooks that raise are isolated, in execute and execute_async", function()
  local e = radium.new()
  e:register("raises", "error_logging", function() error("hook blew up") end, { priority = 500 })
  e:register("raises-table", "error_logging", function() error({ nested = { deep = true } }) end, { priority = 450 })
  e:register("raises-huge", "error_logging", function() error(string.rep("x", 1024 * 1024)) end, { priority = 400 })
  e:register("raises-weird", "error_logging", function()
    error(setmetatable({}, { __tostring = function() error("even tostring fails") end }))
  end, { priority = 350 })
  e:register_script("script", "error_logging", { "sh", "-c", "cat >/dev/null; sleep 0.1" }, { priority = 300 })
  e:register("raises-after-script", "error_logging", function() error("late blow-up") end, { priority = 200 })
  e:register("ok", "error_logging", tracer("ok"), { priority = 100 })
  local function verify(out, how)
    local runs = by_name(out)
    eq(out.status, "completed", how .. ": completed")
    eq(names(out), { "raises", "raises-table", "raises-huge", "raises-weird", "script", "raises-after-script", "ok" }, how .. ": every hook ran")
    eq(out.data.trace, { "ok" }, how .. ": the chain went on")
    for _, name in ipairs({ "raises", "raises-table", "raises-huge", "raises-weird", "raises-after-script" }) do
      eq(runs[name].status, "error", how .. ": " .. name)
    end
    check(runs["raises"].error:find("hook blew up", 1, true) ~= nil, runs["raises"].error)
    check(runs["raises-after-script"].error:find("late blow-up", 1, true) ~= nil, runs["raises-after-script"].error)
    check(runs["raises-huge"].error:find("xxxx", 1, true) ~= nil, how .. ": the huge message is kept")
  end
  verify(e:execute("error_logging", {}), "execute")
  local out
  e:execute_async("error_logging", {}, function(o) out = o end)
  vim.wait(5000, function() return out ~= nil end, 10)
  check(out ~= nil, "execute_async: the callback ran")
  if out then verify(out, "execute_async") end
  still_alive(e, "after raising hooks")
end)

-- Whether process `pid` is still running (a zombie has stopped running).
local function running(pid)
  local f = io.open("/proc/" .. pid .. "/stat")
  if not f then return false end
  local stat = f:read("*l") or ""
  f:close()
  return stat:match("^%d+ %b() (%a)") ~= "Z"
end

test("a script hook that never returns: its time limit ends it and the main loop never stops", function()
  local e = radium.new()
  local pidfile = vim.fn.tempname()
  e:register("first", "before_tool", tracer("first"), { priority = 300 })
  e:register_script("never", "before_tool", { "sh", "-c", "echo $$ > " .. pidfile .. "; exec sleep 30" }, { priority = 200, timeout_ms = 300 })
  e:register("last", "before_tool", tracer("last"), { priority = 100 })
  local ticks, deferred, out = 0, nil, nil
  local timer = vim.uv.new_timer()
  timer:start(10, 10, function() ticks = ticks + 1 end)
  local t0 = vim.uv.hrtime()
  e:execute_async("before_tool", {}, function(o) out = o end)
  local returned_ms = (vim.uv.hrtime() - t0) / 1e6
  vim.defer_fn(function() deferred = out == nil end, 50)
  vim.wait(10000, function() return out ~= nil end, 10)
  local took_ms = (vim.uv.hrtime() - t0) / 1e6
  local ticks_during = ticks
  -- Blocking, it would have waited for the hook's 300 ms time limit.
  check(returned_ms < 250, "execute_async returned at once (" .. returned_ms .. " ms)")
  check(out ~= nil, "the callback ran")
  eq(deferred, true, "a vim.defer_fn callback ran while the hook was in flight")
  h.ticked(ticks_during, took_ms, 10, "while the hook was in flight")
  check(took_ms >= 250 and took_ms < 5000, "ended by the 300 ms time limit (" .. took_ms .. " ms)")
  local runs = out and by_name(out) or {}
  eq(out and out.status, "completed", "the chain completed")
  eq(runs["never"] and runs["never"].status, "timed_out", "the hook timed out")
  check(runs["never"] and runs["never"].error:find("time limit", 1, true) ~= nil, "the error names the time limit")
  eq(out and out.data.trace, { "first", "last" }, "the chain went on after it")
  local pid = tonumber(vim.fn.readfile(pidfile)[1])
  vim.wait(10000, function() return not running(pid) end, 20)
  check(not running(pid), "the script (pid " .. tostring(pid) .. ") was stopped")

  -- A deadline on the whole chain ends it too.
  out = nil
  ticks = 0
  t0 = vim.uv.hrtime()
  local bare = radium.new()
  bare:register_script("never", "before_tool", { "sh", "-c", "echo $$ > " .. pidfile .. "; exec sleep 30" })
  bare:execute_async("before_tool", {}, function(o) out = o end, { timeout_ms = 200 })
  vim.wait(10000, function() return out ~= nil end, 10)
  took_ms = (vim.uv.hrtime() - t0) / 1e6
  timer:stop()
  timer:close()
  eq(out and out.status, "deadline_exceeded", "the chain's deadline")
  eq(out and out.hooks[1].status, "cancelled", "the hook in flight is cancelled")
  h.ticked(ticks, took_ms, 10, "during the deadline wait")
  pid = tonumber(vim.fn.readfile(pidfile)[1])
  vim.wait(10000, function() return not running(pid) end, 20)
  check(not running(pid), "the script of the cancelled chain was stopped")
  vim.fn.delete(pidfile)
  eq(radium.pending(), 0, "nothing left in flight")
  still_alive(e, "after hooks that never return")
end)

-- Engines have no close method: an engine ends when it is collected.
test("a dropped engine finishes its chains; misuse is a clear error", function()
  local out, ran
  do
    local e = radium.new()
    e:register_script("slow", "before_tool", { "sh", "-c", [[cat >/dev/null; sleep 0.3; echo '{"data":{"script":true}}']] }, { priority = 200 })
    e:register("later", "before_tool", function(ctx)
      ran = true
      return { data = { script = ctx.data.script, later = true } }
    end, { priority = 100 })
    e:execute_async("before_tool", {}, function(o) out = o end)
  end
  collectgarbage()
  collectgarbage()
  vim.wait(5000, function() return out ~= nil end, 10)
  eq(out and out.status, "completed", "the chain of a collected engine completed")
  eq(out and out.data, { script = true, later = true }, "its Lua hook ran after the engine was dropped")
  eq(ran, true, "the Lua hook ran")
  eq(radium.pending(), 0, "nothing left in flight")
  local e = radium.new()
  raises(function() e.execute("before_tool", {}) end, "the hook type must be a string, got table", "a dot instead of a colon")
  raises(function() e._handle.execute({}, "before_tool", {}) end, "expected userdata of type 'LuaEngine'", "a wrong receiver")
  still_alive(e, "after misuse")
end)

test("Neovim quits cleanly while a chain waits on a script that never returns", function()
  local script = vim.fn.tempname() .. ".lua"
  local pidfile = vim.fn.tempname()
  vim.fn.writefile({
    "vim.opt.rtp:prepend(" .. vim.inspect(h.root) .. ")",
    "local e = require('radium').new()",
    "e:register_script('never', 'before_tool', { 'sh', '-c', 'echo $$ > " .. pidfile .. "; exec sleep 30' })",
    "e:register('later', 'before_tool', function() end, { priority = 1 })",
    "e:execute_async('before_tool', {}, function() end)",
    "vim.defer_fn(function() io.stdout:write('quitting\\n'); vim.cmd('qa!') end, 200)",
  }, script)
  local t0 = vim.uv.hrtime()
  local r = vim.system({ vim.v.progpath, "--headless", "-u", "NONE", "-c", "luafile " .. script }, { text = true }):wait(20000)
  local took_ms = (vim.uv.hrtime() - t0) / 1e6
  vim.fn.delete(script)
  -- Quitting ends the script too (the library kills its live process
  -- groups at exit); a killed process may linger as a zombie of init.
  local pid = tonumber((vim.fn.filereadable(pidfile) == 1 and vim.fn.readfile(pidfile) or {})[1])
  check(pid ~= nil, "the script had started")
  if pid then
    local f = io.open("/proc/" .. pid .. "/stat")
    local state = f and f:read("*a"):match("%) (%a)") or nil
    if f then f:close() end
    check(state == nil or state == "Z", "the script ended with Neovim (state " .. tostring(state) .. ")")
    if state ~= nil and state ~= "Z" then vim.uv.kill(pid, "sigkill") end
  end
  vim.fn.delete(pidfile)
  eq(r.signal, 0, "no signal (stderr: " .. tostring(r.stderr) .. ")")
  eq(r.code, 0, "exit status 0")
  check(tostring(r.stdout):find("quitting", 1, true) ~= nil, "the child got to quit: " .. tostring(r.stdout))
  check(took_ms < 10000, "it quit promptly (" .. took_ms .. " ms)")
end)

test("a hook that unregisters itself mid-chain: the chain completes, the next run lacks it", function()
  local e = radium.new()
  local calls = {}
  e:register("first", "before_tool", tracer("first"), { priority = 300 })
  e:register("once", "before_tool", function(ctx)
    calls[#calls + 1] = "once"
    e:unregister("once")
    e:unregister("victim") -- a later hook of this run: it still runs this time
    return tracer("once")(ctx)
  end, { priority = 200 })
  e:register("victim", "before_tool", tracer("victim"), { priority = 150 })
  e:register("last", "before_tool", tracer("last"), { priority = 100 })
  local out = e:execute("before_tool", {})
  eq(out.status, "completed", "first run completed")
  eq(out.data.trace, { "first", "once", "victim", "last" }, "first run: the whole snapshot ran")
  out = e:execute("before_tool", {})
  eq(out.data.trace, { "first", "last" }, "second run: both are gone")
  eq(names(out), { "first", "last" }, "second run lists neither")
  eq(calls, { "once" }, "the hook ran once")
  raises(function() e:unregister("once") end, "no hook named `once` is registered", "it is really gone")

  -- The same in an execute_async chain, after a script hook, unregistering
  -- itself and the script.
  local a = radium.new()
  a:register_script("script", "after_tool", { "sh", "-c", [[cat >/dev/null; sleep 0.1; echo '{"data":{"trace":["script"]}}']] }, { priority = 300 })
  a:register("once", "after_tool", function(ctx)
    a:unregister("once")
    a:unregister("script")
    return tracer("once")(ctx)
  end, { priority = 200 })
  a:register("last", "after_tool", tracer("last"), { priority = 100 })
  local results = {}
  for _ = 1, 2 do
    local done
    a:execute_async("after_tool", {}, function(o) done = o end)
    vim.wait(5000, function() return done ~= nil end, 10)
    results[#results + 1] = done and done.data.trace
  end
  eq(results, { { "script", "once", "last" }, { "last" } }, "async: first run whole, second without them")
  eq(radium.pending(), 0, "nothing left in flight")
end)

-- Resident memory in MB, from /proc/self/statm.
local function rss_mb()
  local f = assert(io.open("/proc/self/statm"))
  local resident = tonumber(f:read("*l"):match("^%d+%s+(%d+)"))
  f:close()
  return resident * 4096 / 1e6
end

-- One engine's life, used and dropped. The hooks do not capture the engine
-- except "once", which unregisters itself when it runs.
local function one_engine(i, async)
  local e = radium.new()
  local payload = string.rep("p", 4096) .. i
  e:register("keep", "before_tool", function(ctx) return { data = { n = #payload, i = ctx.data.i } } end, { priority = 200 })
  e:register("once", "before_tool", function() e:unregister("once") end, { priority = 100 })
  e:register_script("script", "after_tool", { "true" })
  local out = e:execute("before_tool", { i = i })
  assert(out.data.i == i, "engine " .. i .. " answered")
  e:request({ command = "hooks-list" })
  if async then
    local done
    e:execute_async("before_tool", { i = i }, function(o) done = o end)
    vim.wait(5000, function() return done ~= nil end, 1)
    assert(done and done.data.i == i, "engine " .. i .. " answered asynchronously")
  end
  return e
end

test("2,000 engines created and dropped: memory does not grow", function()
  local N = 2000
  local alive = setmetatable({}, { __mode = "k" })
  local samples = {}
  collectgarbage()
  collectgarbage()
  for i = 1, N do
    alive[one_engine(i, i % 8 == 0)] = true
    if i % 100 == 0 then
      collectgarbage()
      collectgarbage()
      samples[#samples + 1] = { lua_kb = collectgarbage("count"), rss = rss_mb() }
    end
  end
  -- LuaJIT's compiled traces may keep a closure's upvalues as constants
  -- (an engine a hot hook captured): flush them, so what is left is what
  -- radium holds.
  if jit then jit.flush() end
  collectgarbage()
  collectgarbage()
  local left = 0
  for _ in pairs(alive) do left = left + 1 end
  eq(left, 0, "every dropped engine was collected")
  local quarter = #samples / 4
  local function mean(from, to, key)
    local sum = 0
    for k = from, to do sum = sum + samples[k][key] end
    return sum / (to - from + 1)
  end
  local lua_growth = mean(#samples - quarter + 1, #samples, "lua_kb") - mean(1, quarter, "lua_kb")
  local rss_growth = mean(#samples - quarter + 1, #samples, "rss") - mean(1, quarter, "rss")
  check(lua_growth < 1024, string.format("the Lua heap grew %.0f KB from the first to the last quarter", lua_growth))
  check(rss_growth < 50, string.format("RSS grew %.1f MB from the first to the last quarter", rss_growth))
  eq(radium.pending(), 0, "nothing left in flight")
end)
