-- An agent's write (and :RadiumUndo of it) to a file whose buffer has
-- unsaved changes: merged into the buffer, never reloaded; the user's line
-- and the agent's change both survive, the buffer stays modified, a message
-- names the file, conflicts are marked and listed. Real example agent.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

if vim.fn.exists(":RadiumUndo") ~= 2 then
  vim.cmd("runtime plugin/radium.lua") -- run alone (RADIUM_SPECS=merge)
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

-- Waits for the merges in flight (they run off the main loop).
local function merged()
  pt.wait(function() return require("radium.merge").running == 0 end, 15000)
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

-- Opens price.py with an unsaved line above its text.
local function unsaved_buffer(p)
  vim.fn.writefile({ "import os", "rate=1", "end" }, p.ws .. "/price.py")
  vim.cmd("edit " .. p.ws .. "/price.py")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "# my unsaved line" })
  return buf
end

test("an agent's write to a modified buffer is merged into it, kept unsaved, and :RadiumUndo merges again", function()
  local p = pt.project()
  pt.trust(p.ws)
  local buf = unsaved_buffer(p)
  local saved = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    vim.schedule(function() on_choice(items[1]) end)
  end
  local notes = pt.notes()
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "no session: " .. tostring(chat.failed))
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  -- The agent reads and writes the disk itself, as Claude Code does.
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "selfreplace price.py rate=1 rate=2" })
  vim.cmd("write")
  pt.wait(function() return chat.turns and chat.turns > 0 and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
  merged()
  vim.ui.select = saved
  eq(vim.fn.readfile(p.ws .. "/price.py"), { "import os", "rate=2", "end" }, "the agent's text on disk")
  eq(lines(buf), { "# my unsaved line", "import os", "rate=2", "end" }, "the user's line and the agent's change")
  eq(vim.bo[buf].modified, true, "the buffer stays modified ([+])")
  check(notes.find("price.py changed on disk and was merged into its buffer"), "said: " .. notes.text())
  -- No W11/W12 later: Neovim took the file's new time as read.
  vim.cmd("checktime")
  local msgs = vim.api.nvim_exec2("messages", { output = true }).output
  check(not msgs:find("W1[12]"), "no W11/W12: " .. msgs)
  -- The merge is one undo step in the buffer.
  vim.api.nvim_buf_call(buf, function() vim.cmd("silent undo") end)
  eq(lines(buf), { "# my unsaved line", "import os", "rate=1", "end" }, "u takes the merge back in one step")
  vim.api.nvim_buf_call(buf, function() vim.cmd("silent redo") end)
  -- :RadiumUndo takes the agent's change back on disk; the buffer is merged
  -- again and keeps the user's line.
  vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))
  vim.cmd("RadiumUndo")
  merged()
  eq(vim.fn.readfile(p.ws .. "/price.py"), { "import os", "rate=1", "end" }, "the agent's change undone on disk")
  eq(lines(buf), { "# my unsaved line", "import os", "rate=1", "end" }, "the user's line is still there")
  eq(vim.bo[buf].modified, true, "still modified")
  vim.api.nvim_buf_call(buf, function() vim.cmd("silent write") end)
  eq(vim.fn.readfile(p.ws .. "/price.py"), { "# my unsaved line", "import os", "rate=1", "end" }, ":w saves the merged text")
  notes.stop()
  close_all()
end)

test("a conflict between the unsaved text and the change on disk is marked in the buffer and listed", function()
  local p = pt.project()
  local buf = unsaved_buffer(p)
  vim.api.nvim_buf_set_lines(buf, 2, 3, false, { "rate=3" }) -- the user changed the same line
  local engine = require("radium").engine(p.ws)
  local w = engine:request({ command = "str-replace", cwd = p.ws, args = { path = "price.py", old = "rate=1", new = "rate=2" } })
  assert(w.ok, vim.inspect(w))
  local notes = pt.notes()
  require("radium.writes").sync(p.ws .. "/price.py", { seq = w.data.seq, root = p.ws })
  merged()
  eq(lines(buf), { "# my unsaved line", "import os", "<<<<<<< ours", "rate=3", "||||||| original", "rate=1", "=======", "rate=2", ">>>>>>> theirs", "end" }, "diff3 markers")
  eq(vim.bo[buf].modified, true, "modified")
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  eq(qf.title, "radium conflicts", "the quickfix list")
  eq(#qf.items, 1, "one conflict listed")
  eq(qf.items[1].lnum, 3, "at its <<<<<<< line")
  check(notes.find("price.py: 1 conflict(s)"), "said: " .. notes.text())
  notes.stop()
  close_all()
end)

test("a change whose base cannot be found leaves the modified buffer as it is and says why", function()
  local p = pt.project()
  local buf = unsaved_buffer(p)
  vim.fn.writefile({ "changed", "by someone else" }, p.ws .. "/price.py")
  local notes = pt.notes()
  -- No seq (an unknown base): nothing to merge from.
  require("radium.writes").sync(p.ws .. "/price.py", { root = p.ws })
  merged()
  eq(lines(buf), { "# my unsaved line", "import os", "rate=1", "end" }, "the buffer is kept")
  eq(vim.bo[buf].modified, true, "and modified")
  check(notes.find("price.py changed on disk, but your unsaved changes are kept as they are (invalid argument: `merge`: missing the base"), "said: " .. notes.text())
  -- A seq of another file: refused, the buffer kept.
  vim.fn.writefile({ "x" }, p.ws .. "/other.txt")
  local w = require("radium").engine(p.ws):request({ command = "str-replace", cwd = p.ws, args = { path = "other.txt", old = "x", new = "y" } })
  require("radium.writes").sync(p.ws .. "/price.py", { seq = w.data.seq, root = p.ws })
  merged()
  eq(lines(buf), { "# my unsaved line", "import os", "rate=1", "end" }, "kept again")
  check(notes.find("changed `other.txt`, not `price.py`"), "said: " .. notes.text())
  notes.stop()
  close_all()
end)

test("text typed while a merge runs is kept: the merge is made again from it; merges of one buffer run in order", function()
  local p = pt.project()
  local buf = unsaved_buffer(p)
  local engine = require("radium").engine(p.ws)
  local w = engine:request({ command = "str-replace", cwd = p.ws, args = { path = "price.py", old = "rate=1", new = "rate=2" } })
  local notes = pt.notes()
  require("radium.writes").sync(p.ws .. "/price.py", { seq = w.data.seq, root = p.ws })
  -- Typed before the engine answers (the callback runs on a later loop turn).
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "# typed meanwhile" })
  merged()
  eq(lines(buf), { "# my unsaved line", "import os", "rate=2", "end", "# typed meanwhile" }, "both lines and the change")
  -- An undo right after: its merge waits for the write's, then runs.
  local w2 = engine:request({ command = "str-replace", cwd = p.ws, args = { path = "price.py", old = "rate=2", new = "rate=5" } })
  require("radium.writes").sync(p.ws .. "/price.py", { seq = w2.data.seq, root = p.ws })
  local u = engine:request({ command = "undo", cwd = p.ws })
  require("radium.writes").sync(p.ws .. "/price.py", { seq = u.data.undone.seq, root = p.ws })
  merged()
  eq(vim.fn.readfile(p.ws .. "/price.py"), { "import os", "rate=2", "end" }, "the second change undone on disk")
  eq(lines(buf), { "# my unsaved line", "import os", "rate=2", "end", "# typed meanwhile" }, "the buffer follows, keeping both lines")
  eq(vim.bo[buf].modified, true, "modified")
  notes.stop()
  close_all()
end)

test(":RadiumUndo of a step of two files merges into both modified buffers", function()
  local p = pt.project()
  local texts = { ["a.py"] = { "a = 1", "", "mid", "", "z = 0" }, ["b.py"] = { "b = 1", "", "mid", "", "z = 0" } }
  local bufs, old = {}, {}
  for name, t in pairs(texts) do
    vim.fn.writefile(t, p.ws .. "/" .. name)
    old[name] = table.concat(t, "\n") .. "\n"
  end
  -- A step of two files (as an accepted review records it).
  local engine = require("radium").engine(p.ws)
  local files = {}
  for name, t in pairs(texts) do
    local changed = vim.deepcopy(t)
    changed[1] = changed[1]:gsub("1", "2")
    vim.fn.writefile(changed, p.ws .. "/" .. name)
    files[#files + 1] = { path = name, old_text = old[name] }
  end
  local r = engine:request({ command = "record", cwd = p.ws, args = { files = files } })
  assert(r.ok, vim.inspect(r))
  for name in pairs(texts) do
    vim.cmd("edit " .. p.ws .. "/" .. name)
    bufs[name] = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(bufs[name], 2, 3, false, { "mid, mine" })
  end
  vim.cmd("RadiumUndo")
  merged()
  for name, t in pairs(texts) do
    eq(vim.fn.readfile(p.ws .. "/" .. name), t, name .. " undone on disk")
    local want = vim.deepcopy(t)
    want[3] = "mid, mine"
    eq(lines(bufs[name]), want, name .. ": the user's line kept, the step taken back")
    eq(vim.bo[bufs[name]].modified, true, name .. " still modified")
  end
  close_all()
end)

test("a write through radium is merged over the unsaved text the agent was served: what it approved, no conflict", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.fn.writefile({ "on disk" }, p.ws .. "/draft.txt")
  vim.cmd("edit " .. p.ws .. "/draft.txt")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "unsaved" })
  local saved = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    vim.schedule(function() on_choice(items[1]) end)
  end
  local notes = pt.notes()
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "no session: " .. tostring(chat.failed))
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  -- The agent reads the file through radium (it is served the buffer) and
  -- writes through radium (fs/write_text_file), as Gemini CLI does.
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "write draft.txt agent text" })
  vim.cmd("write")
  pt.wait(function() return chat.turns and chat.turns > 0 and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
  merged()
  vim.ui.select = saved
  eq(vim.fn.readfile(p.ws .. "/draft.txt"), { "agent text" }, "the agent's text on disk")
  eq(lines(buf), { "agent text" }, "the buffer shows what was approved (-unsaved +agent text), no markers")
  eq(vim.bo[buf].modified, false, "and is the file")
  check(notes.find("draft.txt changed on disk and its buffer now shows it"), "said: " .. notes.text())
  notes.stop()
  close_all()
end)
