-- The Neovim door's tests, run in real headless Neovim:
--   nvim --headless -u NONE -l bindings/lua/tests/run.lua
-- Prints "N passed, M failed" and exits 1 on any failure.
-- This file is the harness (check, eq, raises, test, the count) and the
-- helpers the specs share; the tests are in tests/spec/*.lua, by concept.

local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)

local passed, failed = 0, 0
local current = "?"
-- Every failure, printed again after the count: a long log's tail names them.
local failures = {}
local function fail(line)
  failures[#failures + 1] = line
  io.stderr:write(line .. "\n")
end

local function check(cond, what)
  if cond then
    passed = passed + 1
  else
    failed = failed + 1
    fail(string.format("FAIL [%s] %s", current, what))
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
    fail(string.format("FAIL [%s] raised: %s", name, err))
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

local repo = vim.fn.fnamemodify(root, ":h:h")

-- Checks that a timer of `period_ms` kept firing over `ms` of waiting: the
-- main loop ran. A loop held by the work would tick once at most, at its
-- end. On a loaded machine (CI on 2 busy cores, a browser beside) an eighth
-- of the ticks, and at least 2, are asked: the count follows the time that
-- passed, never a fixed number.
local function ticked(ticks, ms, period_ms, what)
  check(ticks >= math.max(2, ms / period_ms / 8),
    string.format("%s: the main loop kept running (%d ticks of %d ms in %.0f ms)", what, ticks, period_ms, ms))
end

-- What each spec file gets as its argument (`local h = ...`): the harness,
-- the module under test, the folders and the helpers the specs share.
local harness = {
  check = check,
  eq = eq,
  raises = raises,
  test = test,
  radium = radium,
  root = root,
  repo = repo,
  names = names,
  user_hooks = user_hooks,
  tracer = tracer,
  ticked = ticked,
  plugin = assert(loadfile(root .. "/tests/plugin_helpers.lua"))(repo),
}

-- The tests, by concept, in this order (tests/spec/<name>.lua).
local specs = { "engine", "context", "data", "async", "vectors", "editor", "hardening", "sessions", "plugin", "review", "record", "clipboard", "chat", "chat_flood", "chat_hunks", "merge", "chat_commands", "chat_window", "chat_restore", "chat_options", "chat_follow", "chat_history", "chat_agent_sessions", "chat_slash", "chat_images", "code", "code_commands", "log", "agents", "install" }
-- RADIUM_SPECS="review code_commands" runs only those (while working on them).
if (os.getenv("RADIUM_SPECS") or "") ~= "" then
  specs = vim.split(os.getenv("RADIUM_SPECS"), "%s+", { trimempty = true })
end
for _, spec in ipairs(specs) do
  local path = root .. "/tests/spec/" .. spec .. ".lua"
  local ok, err = xpcall(function()
    assert(loadfile(path))(harness)
  end, debug.traceback)
  if not ok then
    failed = failed + 1
    fail(string.format("FAIL [%s] %s", path, err))
  end
end

if #failures > 0 then
  io.stderr:write("\nthe failures again:\n")
  for _, line in ipairs(failures) do
    io.stderr:write("  " .. line .. "\n")
  end
end
print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed > 0 and 1 or 0)
