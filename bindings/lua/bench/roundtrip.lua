-- The send-selection round trip through the Neovim door (see
-- core/examples/roundtrip.rs).
--   nvim -l roundtrip.lua <vectors> <iterations> [<rad> <hooked-home> <bare-home> <spawns>]
-- prints microseconds per round trip in-process and, given `rad`, for the
-- same two requests made the old way: one `rad request` process each
-- (vim.system, the answer decoded as the in-process door hands it over),
-- with RADIUM_HOME set to each home. The measurements take turns in 15
-- rounds; each figure is its best round (this 2-core machine's speed varies
-- from second to second).
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)
local radium = require("radium")
local lines = vim.fn.readfile(arg[1] or (root .. "/../../tests/vectors/roundtrip.txt"))
local iterations = tonumber(arg[2]) or 2000
local rad, homes, spawns = arg[3], { arg[4], arg[5] }, tonumber(arg[6] or "0")
local before, after = vim.json.decode(lines[1]), vim.json.decode(lines[2])

local engine = radium.new()
for i = 1, 5 do
  engine:register("noop-" .. i, "before_tool", function() end)
end
local function round_trip()
  local a = engine:request(before)
  local b = engine:request(after)
  assert(a.ok and a.data.status == "completed" and b.data.data.result.block_count == 3)
end

local function spawner(home)
  local env = { RADIUM_HOME = home }
  local function spawned(line)
    local out = vim.system({ rad, "request", line }, { env = env }):wait()
    assert(out.code == 0, out.stderr)
    return vim.json.decode(out.stdout)
  end
  return function()
    local a = spawned(lines[1])
    local b = spawned(lines[2])
    assert(a.ok and b.data.data.result.block_count == 3)
  end
end

local function time(calls, f)
  local start = vim.uv.hrtime()
  for _ = 1, calls do
    f()
  end
  return (vim.uv.hrtime() - start) / 1e3 / calls
end

local ROUNDS = 15
local measured = { { round_trip, math.max(1, math.floor(iterations / ROUNDS)) } }
if rad then
  for _, home in ipairs(homes) do
    measured[#measured + 1] = { spawner(home), math.max(1, math.floor(spawns / ROUNDS)) }
  end
end
for _ = 1, iterations / 10 do
  round_trip()
end
local best = {}
for _ = 1, ROUNDS do
  for i, m in ipairs(measured) do
    if i == 1 then
      -- After the spawns, an untimed round warms the caches again (and
      -- takes the page faults a fork leaves the parent).
      time(m[2], m[1])
    end
    best[i] = math.min(best[i] or math.huge, time(m[2], m[1]))
  end
end
local figures = {}
for i, us in ipairs(best) do
  figures[i] = string.format("%.1f", us)
end
print(table.concat(figures, " "))
