-- The engine and its hooks from Lua: loading the module and the Neovim
-- version check, engine options and the workspace hooks.toml, priority and
-- chained data, the ctx a hook gets, isolated failures and stops, enable,
-- disable and unregister, argument errors, matchers.

local h = ...
local check, eq, raises, test = h.check, h.eq, h.raises, h.test
local radium = h.radium
local names = h.names
local user_hooks = h.user_hooks
local tracer = h.tracer

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
  -- An untrusted workspace's hooks.toml (a cloned repository's) is not
  -- applied: nothing fails, and hooks-list says why.
  local home = dir .. "/home"
  local untrusted = radium.new({ workspace = dir, radium_home = home })
  untrusted:register("x", "before_model", function() end)
  eq(untrusted:execute("before_model", {}).status, "completed", "an untrusted hooks.toml breaks no chain")
  local why = untrusted:request({ command = "hooks-list" }).warnings
  check(why ~= nil and tostring(why[1]):find("is not trusted", 1, true) ~= nil, "hooks-list says it is not applied")
  eq(untrusted:request({ command = "trust" }).data.trusted, true, "trust")
  -- A broken hooks.toml of a trusted workspace does not stop the engine: the
  -- chains with a hook to run raise its error, which names the line; the
  -- others work.
  local broken = radium.new({ workspace = dir, radium_home = home })
  eq(broken:request({ command = "ping" }).data, "pong", "ping with a broken hooks.toml")
  eq(broken:execute("before_model", {}).status, "completed", "a chain with no hook to run completes")
  local ran = false
  broken:register("x", "before_model", function() ran = true end)
  raises(function() broken:execute("before_model", {}) end, "hooks.toml:3:", "bad hooks.toml names the line")
  raises(function() broken:execute_async("before_model", {}, function() end) end, "hooks.toml:3:", "execute_async too")
  local answer = broken:request({ command = "hooks-execute", args = { hook_type = "before_model" } })
  eq({ answer.ok, answer.code }, { false, "config" }, "the request door answers code config")
  check(tostring(answer.error):find("hooks.toml:3:", 1, true) ~= nil, tostring(answer.error))
  local list = broken:request({ command = "hooks-list" })
  eq(#user_hooks(list.data), 1, "hooks-list still lists the hooks")
  check(list.warnings ~= nil and tostring(list.warnings[1]):find("hooks.toml:3:", 1, true) ~= nil, "hooks-list warns")
  check(not ran, "no hook ran")
  vim.fn.writefile({ "[[hooks]]", "name = 'late'", "type = 'before_tool'", "priority = 999" }, dir .. "/.radium/hooks.toml")
  local configured = radium.new({ workspace = dir, radium_home = home })
  configured:register("late", "before_tool", function() end)
  eq(user_hooks(configured:list())[1].priority, 999, "hooks.toml applies to a hook registered later")
  eq(configured:execute("before_tool", { tool_name = "view" }).hooks[1].name, "late", "the fixed file runs")
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
