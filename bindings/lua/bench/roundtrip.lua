-- The send-selection round trip through the Neovim door (see
-- core/examples/roundtrip.rs): prints microseconds per round trip.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)
local radium = require("radium")
local lines = vim.fn.readfile(arg[1] or (root .. "/../../tests/vectors/roundtrip.txt"))
local iterations = tonumber(arg[2]) or 2000
local before, after = vim.json.decode(lines[1]), vim.json.decode(lines[2])
if arg[3] then
  -- The old way: one `rad request` process per request (vim.system), the
  -- answer decoded as the in-process door does.
  local rad = arg[3]
  local function spawned(line)
    local out = vim.system({ rad, "request", line }):wait()
    assert(out.code == 0, out.stderr)
    return vim.json.decode(out.stdout)
  end
  local start = vim.uv.hrtime()
  for _ = 1, iterations do
    local a = spawned(lines[1])
    local b = spawned(lines[2])
    assert(a.ok and b.data.data.result.block_count == 3)
  end
  print(string.format("%.1f", (vim.uv.hrtime() - start) / 1e3 / iterations))
  return
end
local engine = radium.new()
for i = 1, 5 do
  engine:register("noop-" .. i, "before_tool", function() end)
end
local function round_trip()
  local a = engine:request(before)
  local b = engine:request(after)
  assert(a.ok and b.data.data.result.block_count == 3)
end
for _ = 1, iterations / 10 do
  round_trip()
end
local start = vim.uv.hrtime()
for _ = 1, iterations do
  round_trip()
end
print(string.format("%.1f", (vim.uv.hrtime() - start) / 1e3 / iterations))
