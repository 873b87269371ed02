-- Images in :RadiumChat with the example ACP agent (a real process): the
-- image is read and encoded on the engine's threads, not on Neovim's main
-- loop, and reaches the agent intact; the bad ones are named.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local function chat_text(chat)
  return table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
end

local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, vim.split(text, "\n"))
  vim.cmd("write")
end

local function open(agent)
  local chat = require("radium.chat").open(agent)
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "the chat's session did not open: " .. tostring(chat.failed))
  return chat
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

test("a 10 MiB #image: is read off the main loop (a timer keeps firing while it is read) and reaches the agent intact", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open("example")
  -- The image's bytes, and a FIFO named shot.png that a writer fills only
  -- after a pause: reading it on the main loop would hold the loop until the
  -- writer is done, and the writer's first mark would exist when :w returns.
  local big, fifo, started = p.ws .. "/big.bin", p.ws .. "/shot.png", p.ws .. "/started"
  vim.fn.system({ "sh", "-c", 'head -c 10485760 /dev/urandom > "$0"', big })
  eq(vim.fn.getfsize(big), 10485760, "a 10 MiB image")
  local sum = vim.fn.system({ "sha256sum", big }):match("^(%x+)")
  eq(vim.fn.system({ "mkfifo", fifo }), "", "the FIFO")
  local writer = vim.system({ "sh", "-c", 'sleep 3; touch "$1"; cat "$0" > "$2"', big, started, fifo })
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function() ticks = ticks + 1 end))
  say(chat, "sha256 of #image:shot.png")
  eq(vim.uv.fs_stat(started), nil, ":w returned before the image was written: the main loop did not wait for it")
  eq(chat.running, true, "the turn runs")
  pt.wait(function() return vim.uv.fs_stat(started) ~= nil end, 30000)
  local at_write = ticks
  pt.wait(function() return not chat.running end, 60000)
  require("radium.chat_render").flush(chat)
  check(ticks > at_write, string.format("the timer fired while the image was read and sent (%d ticks, %d before)", ticks, at_write))
  timer:stop()
  timer:close()
  writer:wait()
  local text = chat_text(chat)
  check(text:find("Images: image/png 10485760 bytes", 1, true) ~= nil, "the whole image reached the agent: " .. text:sub(-400))
  check(text:find("SHA-256: " .. sum, 1, true) ~= nil, "intact (its SHA-256 " .. sum .. "): " .. text:sub(-400))
  close_all()
end)

test("#image: bad input is named and nothing is sent: too big, outside the workspace, an agent that takes no images", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open("example")
  local notes = pt.notes()
  vim.fn.system({ "truncate", "-s", "10485761", p.ws .. "/big.png" })
  vim.fn.writefile({ "x" }, p.ws .. "/../outside.png", "b")
  say(chat, "look #image:big.png")
  check(notes.last()[1]:find("over the 10485760-byte limit", 1, true) ~= nil, "too big: " .. notes.text())
  say(chat, "look #image:../outside.png")
  check(notes.last()[1]:find("outside the workspace", 1, true) ~= nil, "outside: " .. notes.text())
  eq(chat.turns or 0, 0, "no turn was started")
  local agents = vim.fn.readfile(p.home .. "/agents.toml")
  vim.list_extend(agents, { "", "[[agents]]", 'id = "blind"', 'protocol = "acp"',
    string.format('command = ["node", "%s/examples/acp-agent/agent.mjs", "--no-image"]', h.repo) })
  vim.fn.writefile(agents, p.home .. "/agents.toml")
  vim.fn.writefile({ "x" }, p.ws .. "/ok.png", "b")
  local blind = open("blind")
  say(blind, "look #image:ok.png")
  check(notes.last()[1]:find("agent `blind` does not take images", 1, true) ~= nil, "an agent without images: " .. notes.text())
  eq(blind.turns or 0, 0, "no turn was started")
  notes.stop()
  close_all()
end)
