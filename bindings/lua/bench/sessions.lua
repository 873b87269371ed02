-- The Neovim door's session benchmark: a turn of the example ACP agent (a
-- real Node process) streaming `stream <n> <size>`, every chunk delivered to
-- a Lua handler on Neovim's main loop (the chunks that arrived between two
-- turns of the loop joined into one event). Each turn is timed from the
-- prompt to its turn_end event in Lua; prints the median per turn and per
-- chunk the agent sent, and how many text events Lua got.
--   nvim --headless -u NONE -l bindings/lua/bench/sessions.lua [turns]
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)
local radium = require("radium")
local turns = tonumber(arg[1]) or 20
local agent = vim.fn.fnamemodify(root .. "/../../examples/acp-agent/agent.mjs", ":p")

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, "p")
vim.fn.writefile({
  "[[agents]]",
  'id = "example"',
  'protocol = "acp"',
  string.format('command = ["node", %q]', agent),
}, dir .. "/agents.toml")
local engine = radium.new({ workspace = dir, radium_home = dir })

local chunks, bytes, ended = 0, 0, false
local started = vim.uv.hrtime()
local session, failure
engine:session_open("example", {
  on_event = function(event)
    if event.type == "text" then
      chunks = chunks + 1
      bytes = bytes + #event.text
    elseif event.type == "turn_end" or event.type == "error" then
      ended = true
    end
  end,
}, function(s, err)
  session, failure = s, err
end)
assert(vim.wait(30000, function()
  return session ~= nil or failure ~= nil
end, 1), "the session did not open")
assert(session, failure)
print(string.format("session open to ready: %.1f ms", (vim.uv.hrtime() - started) / 1e6))

local function run(count, n, size)
  local times = {}
  for i = 1, count do
    chunks, bytes, ended = 0, 0, false
    local t0 = vim.uv.hrtime()
    session:prompt(string.format("stream %d %d", n, size))
    assert(vim.wait(60000, function()
      return ended
    end, 1), "the turn did not end")
    times[i] = (vim.uv.hrtime() - t0) / 1e3
    assert(bytes == n * size, string.format("%d bytes of text, expected %d", bytes, n * size))
  end
  table.sort(times)
  local median = times[math.floor(count / 2) + 1]
  print(string.format("stream %d x %d B: %.2f ms per turn, %.2f us per chunk (median of %d turns; %d text events in Lua in the last)",
    n, size, median / 1e3, median / n, count, chunks))
end

run(3, 100, 64) -- warm-up
run(turns, 1000, 64)
run(turns, 256, 4096)
session:close()
vim.fn.delete(dir, "rf")
