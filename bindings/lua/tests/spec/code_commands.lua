-- :RadiumReferences and :RadiumRename as a user runs them, answered by the
-- scripted language server of tests/lsp (started by the engine) or the
-- syntax fallback: the quickfix list (definition first, columns in bytes on
-- a non-ASCII line, the buffer's unsaved text searched), the rename opened
-- in the review across files (one hunk accepted, one rejected, one
-- :RadiumUndo), refusals with unsaved buffers, and the errors.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local APP = { "from util import total", "", "print('é', total)" }
local UTIL = { "total = 1" }
local MORE = { "from util import total", "x = total + 1" }

local function code() return require("radium.code") end

require("radium.commands").define()

local function idle()
  check(pt.wait(function() return code().running == 0 end, 20000), "the request ended")
end

local function setup(server)
  local p = pt.project()
  if server then
    vim.fn.writefile({
      "[python]",
      string.format("command = [\"python3\", %q]", h.repo .. "/tests/lsp/scripted_server.py"),
    }, p.home .. "/lsp.toml")
  else
    vim.fn.writefile({ "[python]", "disabled = true" }, p.home .. "/lsp.toml")
  end
  require("radium").setup({ notify = true, review = { save = true } })
  vim.fn.writefile(APP, p.ws .. "/app.py")
  vim.fn.writefile(UTIL, p.ws .. "/util.py")
  vim.fn.writefile(MORE, p.ws .. "/more.py")
  vim.cmd("edit " .. p.ws .. "/app.py")
  return p
end

local function disk(p, rel)
  return vim.fn.readfile(p.ws .. "/" .. rel)
end

local function no_trace(notes, what)
  check(not notes.text():find("traceback", 1, true) and not notes.text():find("%.lua:%d+:"), what .. ": no stack trace: " .. notes.text())
end

local function done()
  vim.cmd("silent! cclose")
  vim.cmd("silent! %bwipeout!")
end

test(":RadiumReferences fills the quickfix list from the server, the definition first; the main loop runs", function()
  local p = setup(true)
  local notes = pt.notes()
  vim.api.nvim_win_set_cursor(0, { 3, 13 }) -- on `total` after 'é'
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(5, 5, vim.schedule_wrap(function() ticks = ticks + 1 end))
  local t0 = vim.uv.hrtime()
  vim.cmd("RadiumReferences")
  eq(code().running, 1, "answered later")
  idle()
  local ms = (vim.uv.hrtime() - t0) / 1e6
  timer:stop()
  timer:close()
  h.ticked(ticks, ms, 5, "while the server started")
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  check(qf.title:find("radium references: total (engine: lsp (", 1, true), "title: " .. qf.title)
  eq(#qf.items, 5, "two in app.py, one in util.py, two in more.py: " .. vim.inspect(qf.items))
  local first = qf.items[1]
  eq({ vim.fn.bufname(first.bufnr):match("[^/]+$"), first.lnum, first.col }, { "util.py", 1, 1 }, "the definition first")
  check(first.text:find("^%[definition%] total = 1"), first.text)
  local on_e
  for _, it in ipairs(qf.items) do
    if vim.fn.bufname(it.bufnr):match("app%.py$") and it.lnum == 3 then on_e = it end
  end
  -- "print('é', total)": character column 12, byte column 13 (é is two bytes).
  eq(on_e and on_e.col, 13, "the byte column on the non-ASCII line")
  eq(vim.bo[vim.api.nvim_get_current_buf()].buftype, "quickfix", "the list is open")
  check(notes.find("5 reference(s) of `total` in 3 file(s); engine: lsp"), notes.text())
  no_trace(notes, "references")
  notes.stop()
  done()
  vim.fn.delete(p.ws, "rf")
end)

test(":RadiumReferences reads the unsaved buffer; the fallback is said as a warning; errors are messages", function()
  local p = setup(false)
  local notes = pt.notes()
  vim.api.nvim_buf_set_lines(0, 1, 2, false, { "y = total" })
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { "# total in a comment" })
  vim.api.nvim_win_set_cursor(0, { 1, 18 })
  vim.cmd("RadiumReferences")
  idle()
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  check(qf.title:find("engine: syntax", 1, true), qf.title)
  local lines = {}
  for _, it in ipairs(qf.items) do
    if vim.fn.bufname(it.bufnr):match("app%.py$") then lines[#lines + 1] = it.lnum end
  end
  table.sort(lines)
  eq(lines, { 1, 2, 3 }, "the unsaved line 2 counts, the comment does not")
  local w = notes.find("reference(s) of `total`")
  check(w and w[2] == vim.log.levels.WARN and w[1]:find("not type-aware", 1, true), "warned: " .. notes.text())
  notes.all = {}
  vim.cmd("wincmd p")
  vim.cmd("RadiumReferences nowhere")
  idle()
  local last = notes.last()
  check(last[2] == vim.log.levels.WARN and tostring(last[1]):find("`nowhere` does not occur", 1, true), "not found: " .. notes.text())
  notes.all = {}
  vim.cmd("enew")
  vim.cmd("RadiumReferences total")
  last = notes.last()
  check(last[2] == vim.log.levels.ERROR and tostring(last[1]):find("this buffer has no file", 1, true), "no file: " .. notes.text())
  no_trace(notes, "errors")
  notes.stop()
  done()
  vim.fn.delete(p.ws, "rf")
end)

test(":RadiumRename opens the review across files; one accepted, one rejected; :RadiumUndo takes it back", function()
  local p = setup(true)
  local notes = pt.notes()
  vim.api.nvim_win_set_cursor(0, { 1, 18 })
  vim.cmd("RadiumRename amount")
  idle()
  local review = require("radium.review")
  local app, util, more = vim.fn.bufnr(p.ws .. "/app.py"), vim.fn.bufnr(p.ws .. "/util.py"), vim.fn.bufnr(p.ws .. "/more.py")
  local pending = review.pending()
  eq({ pending[app] ~= nil, pending[util] ~= nil, pending[more] ~= nil }, { true, true, true }, "three files under review: " .. notes.text())
  eq({ disk(p, "app.py"), disk(p, "util.py"), disk(p, "more.py") }, { APP, UTIL, MORE }, "nothing written yet")
  check(notes.find("rename `total` → `amount`"), notes.text())
  review.all(true) -- accepts every hunk ...
  eq(disk(p, "util.py"), { "amount = 1" }, "util.py renamed")
  eq(disk(p, "app.py"), { "from util import amount", "", "print('é', amount)" }, "app.py renamed")
  eq(disk(p, "more.py"), { "from util import amount", "x = amount + 1" }, "more.py renamed")
  vim.cmd("RadiumUndo")
  eq({ disk(p, "app.py"), disk(p, "util.py"), disk(p, "more.py") }, { APP, UTIL, MORE }, "one :RadiumUndo took back all three")
  eq(vim.api.nvim_buf_get_lines(util, 0, -1, false), UTIL, "the buffer followed")
  -- ... and now per file: accept util.py, reject more.py and app.py (the
  -- write after :RadiumUndo asks nothing: Neovim knows the file as read).
  vim.api.nvim_set_current_buf(app)
  vim.api.nvim_win_set_cursor(0, { 1, 18 })
  vim.cmd("RadiumRename amount")
  idle()
  review.accept(util, true)
  review.reject(more, true)
  review.reject(app, true)
  eq({ disk(p, "util.py"), disk(p, "more.py") }, { { "amount = 1" }, MORE }, "only util.py written")
  no_trace(notes, "rename")
  notes.stop()
  done()
  vim.fn.delete(p.ws, "rf")
end)

test(":RadiumRename refuses unsaved buffers and bad names, says when nothing changes", function()
  local p = setup(false)
  local notes = pt.notes()
  vim.api.nvim_win_set_cursor(0, { 1, 18 })
  vim.cmd("RadiumRename 1x-y")
  local last = notes.last()
  check(last[2] == vim.log.levels.ERROR and tostring(last[1]):find("takes the new name", 1, true), "bad name: " .. notes.text())
  vim.cmd("RadiumRename total")
  check(notes.find("`total` is already its name"), notes.text())
  vim.api.nvim_buf_set_lines(0, 1, 2, false, { "# edited" })
  vim.cmd("RadiumRename amount")
  last = notes.last()
  check(last[2] == vim.log.levels.ERROR and tostring(last[1]):find("unsaved changes; :w first", 1, true), "unsaved: " .. notes.text())
  eq(code().running, 0, "nothing asked")
  vim.cmd("edit! " .. p.ws .. "/app.py")
  local util = vim.fn.bufadd(p.ws .. "/util.py")
  vim.fn.bufload(util)
  vim.api.nvim_buf_set_lines(util, 0, -1, false, { "total = 2" })
  vim.cmd("RadiumRename amount")
  idle()
  last = notes.last()
  check(last[2] == vim.log.levels.WARN and tostring(last[1]):find("util.py has unsaved changes", 1, true), "another file unsaved: " .. notes.text())
  eq(require("radium.review").pending(), {}, "no review opened")
  eq(disk(p, "util.py"), UTIL, "nothing written")
  no_trace(notes, "refusals")
  notes.stop()
  done()
  vim.fn.delete(p.ws, "rf")
end)

test(":RadiumRename renames the name under the cursor when two share its line", function()
  local p = setup(false)
  vim.fn.writefile({ "[typescript]", "disabled = true" }, p.home .. "/lsp.toml", "a")
  local notes = pt.notes()
  local js = { "let a = 1; function g(a) { return a; }", "console.log(a);" }
  vim.fn.writefile(js, p.ws .. "/m.js")
  vim.cmd("edit " .. p.ws .. "/m.js")
  vim.api.nvim_win_set_cursor(0, { 1, 22 }) -- on g's parameter
  vim.cmd("RadiumRename b")
  idle()
  require("radium.review").all(true)
  eq(disk(p, "m.js"), { "let a = 1; function g(b) { return b; }", "console.log(a);" }, "the parameter: " .. notes.text())
  vim.cmd("RadiumUndo")
  vim.api.nvim_win_set_cursor(0, { 1, 4 }) -- on the outer `a`
  vim.cmd("RadiumRename c")
  idle()
  require("radium.review").all(true)
  eq(disk(p, "m.js"), { "let c = 1; function g(a) { return a; }", "console.log(c);" }, "the outer one: " .. notes.text())
  no_trace(notes, "column")
  notes.stop()
  done()
  vim.fn.delete(p.ws, "rf")
end)
