-- Clipboard mode from Neovim's Lua door, under Xvfb (scripts/test-clipboard.sh):
--   nvim --headless -u NONE -l tests/clipboard/lua_door.lua WORKSPACE
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
vim.opt.rtp:prepend(root .. "/bindings/lua")
local ws = _G.arg[1]
local radium = require("radium")
local e = radium.new({ workspace = ws })
local failed = 0
local function check(cond, what)
  if not cond then
    failed = failed + 1
    io.stderr:write("FAIL " .. what .. "\n")
  end
end
local sent = e:request({ command = "clipboard-send", args = { path = "src/lib.c", start_line = 1, end_line = 1, prompt = "why?" } })
check(sent.ok and sent.data.copied, "send: " .. vim.inspect(sent))
local out = vim.fn.system({ "xclip", "-o", "-selection", "clipboard" })
check(out:find("why?\n\n`src/lib.c`, line 1:", 1, true) ~= nil, "clipboard: " .. out)
vim.fn.system({ "xclip", "-i", "-selection", "clipboard" }, "```c:src/new.c\nint three(void) { return 3; }\n```\n")
local got = e:request({ command = "clipboard-receive", args = { apply = true } })
check(got.ok and got.data.applied, "receive: " .. vim.inspect(got))
check(vim.fn.readfile(ws .. "/src/new.c")[1] == "int three(void) { return 3; }", "new file written")
local undo = e:request({ command = "undo", tag = got.tag })
check(undo.ok, "undo: " .. vim.inspect(undo))
check(vim.fn.filereadable(ws .. "/src/new.c") == 0, "undo removed the new file")
vim.fn.system({ "xclip", "-i", "-selection", "clipboard", "-t", "image/png" }, "\137PNG\r\n")
local empty = e:request({ command = "clipboard-receive" })
check(not empty.ok and empty.code == "clipboard" and empty.error:find("holds no text", 1, true), "binary: " .. vim.inspect(empty))
if failed > 0 then
  os.exit(1)
end
print("Lua door: clipboard ok")
os.exit(0)
