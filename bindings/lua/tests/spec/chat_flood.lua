-- A chat under a flood (the example ACP agent, a real process): text that
-- arrives in thousands of events shows once, complete and in order, drawn
-- at most about once a frame; a command whose output arrives in thousands
-- of updates shows its last state; wiping the chat while its text waits
-- for the next frame is safe.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, vim.split(text, "\n"))
  vim.cmd("write")
end

local function open()
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "the chat's session did not open: " .. tostring(chat.failed))
  return chat
end

local function turn_done(chat)
  pt.wait(function() return chat.turns and chat.turns > 0 and not chat.running end, 30000)
  require("radium.chat_render").flush(chat)
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

test("a flood of 3,000 small chunks shows once, complete, in order, drawn about once a frame", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open()
  local draws = 0
  vim.api.nvim_buf_attach(chat.buf, false, { on_lines = function() draws = draws + 1 end })
  local t0 = vim.uv.hrtime()
  say(chat, "stamp 3000")
  turn_done(chat)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  -- The answer: the lines between its heading and the next one (long
  -- lines are shown broken: joined back without a separator).
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  local from = vim.fn.index(lines, "## example") + 1
  local to = vim.fn.index(lines, "## You", from) + 1
  check(from > 0 and to > from, "an answer under its heading")
  local answer = table.concat(lines, "", from + 1, to - 1)
  local stamps = vim.split(vim.trim(answer or ""), " ", { trimempty = true })
  eq(#stamps, 3000, "every chunk is there, once")
  local ordered = true
  for i = 2, #stamps do
    if #stamps[i] < #stamps[i - 1] or (#stamps[i] == #stamps[i - 1] and stamps[i] <= stamps[i - 1]) then
      ordered = false
    end
  end
  check(ordered, "in the order they were sent")
  -- Drawn when a frame (16 ms) has passed, not once a chunk: the turn's
  -- headings and the end add a few writes.
  check(draws <= ms / 16 + 10, string.format("%d writes to the buffer in %.0f ms for 3,000 chunks", draws, ms))
  close_all()
end)

test("a command whose output comes in 2,000 updates shows its whole output, folded, and its status", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open()
  say(chat, "toollines 2000 20")
  turn_done(chat)
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  eq(select(2, text:gsub("%*%*tool%*%*", "")), 1, "one entry for the call: " .. text:sub(1, 400))
  check(text:find("**tool** `$ seq 2000` (execute)", 1, true) ~= nil, "the entry names the command")
  local line = function(i) return "\n    " .. (i .. " " .. string.rep("l", 19)):sub(1, 19) .. "\n" end
  check(text:find(line(1), 1, true) ~= nil, "the output's first line")
  check(text:find("\n    … 1984 more lines\n", 1, true) ~= nil, "the middle left out")
  check(text:find(line(2000), 1, true) ~= nil, "the output's last line")
  check(text:find("The command ended.", 1, true) ~= nil, "the text after it")
  eq(require("radium.chat_render").status(chat, next(chat.tools)), "completed", "its status")
  close_all()
end)

test("wiping the chat while streamed text waits for the next frame is safe", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open()
  vim.v.errmsg = ""
  say(chat, "stream 20000 64")
  pt.wait(function() return (chat.streamed or 0) > 0 end)
  check((chat.streamed or 0) > 0, "the text began to arrive")
  vim.api.nvim_buf_delete(chat.buf, { force = true })
  -- Frames pass, the agent's text still arriving for a buffer that is gone.
  vim.wait(300, function() return false end, 10)
  eq(vim.v.errmsg, "", "no error")
  check(not vim.api.nvim_buf_is_valid(chat.buf), "the chat is gone")
  -- Another chat works as before.
  local again = open()
  say(again, "hello")
  turn_done(again)
  check(table.concat(vim.api.nvim_buf_get_lines(again.buf, 0, -1, false), "\n"):find("## example", 1, true) ~= nil, "a new chat answers")
  close_all()
end)

test("highlighting and folds by expression come back after a 100 KiB flood, and stay off in a chat over 1 MiB", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open()
  say(chat, "stream 100 1024")
  turn_done(chat)
  check(not chat.plain, "highlighting is back after 100 KiB")
  local win = vim.fn.bufwinid(chat.buf)
  eq(vim.wo[win].foldmethod, "expr", "folds by expression again")
  eq(vim.treesitter.highlighter.active[chat.buf] ~= nil or vim.bo[chat.buf].syntax == "markdown", true, "the chat is highlighted again")
  say(chat, "stream 1100 1024")
  turn_done(chat)
  check(chat.plain, "past 1 MiB the chat stays plain")
  eq(vim.treesitter.highlighter.active[chat.buf], nil, "no tree-sitter highlighter on it")
  -- The expression ran for every line written: the folds are kept as they are.
  eq(vim.wo[win].foldmethod, "manual", "folds kept, not computed again")
  -- A small turn afterwards leaves it plain too: the chat is still over 1 MiB.
  say(chat, "hello")
  turn_done(chat)
  check(chat.plain, "still plain after a short turn")
  close_all()
end)

test("a write of more than 8 KiB at once turns highlighting off for the flood; the turn's end brings it and the folds back", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open()
  local render = require("radium.chat_render")
  local win = vim.fn.bufwinid(chat.buf)
  render.begin_answer(chat)
  -- A model's pace: a few hundred bytes at a time stay highlighted.
  render.event(chat, { type = "text", text = string.rep("word ", 60) })
  render.flush(chat)
  check(not chat.plain, "a small write keeps the highlighting")
  -- A flood: one write of 9 KiB (well under the 64 KiB a turn streams
  -- before going plain anyway).
  render.event(chat, { type = "text", text = string.rep("flood line of text\n", 500) })
  check(chat.plain, "plain during the flood")
  eq(vim.treesitter.highlighter.active[chat.buf], nil, "no tree-sitter highlighter while it floods")
  eq(vim.wo[win].foldmethod, "manual", "no folds by expression while it floods")
  -- The parser's inline trees (one a paragraph, each edited at every
  -- write) are dropped while it floods.
  local parser = vim.treesitter.get_parser(chat.buf, "markdown", { error = false })
  if parser then
    eq(vim.tbl_count(parser:children()), 0, "no injected trees while it floods")
  end
  render.event(chat, { type = "turn_end", stop_reason = "end_turn" })
  check(not chat.plain, "highlighted again at the turn's end")
  eq(vim.wo[win].foldmethod, "expr", "folds by expression again")
  eq(vim.treesitter.highlighter.active[chat.buf] ~= nil or vim.bo[chat.buf].syntax == "markdown", true, "the chat is highlighted again")
  if parser then
    vim.treesitter.get_parser(chat.buf, "markdown"):parse(true)
    check(vim.treesitter.get_parser(chat.buf, "markdown"):children().markdown_inline ~= nil, "the inline trees are back once parsed")
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  eq(select(2, text:gsub("flood line of text", "")), 500, "every line of the flood is there")
  close_all()
end)

test("an 8 MB answer (polls of the flood back to back) is drawn whole and in order", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open()
  say(chat, "numbered 2000 4096")
  turn_done(chat)
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  local from = vim.fn.index(lines, "## example") + 1
  local to = vim.fn.index(lines, "## You", from) + 1
  local answer = table.concat(lines, "", from + 1, to - 1)
  local n, ordered = 0, true
  for i in answer:gmatch("(%d+) n") do
    ordered = ordered and tonumber(i) == n
    n = n + 1
  end
  eq(n, 2000, "every chunk is there, once")
  check(ordered, "in the order they were sent")
  check(chat.plain, "the flood left the chat plain (over 1 MiB)")
  close_all()
end)

test("a tool call's output is folded as before whatever its size and lines (split only where drawn)", function()
  local tools = require("radium.chat_tools")
  -- The fold as it was, splitting the whole output.
  local function reference(text)
    local lines = vim.split(text, "\n", { plain = true })
    if lines[#lines] == "" then lines[#lines] = nil end
    for i, l in ipairs(lines) do
      if #l > 500 and vim.fn.strchars(l) > 500 then lines[i] = vim.fn.strcharpart(l, 0, 500) .. "…" end
    end
    if #lines <= tools.FOLD_OVER then return lines end
    local out = vim.list_slice(lines, 1, tools.FOLD_KEEP)
    out[#out + 1] = string.format("… %d more lines", #lines - 2 * tools.FOLD_KEEP)
    vim.list_extend(out, lines, #lines - tools.FOLD_KEEP + 1, #lines)
    return out
  end
  local function numbered(n, width, sep)
    local t = {}
    for i = 1, n do t[i] = (i .. " " .. string.rep("é", width)) end
    return table.concat(t, sep or "\n")
  end
  local cases = {
    "", "\n", "one", "one\n", "a\n\nb\n\n", numbered(20, 3), numbered(21, 3) .. "\n", numbered(16, 3),
    numbered(17, 3), numbered(4000, 40) .. "\n", numbered(4000, 40), numbered(30, 3000), numbered(5, 9000) .. "\n",
    string.rep("x", 20000), numbered(25, 1) .. "\n" .. string.rep("y", 50000), string.rep("\n", 100),
  }
  for i, text in ipairs(cases) do
    eq(tools.fold(text), reference(text), "case " .. i .. " (" .. #text .. " bytes)")
  end
end)

test("a command's output updated 3,000 times rewrites only the lines that change, and ends as its whole output folded", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open()
  local render = require("radium.chat_render")
  render.begin_answer(chat)
  render.event(chat, { type = "tool_call", id = "t1", title = "seq 3000", kind = "execute", status = "in_progress", command = "seq 3000" })
  local written = 0
  vim.api.nvim_buf_attach(chat.buf, false, { on_lines = function(_, _, _, first, last_old, last_new)
    written = written + math.max(last_old, last_new) - first
  end })
  local out = {}
  for i = 1, 3000 do
    out[i] = tostring(i)
    render.event(chat, { type = "tool_call_update", id = "t1", output = table.concat(out, "\n") .. "\n" })
  end
  render.event(chat, { type = "tool_call_update", id = "t1", status = "completed", exit_code = 0 })
  -- Past 20 lines an update changes the "… N more lines" line and the last
  -- 8 (at most 9 lines), not all 17 drawn.
  check(written <= 3000 * 10, "lines written for 3,000 updates: " .. written)
  render.event(chat, { type = "turn_end", stop_reason = "end_turn" })
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  local expected = { "    1", "    8", "    … 2984 more lines", "    2993", "    3000" }
  for _, l in ipairs(expected) do
    check(text:find("\n" .. l .. "\n", 1, true) ~= nil, "the output shows " .. l .. ": " .. text:sub(-600))
  end
  eq(select(2, text:gsub("\n    %d", "")), 16, "16 output lines drawn")
  eq(render.status(chat, "t1"), "completed", "its status")
  close_all()
end)
