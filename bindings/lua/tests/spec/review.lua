-- Applying and reviewing answers: the selection is followed while the agent
-- runs (lines inserted above), undo then apply again, a changed selection is
-- refused, blocks for other files (and new ones), a review accepted and
-- rejected per hunk with its keys, a charwise selection.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local RUST = { "use std::io;", "", "fn main() {", "    println!(\"hi\");", "}", "", "fn other() {}" }

local function setup(answer, delay)
  local p = pt.project()
  pt.trust(p.ws)
  require("radium").setup({ agent = "answer", notify = false })
  p.answer(answer, delay)
  vim.fn.writefile(RUST, p.ws .. "/src/main.rs")
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  return p, vim.api.nvim_get_current_buf()
end

local function send(first, last, cols)
  local done
  require("radium.editor").send(first, last, "improve", function(r) done = r end, cols)
  return function()
    pt.wait(function() return done ~= nil end)
    assert(done and done.ok, vim.inspect(done))
  end
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
end

local NEW_MAIN = "```rust\nfn main() {\n    println!(\"hello\");\n}\n```"

test("lines inserted above the selection while the agent runs: apply still lands on it", function()
  local _, buf = setup(NEW_MAIN, 0.4)
  local finish = send(3, 5)
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "// a header", "use std::fmt;" })
  vim.api.nvim_buf_set_lines(buf, 8, 8, false, { "// below" })
  finish()
  vim.cmd("RadiumApply")
  eq(lines(buf), { "// a header", "use std::fmt;", "use std::io;", "", "fn main() {", "    println!(\"hello\");", "}", "", "// below", "fn other() {}" },
    "the function replaced, the lines above and below kept")
end)

test("apply, undo, apply again: the same text, nothing eaten", function()
  local _, buf = setup(NEW_MAIN)
  send(3, 5)()
  vim.cmd("RadiumApply")
  local once = lines(buf)
  eq(once, { "use std::io;", "", "fn main() {", "    println!(\"hello\");", "}", "", "fn other() {}" }, "applied")
  vim.cmd("silent undo")
  eq(lines(buf), RUST, "u takes it back in one step")
  vim.cmd("RadiumApply")
  eq(lines(buf), once, "applied again the same")
  vim.cmd("RadiumApply")
  eq(lines(buf), once, "applying on top of itself changes nothing")
end)

test("a selection changed while the agent ran: apply refuses and says why", function()
  local _, buf = setup(NEW_MAIN, 0.3)
  local finish = send(3, 5)
  vim.api.nvim_buf_set_lines(buf, 3, 4, false, { "    println!(\"changed by hand\");" })
  finish()
  local notes = pt.notes()
  vim.cmd("RadiumApply")
  notes.stop()
  eq(notes.last(), { "radium: the selected text changed since it was sent (now lines 3-5); select it again and :RadiumSend", vim.log.levels.ERROR }, "refused")
  eq(lines(buf)[4], "    println!(\"changed by hand\");", "the buffer is untouched")
end)

test("blocks for another file and for a new one go there; the selection's block to the selection", function()
  local p, buf = setup(table.concat({
    "Three files:",
    "```python path=py/util.py",
    "def util():\n    return 2",
    "```",
    "```lua path=lua/new.lua",
    "return { new = true }",
    "```",
    "```rust",
    "fn main() {}",
    "```",
  }, "\n"))
  vim.fn.mkdir(p.ws .. "/py", "p")
  vim.fn.writefile({ "import os", "", "def util():", "    return 1" }, p.ws .. "/py/util.py")
  send(3, 5)()
  eq(require("radium.editor").list_lines()[1], "1. [python] py/util.py def util():", "the listing names the file")
  vim.cmd("RadiumApply all")
  eq(lines(buf), { "use std::io;", "", "fn main() {}", "", "fn other() {}" }, "the block with no path replaced the selection")
  local util = vim.fn.bufnr(p.ws .. "/py/util.py")
  eq(lines(util), { "def util():", "    return 2" }, "py/util.py's buffer has its block")
  eq(vim.fn.readfile(p.ws .. "/py/util.py"), { "def util():", "    return 2" }, "and it is saved")
  local new = vim.fn.bufnr(p.ws .. "/lua/new.lua")
  check(new > 0, "a buffer for the new file")
  eq(lines(new), { "return { new = true }" }, "its text")
  eq(vim.fn.readfile(p.ws .. "/lua/new.lua"), { "return { new = true }" }, "saved: the file and its folder were made")
  vim.api.nvim_buf_call(util, function() vim.cmd("silent undo") end)
  eq(lines(util), { "import os", "", "def util():", "    return 1" }, "one undo step per buffer")
end)

test("a review per hunk: accept one, reject one, keys, q closes", function()
  local p, buf = setup("```python path=py/calc.py\nimport sys\n\ndef add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return b - a\n```")
  vim.fn.mkdir(p.ws .. "/py", "p")
  vim.fn.writefile({ "import os", "", "def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return a - b" }, p.ws .. "/py/calc.py")
  send(1, 1)()
  vim.cmd("RadiumPreview 1")
  local calc = vim.api.nvim_get_current_buf()
  check(calc ~= buf, "the review opened the other file")
  eq(vim.api.nvim_buf_get_name(calc), p.ws .. "/py/calc.py", "its buffer")
  eq(require("radium.review").pending()[calc], 2, "two hunks")
  local marks = vim.api.nvim_buf_get_extmarks(calc, require("radium.review").ns, 0, -1, { details = true })
  local virt = {}
  for _, m in ipairs(marks) do
    for _, vl in ipairs(m[4].virt_lines or {}) do virt[#virt + 1] = vl[1][1] end
  end
  check(vim.tbl_contains(virt, "import sys") and vim.tbl_contains(virt, "    return b - a"), "the new lines are shown: " .. vim.inspect(virt))
  eq(vim.api.nvim_win_get_cursor(0)[1], 1, "the cursor on the first hunk")
  vim.api.nvim_feedkeys(vim.keycode("ga"), "xt", false)
  eq(lines(calc)[1], "import sys", "ga accepted the first hunk")
  vim.api.nvim_feedkeys(vim.keycode("]hgr"), "xt", false)
  eq(lines(calc), { "import sys", "", "def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return a - b" }, "gr rejected the second")
  eq(require("radium.review").pending()[calc], nil, "the review is over")
  eq(vim.fn.maparg("ga", "n", false, true).buffer, nil, "its keys are gone")
  vim.cmd("silent undo")
  eq(lines(calc)[1], "import os", "u takes the accepted hunk back")

  vim.cmd("RadiumPreview 1")
  eq(require("radium.review").pending()[calc], 2, "reviewed again")
  vim.api.nvim_feedkeys(vim.keycode("gA"), "xt", false)
  eq(lines(calc)[7], "    return b - a", "gA accepted every hunk")
  vim.cmd("silent undo")
  eq(lines(calc)[1], "import os", "in one undo step")
  vim.cmd("RadiumPreview")
  vim.api.nvim_feedkeys("q", "xt", false)
  eq(require("radium.review").pending()[calc], nil, "q closed it")
  eq(lines(calc)[1], "import os", "nothing applied")
  eq(#vim.api.nvim_buf_get_extmarks(calc, require("radium.review").ns, 0, -1, {}), 0, "no marks left")
end)

test("a charwise selection stays charwise", function()
  local _, buf = setup("```rust\n\"bye\"\n```")
  vim.api.nvim_buf_set_lines(buf, 3, 4, false, { "    println!(\"hi\", x);" })
  send(4, 4, { 13, 17 })()
  eq(require("radium.editor").last.answer.context.selection, "\"hi\"", "the characters were sent")
  vim.api.nvim_buf_set_text(buf, 3, 0, 3, 0, { "  " })
  vim.cmd("RadiumApply")
  eq(lines(buf)[4], "      println!(\"bye\", x);", "only the characters replaced, after the text moved right")
end)

test("]h / [h go on to the next / previous file's hunks, also from a file whose review is over", function()
  local p, buf = setup(table.concat({
    "```python path=py/a.py", "A1\nkeep\nA2", "```",
    "```python path=py/b.py", "B1\nkeep\nB2", "```",
  }, "\n"))
  vim.fn.mkdir(p.ws .. "/py", "p")
  vim.fn.writefile({ "a1", "keep", "a2" }, p.ws .. "/py/a.py")
  vim.fn.writefile({ "b1", "keep", "b2" }, p.ws .. "/py/b.py")
  send(1, 1)()
  vim.cmd("RadiumPreview all")
  local a, b = vim.fn.bufnr(p.ws .. "/py/a.py"), vim.fn.bufnr(p.ws .. "/py/b.py")
  eq(require("radium.review").pending(), { [a] = 2, [b] = 2 }, "two files, two hunks each")
  eq({ vim.api.nvim_get_current_buf(), vim.api.nvim_win_get_cursor(0)[1] }, { a, 1 }, "the first hunk of a.py")
  local function at() return { vim.api.nvim_get_current_buf(), vim.api.nvim_win_get_cursor(0)[1] } end
  vim.api.nvim_feedkeys(vim.keycode("]h"), "xt", false)
  eq(at(), { a, 3 }, "]h: a.py's second hunk")
  vim.api.nvim_feedkeys(vim.keycode("]h"), "xt", false)
  eq(at(), { b, 1 }, "]h past a.py's last hunk: b.py's first")
  vim.api.nvim_feedkeys(vim.keycode("[h"), "xt", false)
  eq(at(), { a, 3 }, "[h before b.py's first hunk: a.py's last")
  vim.api.nvim_feedkeys(vim.keycode("gA"), "xt", false)
  eq(vim.api.nvim_buf_get_lines(a, 0, -1, false), { "A1", "keep", "A2" }, "a.py accepted")
  eq(require("radium.review").pending(), { [b] = 2 }, "a.py's review is over")
  vim.api.nvim_feedkeys(vim.keycode("]h"), "xt", false)
  eq(at(), { b, 1 }, "]h from a.py, reviewed: on to b.py")
  vim.api.nvim_feedkeys(vim.keycode("]h]h"), "xt", false)
  eq(at(), { b, 3 }, "no other file: ]h stays on b.py's last hunk")
  vim.api.nvim_feedkeys("q", "xt", false)
  eq(require("radium.review").pending(), {}, "every review over")
  eq(vim.fn.maparg("]h", "n", false, true).buffer, nil, "b.py's keys are gone")
  vim.api.nvim_set_current_buf(a)
  eq(vim.fn.maparg("]h", "n", false, true).buffer, nil, "a.py's ]h is gone with the last review")
  check(buf > 0, "the source buffer")
end)
