-- The editor side: agent steps without blocking, :RadiumSend / :RadiumApply
-- (send a selection, list, preview, apply, undo), :RadiumCancel, the edit
-- tools and dog tags through the Lua door, and :checkhealth radium.

local h = ...
local check, eq, raises, test = h.check, h.eq, h.raises, h.test
local radium = h.radium
local repo = h.repo

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
  local t0 = vim.uv.hrtime()
  e:step("slow", { file_path = ws .. "/src/a.lua", selection = "return 1", workspace = ws }, "improve", function(r) response = r end)
  eq(response, nil, "returned before the agent answered")
  vim.wait(5000, function() return response ~= nil end, 10)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  timer:stop()
  timer:close()
  eq(response and response.ok, true, "step ok: " .. vim.inspect(response))
  eq(response and response.data.code_blocks[1].content, "return 42\n", "the agent's block")
  h.ticked(ticks, ms, 20, "during the step")
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
  eq(editor.cancel(), 0, "nothing to cancel yet")
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
