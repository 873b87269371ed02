-- :RadiumClipboard send / receive with no display (the suite's case; the
-- real X clipboard is tests/clipboard/lua_door.lua under Xvfb): send is a
-- warning, never a stack trace; what send asks for (the path relative to the
-- root, a range, a buffer's unsaved text); receive from a register opens the
-- review of the blocks that name files (two files: one hunk accepted, one
-- rejected, :RadiumUndo), lists blocks with no path, reports refused and cut
-- blocks; the diffs it reads are turned back into the blocks' text exactly;
-- a block answering a range reviews that range only, a snippet warns.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local CALC = { "import os", "", "def add(a, b):", "    return a + b" }
local CALC_NEW = { "import sys", "", "def add(a, b):", "    return a + b" }
local UTIL = { "def util():", "    return 1" }
local UTIL_NEW = { "def util():", "    return 2" }

local function fence(info, lines)
  return "```" .. info .. "\n" .. table.concat(lines, "\n") .. "\n```\n"
end

local ANSWER = "Here you are:\n\n" .. fence("python:py/calc.py", CALC_NEW) .. "\nand\n\n" .. fence("python:py/util.py", UTIL_NEW)

local function clip()
  return require("radium.clipboard")
end

local function idle()
  pt.wait(function() return clip().running == 0 end)
end

local function setup()
  local p = pt.project()
  require("radium").setup({ notify = true, review = { save = true } })
  vim.fn.mkdir(p.ws .. "/py", "p")
  vim.fn.writefile(CALC, p.ws .. "/py/calc.py")
  vim.fn.writefile(UTIL, p.ws .. "/py/util.py")
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  return p
end

local function disk(p, rel)
  return vim.fn.filereadable(p.ws .. "/" .. rel) == 1 and vim.fn.readfile(p.ws .. "/" .. rel) or nil
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local function no_trace(notes, what)
  check(not notes.text():find("traceback", 1, true) and not notes.text():find("%.lua:%d+:"), what .. ": no stack trace: " .. notes.text())
end

local function done()
  vim.cmd("silent! %bwipeout!")
end

test(":RadiumClipboard send with no display is a warning naming DISPLAY, not a stack trace", function()
  local saved = { vim.env.DISPLAY, vim.env.WAYLAND_DISPLAY }
  vim.env.DISPLAY, vim.env.WAYLAND_DISPLAY = nil, nil
  setup()
  local notes = pt.notes()
  vim.cmd("RadiumClipboard send why?")
  idle()
  vim.cmd("1RadiumClipboard send")
  idle()
  local warns = vim.tbl_filter(function(x) return x[2] == vim.log.levels.WARN end, notes.all)
  eq(#warns, 2, "two warnings: " .. notes.text())
  check(warns[1] and warns[1][1]:find("neither DISPLAY (X11) nor WAYLAND_DISPLAY (Wayland) is set", 1, true), "says why: " .. notes.text())
  check(not notes.text():find("`print`", 1, true), "no `print` (not an option of the command): " .. notes.text())
  check(not notes.find("copied"), "nothing said copied")
  no_trace(notes, "send")
  notes.all = {}
  vim.cmd("RadiumClipboard receive")
  idle()
  local w = notes.last()
  check(w[2] == vim.log.levels.WARN and w[1]:find("neither DISPLAY", 1, true) and w[1]:find(":RadiumClipboard receive {register}", 1, true),
    "receive with no display names the register way: " .. notes.text())
  no_trace(notes, "receive")
  notes.stop()
  vim.env.DISPLAY, vim.env.WAYLAND_DISPLAY = saved[1], saved[2]
  done()
end)

test("send asks for the file relative to the root, the range's lines, a buffer's unsaved text", function()
  local p = setup()
  vim.cmd("edit " .. p.ws .. "/py/calc.py")
  local r
  clip().send({ range = true, first = 3, last = 4, prompt = "why?", print = true }, function(x) r = x end)
  idle()
  check(r and r.ok, "answered: " .. vim.inspect(r))
  eq({ r.data.path, r.data.start_line, r.data.end_line, r.data.copied }, { "py/calc.py", 3, 4, false }, "path and lines")
  check(r.data.text:find("why?\n\n`py/calc.py`, lines 3-4:\n\n```python:py/calc.py lines=3-4\ndef add(a, b):\n    return a + b\n```", 1, true), r.data.text)
  vim.api.nvim_buf_set_lines(0, 0, 1, false, { "import mine" })
  clip().send({ print = true }, function(x) r = x end)
  idle()
  check(r.ok and r.data.text:find("```python:py/calc.py\nimport mine\n", 1, true), "the unsaved text: " .. vim.inspect(r))
  eq({ r.data.start_line, r.data.end_line }, { 1, 4 }, "the whole buffer")
  vim.cmd("enew")
  vim.bo.filetype = "lua"
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "return 1" })
  clip().send({ print = true }, function(x) r = x end)
  idle()
  check(r.ok and r.data.text:find("```lua\nreturn 1\n```", 1, true), "no file: the text, its filetype: " .. vim.inspect(r))
  done()
end)

test(":RadiumClipboard receive a: the review opens with both files; one hunk accepted, one rejected; :RadiumUndo", function()
  local p = setup()
  vim.fn.setreg("a", ANSWER)
  local notes = pt.notes()
  vim.cmd("RadiumClipboard receive a")
  idle()
  local review = require("radium.review")
  local calc, util = vim.fn.bufnr(p.ws .. "/py/calc.py"), vim.fn.bufnr(p.ws .. "/py/util.py")
  eq(review.pending(), { [calc] = 1, [util] = 1 }, "both files under review: " .. notes.text())
  check(notes.find("2 hunk(s) in 2 file(s)"), "said: " .. notes.text())
  eq(#require("radium.editor").blocks(), 2, ":RadiumBlocks has the two blocks")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC, UTIL }, "nothing written yet")
  eq(vim.api.nvim_get_current_buf(), calc, "the first file is shown")
  vim.api.nvim_feedkeys(vim.keycode("ga"), "xt", false)
  vim.api.nvim_set_current_buf(util)
  vim.api.nvim_feedkeys(vim.keycode("gr"), "xt", false)
  eq(review.pending(), {}, "the review is over")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC_NEW, UTIL }, "calc.py saved, util.py untouched")
  eq({ lines(calc), lines(util) }, { CALC_NEW, UTIL }, "the buffers")
  eq({ vim.bo[calc].modified, vim.bo[util].modified }, { false, false }, "unmodified")
  vim.cmd("RadiumUndo")
  eq({ disk(p, "py/calc.py"), lines(calc) }, { CALC, CALC }, ":RadiumUndo took the accept back, on disk and in the buffer")
  check(notes.find("undone: record (py/calc.py)"), "said: " .. notes.text())
  local before = #notes.all
  vim.cmd("RadiumUndo")
  check(#notes.all > before and notes.last()[2] == vim.log.levels.ERROR, "one step only: " .. notes.text())
  no_trace(notes, "receive")
  notes.stop()
  done()
end)

test("receive lists blocks with no path, reports refused and cut blocks, reviews nothing it cannot place", function()
  local p = setup()
  vim.fn.setreg("b", fence("c", { "int x;" }) .. fence("c:../outside.c", { "int y;" }) .. "```c:src/cut.c\nint z;\n")
  local notes = pt.notes()
  vim.cmd("RadiumClipboard receive b")
  idle()
  eq(require("radium.review").pending(), {}, "nothing under review")
  local listed = notes.find("1 block names no file")
  check(listed and listed[2] == vim.log.levels.INFO and listed[1]:find("block 1 (c, 1 line)", 1, true), "the no-path block listed: " .. notes.text())
  local warn = notes.find("block 2 refused")
  check(warn and warn[2] == vim.log.levels.WARN and warn[1]:find("outside the project", 1, true), "refused: " .. notes.text())
  check(warn and warn[1]:find("block 3 for src/cut.c is cut short", 1, true), "cut short: " .. notes.text())
  eq({ vim.fn.filereadable(p.ws .. "/../outside.c"), vim.fn.filereadable(p.ws .. "/src/cut.c") }, { 0, 0 }, "nothing written")
  notes.all = {}
  vim.fn.setreg("c", "Just words.")
  vim.cmd("RadiumClipboard receive c")
  idle()
  vim.fn.setreg("d", "")
  vim.cmd("RadiumClipboard receive d")
  idle()
  check(notes.find("no code blocks in register c") and notes.find("register d is empty"), "said: " .. notes.text())
  eq(vim.tbl_map(function(x) return x[2] end, notes.all), { vim.log.levels.INFO, vim.log.levels.INFO }, "as INFO")
  vim.cmd("RadiumClipboard receive =")
  vim.cmd("RadiumClipboard paste")
  check(notes.find("`=` is not a register") and notes.find("takes send [prompt] or receive [register], not `paste`"), "bad arguments: " .. notes.text())
  no_trace(notes, "listing")
  notes.stop()
  done()
end)

test("a new file from receive, and the block text rebuilt from the diffs (no last newline, CRLF, several hunks)", function()
  local p = setup()
  local long = {}
  for i = 1, 30 do long[#long + 1] = "line " .. i end
  local long_new = vim.deepcopy(long)
  long_new[2], long_new[25] = "two", "twenty-five"
  table.insert(long_new, 14, "inserted")
  local f = io.open(p.ws .. "/py/nonl.txt", "wb")
  f:write("a\nb\nc")
  f:close()
  f = io.open(p.ws .. "/py/crlf.txt", "wb")
  f:write("l1\r\nl2\r\n")
  f:close()
  vim.fn.writefile(long, p.ws .. "/py/long.txt")
  local blocks = {
    { "text:py/nonl.txt", { "a", "B", "c" } },
    { "text:py/crlf.txt", { "l1", "l2" } },
    { "text:py/long.txt", long_new },
    { "text:py/fresh.txt", { "new" } },
  }
  local answer = ""
  for _, b in ipairs(blocks) do answer = answer .. fence(b[1], b[2]) end
  local r = require("radium").engine(p.ws):request({ command = "clipboard-receive", args = { text = answer } })
  check(r.ok, vim.inspect(r))
  for i, b in ipairs(r.data.blocks) do
    local old = b.status == "new" and "" or table.concat(vim.fn.readfile(p.ws .. "/" .. b.path, "b"), "\n")
    local text = clip().patch(old, b.diff)
    eq(text, table.concat(blocks[i][2], "\n") .. "\n", "block " .. i .. " rebuilt")
  end
  eq(clip().patch("x\ny\n", r.data.blocks[1].diff), nil, "another text is refused")
  vim.fn.setreg("e", fence("text:py/fresh.txt", { "new" }))
  local notes = pt.notes()
  vim.cmd("RadiumClipboard receive e")
  idle()
  eq(vim.api.nvim_buf_get_name(0), p.ws .. "/py/fresh.txt", "the review opened the new file")
  vim.api.nvim_feedkeys(vim.keycode("gA"), "xt", false)
  eq(disk(p, "py/fresh.txt"), { "new" }, "created")
  vim.cmd("RadiumUndo")
  eq(disk(p, "py/fresh.txt"), nil, "removed by :RadiumUndo")
  no_trace(notes, "new file")
  notes.stop()
  done()
end)

test("receive: a block answering a range reviews that range only; a snippet is reviewed with a warning", function()
  local p = setup()
  vim.fn.setreg("f", fence("python:py/calc.py lines=4", { "    return a - b" }))
  local notes = pt.notes()
  vim.cmd("RadiumClipboard receive f")
  idle()
  local calc = vim.fn.bufnr(p.ws .. "/py/calc.py")
  eq(require("radium.review").pending(), { [calc] = 1 }, "one hunk: " .. notes.text())
  vim.api.nvim_feedkeys(vim.keycode("gA"), "xt", false)
  eq(disk(p, "py/calc.py"), { "import os", "", "def add(a, b):", "    return a - b" }, "line 4 replaced, the rest kept")
  vim.cmd("RadiumUndo")
  eq(disk(p, "py/calc.py"), CALC, "undone")
  notes.all = {}
  vim.fn.setreg("g", fence("python:py/calc.py", { "    return a - b" }))
  vim.cmd("RadiumClipboard receive g")
  idle()
  local warn = notes.find("would delete most of the file")
  check(warn and warn[2] == vim.log.levels.WARN and warn[1]:find("block 1 for py/calc.py", 1, true), "the snippet warned: " .. notes.text())
  eq(disk(p, "py/calc.py"), CALC, "nothing written before an accept")
  eq(require("radium.review").pending(), { [calc] = require("radium.review").pending()[calc] }, "reviewed: each hunk is the user's choice")
  check(require("radium.review").pending()[calc], "calc.py under review")
  vim.api.nvim_set_current_buf(calc)
  vim.api.nvim_feedkeys(vim.keycode("gR"), "xt", false)
  eq(require("radium.review").pending(), {}, "all rejected")
  eq(disk(p, "py/calc.py"), CALC, "nothing written")
  no_trace(notes, "range and snippet")
  notes.stop()
  done()
end)

test(":RadiumClipboard completes send and receive, then receive's registers", function()
  vim.fn.setreg("q", "x")
  eq(vim.fn.getcompletion("RadiumClipboard ", "cmdline"), { "send", "receive" }, "the subcommands")
  eq(vim.fn.getcompletion("'<,'>RadiumClipboard s", "cmdline"), { "send" }, "after a range")
  check(vim.tbl_contains(vim.fn.getcompletion("RadiumClipboard receive ", "cmdline"), "q"), "a register that holds text")
  eq(vim.fn.getcompletion("RadiumClipboard send ", "cmdline"), {}, "nothing for the prompt")
end)
