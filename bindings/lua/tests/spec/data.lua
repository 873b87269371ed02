-- Data between Lua and the engine: tables and JSON convert faithfully, the
-- converter agrees with vim.json and refuses what it cannot convert, and the
-- JSON request door (e:request).

local h = ...
local check, eq, raises, test = h.check, h.eq, h.raises, h.test
local radium = h.radium
local user_hooks = h.user_hooks
local tracer = h.tracer

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
