-- A 5-hook Lua chain on a 4 KiB context, per call, inside headless Neovim.
--   nvim --headless -u NONE -l bindings/lua/bench/bench.lua [iterations]
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)

local t0 = vim.uv.hrtime()
local radium = require("radium")
local require_us = (vim.uv.hrtime() - t0) / 1e3

local iterations = tonumber(arg[1]) or 2000
local selection = string.rep("fn main() { let x = 1; } ", 156)
local data = { tool_name = "apply", file_path = "/work/src/main.rs", language = "rust", workspace = "/work", selection = selection }
local size = #vim.json.encode(data)

local function bench(label, engine)
  for _ = 1, iterations / 10 do
    engine:execute("before_tool", data)
  end
  local start = vim.uv.hrtime()
  for _ = 1, iterations do
    engine:execute("before_tool", data)
  end
  local per = (vim.uv.hrtime() - start) / iterations / 1e3
  print(string.format("%s: context %d bytes, %d calls, %.1f us per call", label, size, iterations, per))
end

local noop = radium.new()
for i = 1, 5 do
  noop:register("noop-" .. i, "before_tool", function() end)
end
bench("lua_5_noop_hooks_4k", noop)

local reading = radium.new()
for i = 1, 5 do
  reading:register("read-" .. i, "before_tool", function(ctx)
    assert(#ctx.data.selection > 0)
  end)
end
bench("lua_5_reading_hooks_4k", reading)

local modifying = radium.new()
for i = 1, 5 do
  modifying:register("modify-" .. i, "before_tool", function(ctx)
    ctx.data.count = (ctx.data.count or 0) + 1
    return { action = "modify", data = ctx.data }
  end)
end
bench("lua_5_modifying_hooks_4k", modifying)

local empty = radium.new()
bench("empty_chain_4k (conversion only)", empty)

print(string.format("require('radium'): %.0f us", require_us))
