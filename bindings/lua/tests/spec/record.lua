-- An accept saves the buffers it changed and records them as one radium
-- step: :RadiumUndo takes back every file of it (disk and buffers),
-- :RadiumRedo brings them back; a rejected hunk is not recorded; a new file
-- is removed by undo; a buffer with unsaved changes is saved with them (the
-- user is told once, and undo gives them back); `review = { save = false }`
-- leaves the disk alone; a refused `record` is a warning.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local CALC = { "import os", "", "def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return a - b" }
local CALC_NEW = { "import sys", "", "def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return b - a" }
local UTIL = { "def util():", "    return 1" }
local UTIL_NEW = { "def util():", "    return 2" }

local TWO_FILES = table.concat({
  "```python path=py/calc.py", table.concat(CALC_NEW, "\n"), "```",
  "```python path=py/util.py", table.concat(UTIL_NEW, "\n"), "```",
}, "\n")

local function setup(answer, opts)
  local p = pt.project()
  pt.trust(p.ws)
  require("radium").setup({ agent = "answer", notify = false, review = { save = true } })
  p.answer(answer)
  vim.fn.mkdir(p.ws .. "/py", "p")
  vim.fn.writefile(CALC, p.ws .. "/py/calc.py")
  vim.fn.writefile(UTIL, p.ws .. "/py/util.py")
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local done
  require("radium.editor").send(1, 1, "improve", function(r) done = r end)
  pt.wait(function() return done ~= nil end)
  assert(done and done.ok, vim.inspect(done))
  require("radium").setup(opts or {})
  return p
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local function disk(p, rel)
  return vim.fn.filereadable(p.ws .. "/" .. rel) == 1 and vim.fn.readfile(p.ws .. "/" .. rel) or nil
end

local function bufof(p, rel)
  return vim.fn.bufnr(p.ws .. "/" .. rel)
end

-- :RadiumUndo with nothing left to take back says so as an error message.
local function nothing_to_undo(notes, what)
  local before = #notes.all
  vim.cmd("RadiumUndo")
  check(#notes.all > before and notes.last()[2] == vim.log.levels.ERROR, what .. ": " .. notes.text())
end

local function done()
  require("radium").setup({ review = { save = true } })
  vim.cmd("silent! %bwipeout!")
end

test("an accept in two files is one step: :RadiumUndo restores both, on disk and in their buffers; :RadiumRedo brings both back", function()
  local p = setup(TWO_FILES, { notify = true })
  local notes = pt.notes()
  vim.cmd("RadiumPreview all")
  local calc, util = bufof(p, "py/calc.py"), bufof(p, "py/util.py")
  notes.all = {}
  vim.cmd("RadiumReview accept")
  eq(disk(p, "py/calc.py"), CALC_NEW, "calc.py saved")
  eq(disk(p, "py/util.py"), UTIL_NEW, "util.py saved")
  eq({ vim.bo[calc].modified, vim.bo[util].modified }, { false, false }, "the buffers are their files")
  check(require("radium.project").tag(p.ws) ~= nil, "the record's tag is kept")
  eq(notes.all, {}, "quiet: " .. notes.text())
  vim.cmd("RadiumUndo")
  eq(disk(p, "py/calc.py"), CALC, "calc.py undone on disk")
  eq(disk(p, "py/util.py"), UTIL, "util.py undone on disk")
  eq(lines(calc), CALC, "calc.py's buffer follows")
  eq(lines(util), UTIL, "util.py's buffer follows")
  eq({ vim.bo[calc].modified, vim.bo[util].modified }, { false, false }, "unmodified after the undo")
  local said = notes.find("undone: record (")
  check(said and said[1]:find("py/calc.py", 1, true) and said[1]:find("py/util.py", 1, true), "both files named: " .. notes.text())
  vim.cmd("RadiumRedo")
  eq(disk(p, "py/calc.py"), CALC_NEW, "calc.py redone")
  eq(disk(p, "py/util.py"), UTIL_NEW, "util.py redone")
  eq({ lines(calc), lines(util) }, { CALC_NEW, UTIL_NEW }, "both buffers redone")
  vim.cmd("checktime")
  local msgs = vim.api.nvim_exec2("messages", { output = true }).output
  check(not msgs:find("W1[12]"), "no W11/W12 warning: " .. msgs)
  vim.cmd("RadiumUndo")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC, UTIL }, "undone again")
  nothing_to_undo(notes, "one step only")
  check(not notes.text():find("traceback", 1, true), "no stack traces: " .. notes.text())
  notes.stop()
  done()
end)

test(":RadiumApply all is one step too; u in a buffer still works", function()
  local p = setup(TWO_FILES)
  vim.cmd("RadiumApply all")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC_NEW, UTIL_NEW }, "both saved")
  local notes = pt.notes()
  vim.cmd("RadiumUndo")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC, UTIL }, "both undone by one :RadiumUndo")
  nothing_to_undo(notes, "one step")
  notes.stop()
  vim.cmd("RadiumRedo")
  local calc = bufof(p, "py/calc.py")
  vim.api.nvim_buf_call(calc, function() vim.cmd("silent undo") end)
  eq(lines(calc), CALC, "u in the buffer takes the redo back")
  eq(vim.bo[calc].modified, true, "the buffer is not saved then")
  done()
end)

test("a rejected hunk is not recorded; a review rejected whole saves nothing", function()
  local p = setup("```python path=py/calc.py\n" .. table.concat(CALC_NEW, "\n") .. "\n```")
  vim.cmd("RadiumPreview")
  local calc = vim.api.nvim_get_current_buf()
  eq(require("radium.review").pending()[calc], 2, "two hunks")
  vim.api.nvim_feedkeys(vim.keycode("ga"), "xt", false)
  local accepted = vim.deepcopy(CALC)
  accepted[1] = "import sys"
  eq(disk(p, "py/calc.py"), accepted, "ga saved the first hunk")
  vim.api.nvim_feedkeys(vim.keycode("]hgr"), "xt", false)
  eq(require("radium.review").pending()[calc], nil, "the review is over")
  eq(disk(p, "py/calc.py"), accepted, "gr saved nothing")
  eq(vim.bo[calc].modified, false, "the buffer is its file")
  local notes = pt.notes()
  vim.cmd("RadiumUndo")
  eq({ disk(p, "py/calc.py"), lines(calc) }, { CALC, CALC }, "the accepted hunk undone")
  nothing_to_undo(notes, "the rejected hunk was not recorded")
  vim.cmd("RadiumPreview")
  vim.api.nvim_feedkeys(vim.keycode("gR"), "xt", false)
  eq({ disk(p, "py/calc.py"), vim.bo[calc].modified }, { CALC, false }, "gR: the file untouched")
  nothing_to_undo(notes, "nothing recorded by gR")
  notes.stop()
  done()
end)

test("a new file made by the review is removed by :RadiumUndo and made again by :RadiumRedo", function()
  local p = setup("```lua path=lua/deep/new.lua\nreturn { new = true }\n```", { notify = true })
  local notes = pt.notes()
  vim.cmd("RadiumPreview")
  eq(vim.api.nvim_buf_get_name(0), p.ws .. "/lua/deep/new.lua", "the review opened the new file")
  vim.api.nvim_feedkeys(vim.keycode("ga"), "xt", false)
  eq(disk(p, "lua/deep/new.lua"), { "return { new = true }" }, "created with its folders")
  vim.cmd("RadiumUndo")
  eq(disk(p, "lua/deep/new.lua"), nil, "removed by the undo")
  check(notes.find("undone: record (lua/deep/new.lua)"), "said: " .. notes.text())
  vim.cmd("RadiumRedo")
  eq(disk(p, "lua/deep/new.lua"), { "return { new = true }" }, "made again by the redo")
  check(not notes.text():find("traceback", 1, true), "no stack traces: " .. notes.text())
  notes.stop()
  done()
end)

test("a buffer with unsaved changes is saved with them, said once; :RadiumUndo takes back the accepted hunks only", function()
  local p = setup(TWO_FILES)
  vim.cmd("RadiumPreview all")
  local calc, util = bufof(p, "py/calc.py"), bufof(p, "py/util.py")
  vim.api.nvim_buf_set_lines(calc, 2, 3, false, { "def add(a, b):  # mine" })
  vim.api.nvim_buf_set_lines(util, 0, 0, false, { "# my note" })
  eq({ vim.bo[calc].modified, vim.bo[util].modified }, { true, true }, "unsaved changes in both")
  local notes = pt.notes()
  vim.cmd("RadiumReview accept")
  local mine_new, mine_old = vim.deepcopy(CALC_NEW), vim.deepcopy(CALC)
  mine_new[3], mine_old[3] = "def add(a, b):  # mine", "def add(a, b):  # mine"
  eq(disk(p, "py/calc.py"), mine_new, "calc.py saved with the accepted hunks and the user's line")
  eq(disk(p, "py/util.py"), { "# my note", "def util():", "    return 2" }, "util.py too")
  local said = vim.tbl_filter(function(x) return tostring(x[1]):find("saved the unsaved changes of", 1, true) end, notes.all)
  eq(#said, 1, "said once: " .. notes.text())
  eq(said[1] and said[1][2], vim.log.levels.WARN, "as a warning")
  check(said[1] and said[1][1]:find("py/calc.py", 1, true) and said[1][1]:find("py/util.py", 1, true), "naming both files")
  vim.cmd("RadiumUndo")
  eq(disk(p, "py/calc.py"), mine_old, "the undo keeps the user's line")
  eq(lines(calc), mine_old, "in the buffer too")
  eq(disk(p, "py/util.py"), { "# my note", "def util():", "    return 1" }, "and the note")
  eq({ vim.bo[calc].modified, vim.bo[util].modified }, { false, false }, "the buffers are their files")
  notes.stop()
  done()
end)

test("review = { save = false }: accepts change the buffers only, nothing is recorded", function()
  local p = setup(TWO_FILES, { review = { save = false } })
  vim.cmd("RadiumPreview 1")
  vim.api.nvim_feedkeys(vim.keycode("gA"), "xt", false)
  local calc = bufof(p, "py/calc.py")
  eq(lines(calc), CALC_NEW, "gA changed the buffer")
  eq(vim.bo[calc].modified, true, "not saved")
  vim.cmd("RadiumApply 2")
  eq(lines(bufof(p, "py/util.py")), UTIL_NEW, ":RadiumApply changed the other buffer")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC, UTIL }, "the disk waits for :w")
  local notes = pt.notes()
  nothing_to_undo(notes, "nothing recorded")
  notes.stop()
  done()
end)

test("a refused record is a warning, not a stack trace; the files stay saved", function()
  local radium = require("radium")
  local p = setup(TWO_FILES)
  radium.register("no-record", "before_tool", function() return { action = "stop", reason = "not today" } end, { matcher = "record" })
  local notes = pt.notes()
  vim.cmd("RadiumApply 1")
  pt.wait(function() return notes.find("saved but not recorded") ~= nil end)
  local warn = notes.find("saved but not recorded")
  check(warn and warn[2] == vim.log.levels.WARN and warn[1]:find("not today", 1, true), "warned: " .. notes.text())
  eq(disk(p, "py/calc.py"), CALC_NEW, "saved")
  check(not notes.text():find("traceback", 1, true) and not notes.text():find("%.lua:%d+:"), "no stack traces: " .. notes.text())
  notes.stop()
  radium.unregister("no-record")
  done()
end)

test("a formatter on save (the buffer's, or one that rewrites the file) is recorded as the file now is", function()
  local p = setup(TWO_FILES)
  local group = vim.api.nvim_create_augroup("radium_test_format", { clear = true })
  vim.api.nvim_create_autocmd("BufWritePre", { group = group, pattern = "*/py/util.py", callback = function(ev)
    vim.api.nvim_buf_set_lines(ev.buf, -1, -1, false, { "# formatted" })
  end })
  vim.api.nvim_create_autocmd("BufWritePost", { group = group, pattern = "*/py/calc.py", callback = function(ev)
    vim.fn.writefile(vim.list_extend(vim.api.nvim_buf_get_lines(ev.buf, 0, -1, false), { "# tool" }), ev.file)
  end })
  local notes = pt.notes()
  vim.cmd("RadiumApply all")
  vim.api.nvim_del_augroup_by_id(group)
  eq(disk(p, "py/util.py"), vim.list_extend(vim.deepcopy(UTIL_NEW), { "# formatted" }), "util.py formatted in the buffer")
  eq(disk(p, "py/calc.py"), vim.list_extend(vim.deepcopy(CALC_NEW), { "# tool" }), "calc.py rewritten after the write")
  check(not notes.find("not recorded"), "recorded: " .. notes.text())
  vim.cmd("RadiumUndo")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC, UTIL }, "both undone")
  eq({ lines(bufof(p, "py/calc.py")), lines(bufof(p, "py/util.py")) }, { CALC, UTIL }, "and their buffers")
  notes.stop()
  done()
end)

test("a buffer that cannot be saved is left out with a warning; the other files are one step", function()
  local p = setup(TWO_FILES)
  vim.cmd("RadiumPreview all")
  local calc = bufof(p, "py/calc.py")
  vim.bo[calc].readonly = true
  local notes = pt.notes()
  vim.cmd("silent RadiumReview accept") -- silent: no W10 for the change itself
  local warn = notes.find("not saved, so not recorded")
  check(warn and warn[2] == vim.log.levels.WARN and warn[1]:find("py/calc.py", 1, true), "warned: " .. notes.text())
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC, UTIL_NEW }, "util.py saved, calc.py not")
  eq({ lines(calc), vim.bo[calc].modified }, { CALC_NEW, true }, "calc.py's buffer has the change, unsaved")
  vim.cmd("RadiumUndo")
  eq({ disk(p, "py/calc.py"), disk(p, "py/util.py") }, { CALC, UTIL }, "the undo took util.py back")
  eq(lines(calc), CALC_NEW, "and left calc.py's buffer alone")
  check(not notes.text():find("traceback", 1, true), "no stack traces: " .. notes.text())
  notes.stop()
  done()
end)
