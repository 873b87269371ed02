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
-- Puts `text` on the clipboard with xclip (as `target`) and waits until the
-- clipboard shows it: `xclip -i` returns before the process it leaves in the
-- background has told the X server it owns the clipboard, so on a busy
-- machine a reader right after it would still get the old owner's text.
local function copy(text, target)
  vim.fn.system({ "sh", "-c", "xclip -i -selection clipboard" .. (target and (" -t " .. target) or "") .. " >/dev/null 2>&1" }, text)
  local shown = vim.wait(30000, function()
    if target then
      return vim.fn.system({ "xclip", "-o", "-selection", "clipboard", "-t", "TARGETS" }):find(target, 1, true) ~= nil
    end
    return vim.fn.system({ "sh", "-c", "xclip -o -selection clipboard 2>/dev/null" }) == text
  end, 100)
  check(shown, "xclip took the clipboard within 30 s: " .. vim.inspect(text))
end
local sent = e:request({ command = "clipboard-send", args = { path = "src/lib.c", start_line = 1, end_line = 1, prompt = "why?" } })
check(sent.ok and sent.data.copied, "send: " .. vim.inspect(sent))
local out = vim.fn.system({ "xclip", "-o", "-selection", "clipboard" })
check(out:find("why?\n\n`src/lib.c`, line 1:\n\n```c:src/lib.c lines=1\n", 1, true) ~= nil, "clipboard: " .. out)
-- Nothing copied since: the clipboard holds the engine's own text, which is
-- not an answer (never its snippet applied as the whole file).
local own = e:request({ command = "clipboard-receive", args = { apply = true } })
check(not own.ok and own.code == "clipboard" and own.error:find("still holds the text radium copied", 1, true), "own text: " .. vim.inspect(own))
check(#vim.fn.readfile(ws .. "/src/lib.c") == 3, "lib.c untouched")
copy("```c:src/new.c\nint three(void) { return 3; }\n```\n")
local got = e:request({ command = "clipboard-receive", args = { apply = true } })
check(got.ok and got.data.applied, "receive: " .. vim.inspect(got))
check(vim.fn.readfile(ws .. "/src/new.c")[1] == "int three(void) { return 3; }", "new file written")
local undo = e:request({ command = "undo", tag = got.tag })
check(undo.ok, "undo: " .. vim.inspect(undo))
check(vim.fn.filereadable(ws .. "/src/new.c") == 0, "undo removed the new file")
copy("\137PNG\r\n", "image/png")
local empty = e:request({ command = "clipboard-receive" })
check(not empty.ok and empty.code == "clipboard" and empty.error:find("holds no text", 1, true), "binary: " .. vim.inspect(empty))

-- The plugin's :RadiumClipboard commands, on the plugin's engine of `ws`.
radium.setup({ workspace = ws, notify = true })
require("radium.commands").define()
local notes = {}
vim.notify = function(msg, level) notes[#notes + 1] = { msg = msg, level = level } end
local function said(s)
  for _, n in ipairs(notes) do
    if n.msg:find(s, 1, true) then return n end
  end
end
local clip = require("radium.clipboard")
local function idle() vim.wait(10000, function() return clip.running == 0 end, 10) end
vim.cmd("edit " .. ws .. "/src/lib.c")
vim.cmd("2RadiumClipboard send why two?")
idle()
check(said("copied line 2 of src/lib.c to the clipboard"), ":RadiumClipboard send said: " .. vim.inspect(notes))
out = vim.fn.system({ "xclip", "-o", "-selection", "clipboard" })
check(out:find("why two?\n\n`src/lib.c`, line 2:\n\n```c:src/lib.c lines=2\nint two(void) { return 2; }\n```", 1, true) ~= nil, ":RadiumClipboard send's text: " .. out)
local fixed = vim.fn.readfile(ws .. "/src/lib.c")
fixed[2] = "int two(void) { return 20; }"
local answer = "Fixed:\n\n```c:src/lib.c\n" .. table.concat(fixed, "\n") .. "\n```\n\n```c\nno path\n```\n"
copy(answer)
vim.cmd("RadiumClipboard receive")
idle()
local lib = vim.fn.bufnr(ws .. "/src/lib.c")
check(vim.deep_equal(require("radium.review").pending(), { [lib] = 1 }), ":RadiumClipboard receive opened the review: " .. vim.inspect(notes))
check(said("1 block names no file"), "the no-path block listed: " .. vim.inspect(notes))
check(vim.fn.readfile(ws .. "/src/lib.c")[2] == "int two(void) { return 2; }", "nothing written before the accept")
vim.cmd("RadiumReview accept")
check(vim.fn.readfile(ws .. "/src/lib.c")[2] == "int two(void) { return 20; }", "the accept saved lib.c")
vim.cmd("RadiumUndo")
check(vim.fn.readfile(ws .. "/src/lib.c")[2] == "int two(void) { return 2; }", ":RadiumUndo took it back")
check(vim.api.nvim_buf_get_lines(lib, 1, 2, false)[1] == "int two(void) { return 2; }", "and the buffer followed")
copy("")
vim.cmd("RadiumClipboard receive")
idle()
local last = notes[#notes] or {}
check(last.level == vim.log.levels.INFO and (last.msg:find("holds no text", 1, true) or last.msg:find("no code blocks", 1, true)),
  "an empty clipboard is a message: " .. vim.inspect(last))
for _, n in ipairs(notes) do
  check(n.level ~= vim.log.levels.ERROR and not n.msg:find("traceback", 1, true), "no error: " .. n.msg)
end

if failed > 0 then
  os.exit(1)
end
print("Lua door: clipboard ok")
os.exit(0)
