-- A chat turn is one undo step (:RadiumUndo takes back every file the
-- example agent wrote in it, :RadiumRedo brings them back); :RadiumRestore
-- lists the files a restore to before a prompt changes, asks, then puts
-- them back; an accept after an undo by another client prints no warning
-- the user did not cause.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin
require("radium.commands").define()

local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, vim.split(text, "\n"))
  vim.cmd("write")
end

local function turn_done(chat, turns)
  pt.wait(function() return (chat.turns or 0) >= turns and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
end

local function disk(p, rel)
  return vim.fn.filereadable(p.ws .. "/" .. rel) == 1 and vim.fn.readfile(p.ws .. "/" .. rel) or nil
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

-- A chat with the example agent whose turn wrote a.txt (through radium, then
-- itself) and b.txt (itself); `select` answers vim.ui.select meanwhile.
local function two_file_chat(p)
  pt.trust(p.ws)
  vim.fn.writefile({ "a" }, p.ws .. "/a.txt")
  vim.cmd("edit " .. p.ws .. "/a.txt")
  local saved = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    vim.schedule(function() on_choice(items[1]) end)
  end
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, tostring(chat.failed))
  say(chat, "twowrite a.txt b.txt hello")
  turn_done(chat, 1)
  vim.ui.select = saved
  eq({ disk(p, "a.txt"), disk(p, "b.txt") }, { { "hello again" }, { "hello" } }, "the turn wrote both")
  return chat
end

test("one :RadiumUndo takes a whole chat turn back (two files, written three times), one :RadiumRedo brings it back", function()
  local p = pt.project()
  local chat = two_file_chat(p)
  local a = vim.fn.bufnr(p.ws .. "/a.txt")
  vim.cmd("edit " .. p.ws .. "/a.txt")
  local notes = pt.notes()
  vim.cmd("RadiumUndo")
  eq({ disk(p, "a.txt"), disk(p, "b.txt") }, { { "a" }, nil }, "both files taken back by one undo")
  eq(vim.api.nvim_buf_get_lines(a, 0, -1, false), { "a" }, "a.txt's buffer follows")
  vim.cmd("RadiumRedo")
  eq({ disk(p, "a.txt"), disk(p, "b.txt") }, { { "hello again" }, { "hello" } }, "both brought back by one redo")
  notes.stop()
  check(notes.find("undone: ") ~= nil, "said: " .. notes.text())
  eq(#chat.prompts, 1, "the prompt is kept")
  check(type(chat.prompts[1].tag_before) == "string", "with the tag of before it")
  close_all()
end)

test(":RadiumRestore lists the files first, asks, and puts them back to before the prompt (Cancel changes nothing)", function()
  local p = pt.project()
  local chat = two_file_chat(p)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local asked = {}
  local answer = "Cancel"
  local saved = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    asked[#asked + 1] = { items = items, prompt = opts.prompt }
    vim.schedule(function() on_choice(answer) end)
  end
  local notes = pt.notes()
  vim.cmd("RadiumRestore 1")
  pt.wait(function() return #asked == 1 end)
  vim.wait(50)
  eq(asked[1].items, { "Restore", "Cancel" }, "a question")
  check(asked[1].prompt:find("restore 2 file(s) to before prompt 1", 1, true) ~= nil, asked[1].prompt)
  local listed = notes.find("restore to before prompt 1 changes:")
  check(listed and listed[1]:find("a.txt", 1, true) and listed[1]:find("b.txt", 1, true), "the files first: " .. notes.text())
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  check(text:find("**restore** to before prompt 1", 1, true) ~= nil, "listed in the chat: " .. text)
  eq({ disk(p, "a.txt"), disk(p, "b.txt") }, { { "hello again" }, { "hello" } }, "Cancel: nothing changed")

  answer = "Restore"
  -- On the prompt in the chat buffer, without a number.
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)) do
    if l == "twowrite a.txt b.txt hello" then row = i end
  end
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  local done
  require("radium.chat_restore").restore(chat, nil, function(data) done = data end)
  pt.wait(function() return done ~= nil end)
  vim.ui.select = saved
  eq({ disk(p, "a.txt"), disk(p, "b.txt") }, { { "a" }, nil }, "restored to before the prompt")
  check(notes.find("restored to before prompt 1: a.txt, b.txt") ~= nil, notes.text())
  vim.cmd("RadiumRestore 9")
  check(notes.find("no prompt 9 in this chat (1 to 1)") ~= nil, notes.text())
  notes.stop()
  close_all()
end)

test(":RadiumRestore with a bad number or outside a chat says so", function()
  local notes = pt.notes()
  vim.cmd("enew")
  vim.cmd("RadiumRestore")
  check(notes.find("not in a chat") ~= nil, notes.text())
  vim.cmd("RadiumRestore x")
  check(notes.find("takes a prompt's number") ~= nil, notes.text())
  notes.stop()
end)

test("an accept after another client's undo of the chat's writes warns about nothing", function()
  local p = pt.project()
  local chat = two_file_chat(p)
  -- Another client (rad undo in a terminal) takes the turn back, without a tag.
  local r = require("radium.project").engine(p.ws):request({ command = "undo", cwd = p.ws })
  assert(r.ok, vim.inspect(r))
  -- Then the user accepts a change: saved and recorded with the project's tag.
  vim.cmd("edit " .. p.ws .. "/c.txt")
  local buf = vim.api.nvim_get_current_buf()
  local notes = pt.notes()
  require("radium.record").run(function()
    require("radium.record").before(buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "accepted" })
  end)
  notes.stop()
  eq(disk(p, "c.txt"), { "accepted" }, "saved")
  local warned = vim.tbl_filter(function(n) return n[2] == vim.log.levels.WARN end, notes.all)
  eq(warned, {}, "no warning: " .. notes.text())
  close_all()
end)
