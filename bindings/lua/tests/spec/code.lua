-- Code intelligence through the Lua door: read-var answered by a language
-- server (the scripted one of tests/lsp, started by the engine) without
-- blocking the main loop, the unsaved buffer's text given as `text`,
-- modify-var as one step and undo, the syntax fallback, and errors.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local radium = h.radium

local function project()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. "/ws", "p")
  vim.fn.mkdir(dir .. "/home", "p")
  vim.fn.writefile({
    "[python]",
    string.format("command = [\"python3\", %q, \"--mode\", \"progress\"]", h.repo .. "/tests/lsp/scripted_server.py"),
  }, dir .. "/home/lsp.toml")
  vim.fn.writefile({ "from util import total", "print(total)" }, dir .. "/ws/app.py")
  vim.fn.writefile({ "total = 1" }, dir .. "/ws/util.py")
  return dir, radium.new({ workspace = dir .. "/ws", radium_home = dir .. "/home" })
end

test("read-var through a language server does not block the main loop", function()
  local dir, e = project()
  local response
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(10, 10, vim.schedule_wrap(function() ticks = ticks + 1 end))
  local t0 = vim.uv.hrtime()
  -- The editor's unsaved text: a third use of the name on line 3.
  local text = "from util import total\nprint(total)\nx = total\n"
  e:request_async({ command = "read-var", args = { file = "app.py", var = "total", text = text } }, function(r) response = r end)
  eq(response, nil, "answered later")
  vim.wait(10000, function() return response ~= nil end, 10)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  timer:stop()
  timer:close()
  eq(response and response.ok, true, vim.inspect(response))
  eq(response.data.engine, "lsp", "a server answered")
  eq(#response.data.occurrences, 4, "the unsaved line counts: " .. vim.inspect(response.data.occurrences))
  eq(response.data.definition.file, "util.py", "definition")
  h.ticked(ticks, ms, 10, "while the server started and indexed")
  local list = e:request({ command = "lsp-list" })
  local python
  for _, s in ipairs(list.data.servers) do
    if s.language == "python" then python = s end
  end
  eq(python.running, true, "running")
  vim.fn.delete(dir, "rf")
end)

test("modify-var is one step that undo takes back; the fallback and errors", function()
  local dir, e = project()
  local r = e:request({ command = "modify-var", args = { file = "util.py", from = "total", to = "sum_", engine = "syntax" } })
  eq(r.ok, true, vim.inspect(r))
  eq(r.data.engine, "syntax", "engine")
  eq(vim.fn.readfile(dir .. "/ws/app.py"), { "from util import sum_", "print(sum_)" }, "app.py")
  eq(e:request({ command = "undo" }).ok, true, "undo")
  eq(vim.fn.readfile(dir .. "/ws/app.py"), { "from util import total", "print(total)" }, "undone")
  r = e:request({ command = "modify-var", args = { file = "util.py", from = "nothing", to = "x" } })
  eq(r.code, "not_found", vim.inspect(r))
  r = e:request({ command = "rename-file", args = { from = "util.py", to = "app.py" } })
  eq(r.code, "edit", vim.inspect(r))
  vim.fn.delete(dir, "rf")
end)
