-- The Neovim door's tests, run in real headless Neovim:
--   nvim --headless -u NONE -l bindings/lua/tests/run.lua
-- Prints "N passed, M failed" and exits 1 on any failure.

local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)

local passed, failed = 0, 0
local current = "?"

local function check(cond, what)
  if cond then
    passed = passed + 1
  else
    failed = failed + 1
    io.stderr:write(string.format("FAIL [%s] %s\n", current, what))
  end
end

local function eq(actual, expected, what)
  local same = vim.deep_equal(actual, expected)
  check(same, string.format("%s: expected %s, got %s", what, vim.inspect(expected), vim.inspect(actual)))
end

local function raises(fn, pattern, what)
  local ok, err = pcall(fn)
  check(not ok and tostring(err):find(pattern, 1, true) ~= nil,
    string.format("%s: expected an error containing %q, got %s", what, pattern, ok and "no error" or tostring(err)))
end

local function test(name, fn)
  current = name
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    failed = failed + 1
    io.stderr:write(string.format("FAIL [%s] raised: %s\n", name, err))
  end
end

local radium = require("radium")

local function names(outcome)
  local out = {}
  for _, h in ipairs(outcome.hooks) do
    out[#out + 1] = h.name
  end
  return out
end

local builtin = { ["editor-context"] = true, ["code-apply"] = true }

-- The hooks a test registered (every engine also has the two built-in ones).
local function user_hooks(list)
  local out = {}
  for _, h in ipairs(list) do
    if not builtin[h.name] then
      out[#out + 1] = h
    end
  end
  return out
end

local function tracer(name)
  return function(ctx)
    local data = ctx.data
    data.trace = data.trace or {}
    table.insert(data.trace, name)
    return { action = "modify", data = data }
  end
end

test("loading and version", function()
  eq(radium.version(), "0.1.0", "version")
  eq(radium.abi_version(), 1, "abi")
  eq(#radium.hook_types, 13, "hook types")
  eq(type(radium.native), "table", "native module")
  check(package.loaded["radium_native"] ~= nil, "native module loaded through require")
end)

test("the version check refuses an old Neovim", function()
  local real = vim.version
  vim.version = function()
    return { major = 0, minor = 9, patch = 5 }
  end
  package.loaded["radium"] = nil
  local ok, err = pcall(require, "radium")
  vim.version = real
  package.loaded["radium"] = radium
  check(not ok, "require fails on 0.9")
  check(tostring(err):find("Neovim 0.10 or later is required; this is 0.9.5", 1, true) ~= nil, tostring(err))
end)

test("engine options", function()
  local e = radium.new()
  eq(e:request({ command = "ping" }), { ok = true, data = "pong" }, "ping")
  radium.new({})
  raises(function() radium.new(3) end, "the engine options must be a table, got number", "non-table")
  raises(function() radium.new({ workspaces = "/x" }) end, "unknown field `workspaces`; known fields: workspace", "unknown field")
  raises(function() radium.new({ workspace = 3 }) end, "`workspace` must be a string", "bad workspace")
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. "/.radium", "p")
  vim.fn.writefile({ "[[hooks]]", "name = 'x'", "type = 'before_lunch'" }, dir .. "/.radium/hooks.toml")
  raises(function() radium.new({ workspace = dir }) end, "hooks.toml:3:", "bad hooks.toml names the line")
  vim.fn.writefile({ "[[hooks]]", "name = 'late'", "type = 'before_tool'", "priority = 999" }, dir .. "/.radium/hooks.toml")
  local configured = radium.new({ workspace = dir })
  configured:register("late", "before_tool", function() end)
  eq(user_hooks(configured:list())[1].priority, 999, "hooks.toml applies to a hook registered later")
  vim.fn.delete(dir, "rf")
end)

test("priority, ties, chained data", function()
  local e = radium.new()
  e:register("low", "before_tool", tracer("low"), { priority = 10 })
  e:register("tie-a", "before_tool", tracer("tie-a"))
  e:register("high", "before_tool", tracer("high"), { priority = 200 })
  e:register("tie-b", "before_tool", tracer("tie-b"))
  local out = e:execute("before_tool", { tool_name = "view" })
  eq(out.status, "completed", "status")
  eq(out.data.trace, { "high", "tie-a", "tie-b", "low" }, "order and chained data")
  eq(names(out), { "high", "tie-a", "tie-b", "low" }, "outcome lists hooks in order")
  check(type(out.hooks[1].duration_ns) == "number", "durations")
  local listed = {}
  for _, h in ipairs(user_hooks(e:list())) do
    listed[#listed + 1] = h.name .. ":" .. h.priority
  end
  eq(listed, { "high:200", "tie-a:100", "tie-b:100", "low:10" }, "list")
end)

test("ctx is a plain table: hook_type, data, metadata; each hook gets its own", function()
  local e = radium.new()
  local seen = {}
  e:register("reader", "before_model", function(ctx)
    local keys = {}
    for k in pairs(ctx) do keys[#keys + 1] = k end
    table.sort(keys)
    seen.keys_before = keys
    ctx.data.n = 99 -- changing one's ctx in place does not reach the next hook
    seen.hook_type = ctx.hook_type
    seen.n = ctx.data.n
    seen.mt = getmetatable(ctx)
    seen.meta = ctx.metadata.who
    local after = {}
    for k in pairs(ctx) do after[#after + 1] = k end
    table.sort(after)
    seen.keys_after = after
  end, { priority = 20 })
  e:register("writer", "before_model", function(ctx)
    seen.writer_n = ctx.data.n
    ctx.data = { replaced = true }
    seen.meta2 = ctx.metadata.who
    seen.replaced = ctx.data.replaced
    return { action = "modify", data = { n = ctx.data.replaced and 2 or 0 } }
  end, { priority = 10 })
  local out = e:request({ command = "hooks-execute", args = { hook_type = "before_model", data = { n = 1 }, metadata = { who = "test" } } })
  eq(out.ok, true, "executed")
  eq(seen.keys_before, { "data", "hook_type", "metadata" }, "pairs(ctx) lists every field")
  eq(seen.mt, nil, "no metatable")
  eq(seen.hook_type, "before_model", "hook_type")
  eq(seen.n, 99, "data")
  eq(seen.meta, "test", "metadata")
  eq(seen.keys_after, { "data", "hook_type", "metadata" }, "the same fields after reading")
  eq(seen.writer_n, 1, "the next hook gets the chain's data, not the first hook's in-place change")
  eq(seen.meta2, "test", "metadata read after data was assigned")
  eq(seen.replaced, true, "the assigned data is kept")
  eq(out.data.data, { n = 2 }, "the writer's result")
end)

test("stop, errors and bad answers are isolated", function()
  local e = radium.new()
  e:register("raises", "after_model", function() error("lua went wrong") end, { priority = 500 })
  e:register("raises-table", "after_model", function() error({ code = 7 }) end, { priority = 450 })
  e:register("returns-string", "after_model", function() return "yes" end, { priority = 400 })
  e:register("bad-action", "after_model", function() return { action = "explode" } end, { priority = 300 })
  e:register("reports", "after_model", function() return { action = "error", message = "nope" } end, { priority = 250 })
  e:register("unencodable", "after_model", function() return { action = "modify", data = { f = print } } end, { priority = 220 })
  e:register("ok", "after_model", tracer("ok"), { priority = 200 })
  e:register("stopper", "after_model", function() return { action = "stop", reason = "enough" } end, { priority = 100 })
  e:register("never", "after_model", tracer("never"), { priority = 50 })
  local out = e:execute("after_model", { response = "x" })
  eq(out.status, "stopped", "stopped")
  eq(out.stopped_by, { hook = "stopper", reason = "enough" }, "stopped_by")
  eq(out.data.trace, { "ok" }, "chain went on after the failures")
  local by = {}
  for _, h in ipairs(out.hooks) do
    by[h.name] = h
  end
  eq(by["raises"].status, "error", "lua error status")
  check(by["raises"].error:find("lua went wrong", 1, true) ~= nil, by["raises"].error)
  eq(by["raises-table"].status, "error", "error with a table value")
  eq(by["returns-string"].status, "error", "non-table answer")
  check(by["returns-string"].error:find("returned a string; expected nil or a result table", 1, true) ~= nil, by["returns-string"].error)
  check(by["bad-action"].error:find("unknown action `explode`", 1, true) ~= nil, by["bad-action"].error)
  eq(by["reports"].error, "nope", "reported error")
  check(by["unencodable"].error:find("Cannot serialise function", 1, true) ~= nil, by["unencodable"].error)
  eq(by["never"], nil, "hooks after a stop do not run")
end)

test("enable, disable, unregister, duplicates, unknown names", function()
  local e = radium.new()
  e:register("a", "before_tool", tracer("a"))
  e:register("b", "before_tool", tracer("b"))
  e:disable("a")
  eq(e:execute("before_tool", {}).data.trace, { "b" }, "disabled")
  eq(user_hooks(e:list())[1].enabled, false, "list shows disabled")
  e:enable("a")
  eq(e:execute("before_tool", {}).data.trace, { "a", "b" }, "enabled")
  e:unregister("b")
  eq(e:execute("before_tool", {}).data.trace, { "a" }, "unregistered")
  raises(function() e:register("a", "after_tool", tracer("x")) end, "a hook named `a` is already registered", "duplicate")
  raises(function() e:unregister("ghost") end, "no hook named `ghost` is registered", "unknown unregister")
  raises(function() e:enable("ghost") end, "no hook named `ghost`", "unknown enable")
  raises(function() e:disable("ghost") end, "no hook named `ghost`", "unknown disable")
end)

test("bad arguments are clear errors", function()
  local e = radium.new()
  raises(function() e:register("x", "before_lunch", tracer("x")) end, "unknown hook type `before_lunch`; valid types are: before_model", "unknown type")
  raises(function() e:register(3, "before_tool", tracer("x")) end, "the hook name must be a string, got number", "name type")
  raises(function() e:register("x", "before_tool", "not a function") end, "the hook must be a function, got string", "fn type")
  raises(function() e:register("x", "before_tool", tracer("x"), { prio = 1 }) end, "unknown option `prio`", "unknown option")
  raises(function() e:register("x", "before_tool", tracer("x"), { priority = "high" }) end, "option `priority` has the wrong type", "option type")
  raises(function() e:register("x", "before_tool", tracer("x"), { priority = 1.5 }) end, "`priority` must be a whole number", "fractional priority")
  raises(function() e:register("x", "before_model", tracer("x"), { matcher = "view" }) end, "matchers apply only to", "matcher on model hook")
  raises(function() e:register("x", "before_tool", tracer("x"), { matcher = "a||b" }) end, "invalid tool matcher", "bad matcher")
  raises(function() e:register("", "before_tool", tracer("x")) end, "a hook name cannot be empty", "empty name")
  raises(function() e:execute("nope", {}) end, "unknown hook type `nope`", "execute type")
  raises(function() e:execute("before_tool", { f = print }) end, "the data cannot be converted to JSON", "unencodable data")
  raises(function() e:request("ping") end, "the request must be a table, got string", "request type")
  raises(function() e:execute_async("before_tool", {}, nil) end, "the callback must be a function", "no callback")
  raises(function() e:register_script("s", "before_tool", {}) end, "the command must not be empty", "empty command")
  raises(function() e:register_script("s", "before_tool", { 1, 2 }) end, "list of strings", "command of numbers")
end)

test("matchers", function()
  local e = radium.new()
  e:register("writes", "before_tool", tracer("writes"), { matcher = "create|str-replace", priority = 200 })
  e:register("all", "before_tool", tracer("all"))
  eq(e:execute("before_tool", { tool_name = "create" }).data.trace, { "writes", "all" }, "matching")
  eq(e:execute("before_tool", { tool_name = "view" }).data.trace, { "all" }, "not matching")
  eq(user_hooks(e:list())[1].matcher, "create|str-replace", "listed")
end)

test("tables and JSON convert faithfully", function()
  local e = radium.new()
  local seen
  e:register("echo", "custom_logging", function(ctx)
    seen = ctx
    return { action = "modify", data = ctx.data }
  end)
  local data = {
    list = { 1, 2, 3 },
    map = { a = 1, b = { c = "d" } },
    empty_list = {},
    empty_map = vim.empty_dict(),
    null = vim.NIL,
    int = 42,
    float = 1.5,
    whole_float = 3.0,
    big = 2 ^ 53,
    negative = -7,
    text = "héllo \"quoted\" \n newline \0 nul",
    nested = { { x = { { y = { true, false } } } } },
    sparse = { [1] = "a", [3] = "c" },
  }
  local out = e:execute("custom_logging", data)
  local d = out.data
  eq(d.list, { 1, 2, 3 }, "arrays stay arrays")
  eq(d.map, { a = 1, b = { c = "d" } }, "maps stay maps")
  eq(d.empty_list, {}, "empty table is an empty array")
  eq(getmetatable(d.empty_map), getmetatable(vim.empty_dict()), "vim.empty_dict() stays an empty map")
  check(d.null == vim.NIL, "null is vim.NIL")
  eq(d.int, 42, "integers")
  eq(d.float, 1.5, "floats")
  eq(d.whole_float, 3, "whole floats become integers")
  eq(d.big, 2 ^ 53, "2^53")
  eq(d.negative, -7, "negatives")
  eq(d.text, data.text, "strings with quotes, newlines and NUL")
  eq(d.nested, data.nested, "nested")
  eq(d.sparse, { "a", vim.NIL, "c" }, "sparse arrays fill holes with vim.NIL")
  eq(seen.hook_type, "custom_logging", "the hook sees the hook type")
  check(seen.metadata == vim.NIL, "metadata is null")
  local plain = e:execute("custom_logging", nil)
  check(plain.data == vim.NIL, "nil data is null")
  eq(e:execute("custom_logging", "just a string").data, "just a string", "scalar data")
  -- the same data through the JSON request door
  local r = e:request({ command = "hooks-execute", args = { hook_type = "custom_logging", data = { k = { 1, 2 } } } })
  eq(r.ok, true, "request ok")
  eq(r.data.data, { k = { 1, 2 } }, "request data")
end)

test("the converter agrees with vim.json, and refuses what it cannot convert", function()
  local e = radium.new()
  local samples = {
    { 1, "two", { three = 3 }, vim.NIL, true },
    { mixed = { [1] = "a", x = "b" } },
    { [1] = "a", [10] = "j" },
    { vim.empty_dict(), {}, { {} } },
    { ["1"] = "string key", [2] = "number key" },
    { unicode = "żółw 🐢", control = "a\tb\r\n\1" },
    { neg = -0.5, zero = 0, big = 2 ^ 52 + 1 },
  }
  for i, sample in ipairs(samples) do
    local native = e:execute("custom_logging", sample).data
    local via_json = vim.json.decode(vim.json.encode(sample))
    check(vim.deep_equal(native, via_json), "sample " .. i .. ": " .. vim.inspect(native) .. " vs " .. vim.inspect(via_json))
  end
  eq(e:execute("custom_logging", { [1.5] = "x" }).data, { ["1.5"] = "x" }, "number keys of an object are their text")
  local cyclic = {}
  cyclic.self = cyclic
  local bad = {
    { { s = "\255\254" }, "a string is not valid UTF-8" },
    { { n = 0 / 0 }, "must not be NaN or Infinity" },
    { { n = 1 / 0 }, "must not be NaN or Infinity" },
    { { [1] = 1, [20] = 2 }, "excessively sparse array" },
    { { [true] = 1 }, "table key must be a number or string" },
    { cyclic, "excessive nesting" },
    { { co = coroutine.create(print) }, "Cannot serialise thread" },
  }
  for _, case in ipairs(bad) do
    raises(function() e:execute("custom_logging", case[1]) end, "the data cannot be converted to JSON: ", case[2])
    raises(function() e:execute("custom_logging", case[1]) end, case[2], case[2])
    local request = function() e:request({ command = "hooks-execute", args = { hook_type = "custom_logging", data = case[1] } }) end
    raises(request, "the request cannot be converted to JSON: ", "request: " .. case[2])
    raises(request, case[2], "request: " .. case[2])
  end
end)

test("the JSON request door", function()
  local e = radium.new()
  e:register("a", "before_tool", tracer("a"))
  local v = e:request({ command = "version" })
  eq(v.data, { version = "0.1.0", abi_version = 1 }, "version")
  eq(user_hooks(e:request({ command = "hooks-list" }).data)[1].name, "a", "hooks-list")
  eq(e:request({ command = "hooks-disable", args = { name = "a" } }).data, { name = "a", enabled = false }, "disable")
  eq(user_hooks(e:list())[1].enabled, false, "disabled through the door")
  local bad = e:request({ command = "dance" })
  eq(bad.ok, false, "unknown command is a response")
  eq(bad.code, "unknown_command", "code")
  check(bad.error:find("unknown command `dance`", 1, true) ~= nil, bad.error)
  eq(e:request({ command = "hooks-enable", args = { name = "ghost" } }).code, "unknown_hook", "unknown hook code")
  eq(e:request({ args = {} }).code, "invalid_request", "missing command")
end)

test("Lua hooks mixed with native (script) hooks", function()
  local e = radium.new()
  e:register("lua-first", "before_tool", tracer("lua-first"), { priority = 300 })
  e:register_script("script", "before_tool", {
    "sh", "-c", [[cat > /dev/null; echo '{"action":"modify","data":{"trace":["lua-first","script"]}}']],
  }, { priority = 200 })
  e:register("lua-last", "before_tool", tracer("lua-last"), { priority = 100 })
  e:register_script("guard", "after_tool", { "sh", "-c", "echo 'frozen' >&2; exit 2" })
  local out = e:execute("before_tool", {})
  eq(out.data.trace, { "lua-first", "script", "lua-last" }, "blocking execute runs all three in order")
  local stop = e:execute("after_tool", {})
  eq(stop.stopped_by, { hook = "guard", reason = "frozen" }, "script stop")
end)

test("execute_async keeps the main loop running while a slow hook runs", function()
  local e = radium.new()
  local main_thread_ok = true
  e:register("lua-before", "before_tool", function(ctx)
    -- Runs on the main loop, outside a fast event: the API is usable.
    main_thread_ok = main_thread_ok and not vim.in_fast_event() and vim.api.nvim_get_current_buf() ~= nil
    return tracer("lua-before")(ctx)
  end, { priority = 300 })
  e:register_script("slow", "before_tool", {
    "sh", "-c", [[sleep 0.4; echo '{"data":{"trace":["lua-before","slow"]}}']],
  }, { priority = 200 })
  e:register("lua-after", "before_tool", function(ctx)
    main_thread_ok = main_thread_ok and not vim.in_fast_event()
    return tracer("lua-after")(ctx)
  end, { priority = 100 })

  local ticks, outcome = 0, nil
  local timer = vim.uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function() ticks = ticks + 1 end))
  local t0 = vim.uv.hrtime()
  e:execute_async("before_tool", { tool_name = "x" }, function(o) outcome = o end)
  local returned_ms = (vim.uv.hrtime() - t0) / 1e6
  check(returned_ms < 50, "execute_async returned at once (" .. returned_ms .. " ms)")
  eq(outcome, nil, "the callback has not run yet")
  eq(radium.pending(), 1, "one chain in flight")
  vim.wait(5000, function() return outcome ~= nil end, 10)
  timer:stop()
  timer:close()
  check(outcome ~= nil, "the callback ran")
  eq(outcome and outcome.data.trace, { "lua-before", "slow", "lua-after" }, "chained through the slow hook")
  check(ticks >= 10, "the timer fired " .. ticks .. " times while the chain was in flight")
  check(main_thread_ok, "Lua hooks ran on the main loop")
  eq(radium.pending(), 0, "nothing left in flight")
end)

test("execute_async: deadlines, several chains, callback errors", function()
  local e = radium.new()
  e:register_script("slow", "after_tool", { "sh", "-c", "sleep 5" })
  local out
  local t0 = vim.uv.hrtime()
  e:execute_async("after_tool", {}, function(o) out = o end, { timeout_ms = 150 })
  vim.wait(3000, function() return out ~= nil end, 10)
  eq(out and out.status, "deadline_exceeded", "deadline")
  check((vim.uv.hrtime() - t0) / 1e6 < 2000, "ended promptly")

  local results = {}
  for i = 1, 5 do
    e:execute_async("before_model", { i = i }, function(o) results[#results + 1] = o.data.i end)
  end
  vim.wait(2000, function() return #results == 5 end, 10)
  table.sort(results)
  eq(results, { 1, 2, 3, 4, 5 }, "five chains")

  -- An error in a callback is reported by Neovim's scheduler, and the other
  -- callbacks still run.
  local errors = {}
  local notify = vim.notify
  local other
  e:execute_async("before_model", {}, function() error("callback broke") end)
  e:execute_async("before_model", {}, function() other = true end)
  local ok, err = pcall(vim.wait, 1000, function() return other end, 10)
  vim.notify = notify
  check(other == true, "the other callback ran")
  check(ok or tostring(err):find("callback broke", 1, true), "callback error surfaced: " .. tostring(err))
  _ = errors
end)

local repo = vim.fn.fnamemodify(root, ":h:h")

test("the shared request vectors", function()
  local e = radium.new()
  local lines = vim.fn.readfile(repo .. "/tests/vectors/requests.txt")
  check(#lines >= 60, "vectors found")
  for i = 1, #lines, 2 do
    local got = e:request(vim.json.decode(lines[i]))
    local want = vim.json.decode(lines[i + 1])
    check(vim.deep_equal(got, want), "vector " .. lines[i] .. "\n got " .. vim.inspect(got))
  end
end)

local function workspace_with_agent()
  local ws = vim.fn.tempname()
  vim.fn.mkdir(ws .. "/.radium", "p")
  vim.fn.mkdir(ws .. "/src", "p")
  vim.fn.writefile({
    "[[agents]]",
    'id = "example"',
    string.format('command = ["%s/examples/agents/example-agent.sh"]', repo),
    "",
    "[[agents]]",
    'id = "slow"',
    'command = ["/bin/sh", "-c", "sleep 0.4; cat > /dev/null; printf \'```lua\\nreturn 42\\n```\\n\'"]',
  }, ws .. "/.radium/agents.toml")
  return ws
end

test("step through the Lua door, without blocking", function()
  local ws = workspace_with_agent()
  local e = radium.new({ workspace = ws, radium_home = ws })
  eq(e:request({ command = "trust", args = { path = ws } }).data.trusted, true, "trust the workspace")
  local response
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function() ticks = ticks + 1 end))
  e:step("slow", { file_path = ws .. "/src/a.lua", selection = "return 1", workspace = ws }, "improve", function(r) response = r end)
  eq(response, nil, "returned before the agent answered")
  vim.wait(5000, function() return response ~= nil end, 10)
  timer:stop()
  timer:close()
  eq(response and response.ok, true, "step ok: " .. vim.inspect(response))
  eq(response and response.data.code_blocks[1].content, "return 42\n", "the agent's block")
  check(ticks >= 10, "the main loop ran " .. ticks .. " timer ticks during the step")
  local bad
  e:step("example", { file_path = "relative.lua" }, "", function(r) bad = r end)
  vim.wait(2000, function() return bad ~= nil end, 10)
  eq(bad and bad.code, "refused", "invalid context refused")
  check(bad and bad.error:find("file_path: must be an absolute path", 1, true), bad and bad.error)
  local unknown
  e:request_async({ command = "step", args = { agent = "ghost" } }, function(r) unknown = r end)
  vim.wait(2000, function() return unknown ~= nil end, 10)
  eq(unknown and unknown.code, "unknown_agent", "unknown agent")
  vim.fn.delete(ws, "rf")
end)

test("send a selection, list, preview and apply a block, undo it", function()
  local ws = workspace_with_agent()
  vim.cmd("runtime plugin/radium.lua")
  check(vim.fn.exists(":RadiumSend") == 2, ":RadiumSend exists")
  check(vim.fn.exists(":RadiumApply") == 2, ":RadiumApply exists")
  local editor = require("radium.editor")
  editor.setup({ agent = "example", workspace = ws, radium_home = ws, notify = false })
  eq(editor.engine():request({ command = "trust", args = { path = ws } }).ok, true, "trust")
  vim.cmd("edit " .. ws .. "/src/main.rs")
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "use std::io;", "", "fn main() {", "    println!(\"hi\");", "}", "", "fn other() {}" })
  vim.bo.modified = true -- an unsaved buffer: the text comes from the buffer, not the disk
  local done
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(5, 5, vim.schedule_wrap(function() ticks = ticks + 1 end))
  editor.send(3, 5, "review", function(r) done = r end)
  vim.wait(5000, function() return done ~= nil end, 5)
  timer:stop()
  timer:close()
  eq(done and done.ok, true, "answer: " .. vim.inspect(done))
  eq(#editor.blocks(), 1, "one block")
  eq(editor.blocks()[1].file_path, "src/main.rs", "annotated path")
  check(editor.list_lines()[1]:find("1. [rust] src/main.rs", 1, true) ~= nil, editor.list_lines()[1])
  local preview = editor.preview(1)
  check(preview.diff:find("+// reviewed by the example agent", 1, true) ~= nil, preview.diff)
  check(preview.diff:find("--- a/buffer", 1, true) ~= nil, preview.diff)
  local pbuf = editor.show_preview(1)
  eq(vim.bo[pbuf].filetype, "diff", "preview buffer")
  vim.cmd("close")
  local before = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd("RadiumApply 1")
  eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), {
    "use std::io;", "", "// reviewed by the example agent", "fn main() {", "    println!(\"hi\");", "}", "", "fn other() {}",
  }, "block applied to the selected lines")
  vim.cmd("silent undo")
  eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), before, "u restores the text")
  raises(function() editor.apply(5) end, "no code block 5 (the answer has 1)", "bad block number")
  vim.cmd("bwipeout!")
  vim.fn.delete(ws, "rf")
end)

test(":RadiumCancel stops the agent that is answering", function()
  local ws = vim.fn.tempname()
  vim.fn.mkdir(ws, "p")
  local pidfile = ws .. "/pid"
  vim.fn.writefile({
    "[[agents]]",
    'id = "sleepy"',
    'command = ["/bin/sh", "-c", "echo $$ > ' .. pidfile .. '; exec sleep 60"]',
    'timeout = "90s"',
  }, ws .. "/agents.toml")
  vim.cmd("runtime plugin/radium.lua")
  local editor = require("radium.editor")
  editor.setup({ agent = "sleepy", workspace = ws, radium_home = ws, notify = false })
  vim.cmd("enew")
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "x = 1" })
  vim.api.nvim_buf_set_name(0, ws .. "/a.py")
  eq(editor.cancel(), false, "nothing to cancel yet")
  local done
  editor.send(1, 1, "", function(r) done = r end)
  check(editor.running ~= nil, "a step is running")
  vim.wait(5000, function() return vim.fn.filereadable(pidfile) == 1 and #vim.fn.readfile(pidfile) > 0 end, 10)
  local pid = tonumber(vim.fn.readfile(pidfile)[1])
  check(pid ~= nil, "the agent wrote its pid")
  vim.cmd("RadiumCancel")
  vim.wait(5000, function() return done ~= nil end, 10)
  eq(done and done.code, "cancelled", "the step answers cancelled: " .. vim.inspect(done))
  eq(editor.running, nil, "nothing runs any more")
  local gone = vim.wait(5000, function()
    local stat = io.open("/proc/" .. pid .. "/stat")
    if not stat then return true end
    local text = stat:read("*a") -- nil when the process went away meanwhile
    stat:close()
    return text == nil or text == "" or text:find(") Z ", 1, true) ~= nil
  end, 10)
  check(gone, "the agent process " .. tostring(pid) .. " is gone")
  editor.setup({ agent = "example" })
  vim.cmd("bwipeout!")
  vim.fn.delete(ws, "rf")
end)

test("edit tools and dog tags through the Lua door", function()
  local ws = vim.fn.tempname()
  vim.fn.mkdir(ws, "p")
  vim.fn.writefile({ 'const x = "A";' }, ws .. "/file.ts")
  local e = radium.new({ workspace = ws, radium_home = ws .. "/.home" })
  local r1 = e:request({ command = "str-replace", args = { path = "file.ts", old = "A", new = "B" } })
  eq(r1.ok, true, "first write: " .. vim.inspect(r1))
  local r2 = e:request({ command = "str-replace", args = { path = "file.ts", old = "B", new = "C" }, tag = r1.tag })
  check(r2.tag ~= r1.tag, "a write advances the tag")
  local v = e:request({ command = "view", args = { path = "file.ts" }, tag = r1.tag })
  eq(v.warnings, { "conversation rewind detected. Undoing 1 operation(s).", "  undone: str-replace (file.ts) [seq:2]" }, "rewind warnings")
  eq(v.tag, r1.tag, "the rewound tag")
  eq(vim.fn.readfile(ws .. "/file.ts"), { 'const x = "B";' }, "the file is back")
  local out = e:request({ command = "view", args = { path = "../outside" }, tag = v.tag })
  eq(out.code, "outside_project", "confined")
  vim.fn.delete(ws, "rf")
end)

test(":checkhealth radium", function()
  vim.cmd("checkhealth radium")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(text:find("native module loaded: radium 0.1.0", 1, true) ~= nil, "module line: " .. text)
  check(text:find("ABI version 1", 1, true) ~= nil, "abi line")
  check(text:find("an engine answers ping", 1, true) ~= nil, "ping line")
  check(text:find("ERROR", 1, true) == nil, "no errors: " .. text)
end)

print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed > 0 and 1 or 0)
