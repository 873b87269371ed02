-- What a chat buffer shows: the headings, the streamed answer (the chunks
-- a poll of the door delivers, at most once a frame but in a flood, are
-- gathered and written once, as soon as the poll is done), and compact entries for tool
-- calls (with their commands and output: chat_tools.lua), plans,
-- permissions, writes, notices and errors. An entry is a
-- "**kind** ..." line, its details indented below; it folds (foldexpr).
local M = {}
local plain = require("radium.chat_plain")

--- Turns the chat's highlighting and folds off (`on` false) or back on (chat_plain.lua).
M.highlight = plain.highlight

local ns = vim.api.nvim_create_namespace("radium_chat")
M.entries_ns = vim.api.nvim_create_namespace("radium_chat_entries")
local YOU = "## You"
-- While a turn streams, the next "## You" is already below the answer (its
-- heading marked here): what the user types there is the next message, and
-- the answer grows above it, never into it.
local drafts = {} -- [buf] = extmark id of the heading

-- The number of lines up to the answer's end: the buffer's, or while a turn
-- streams those above the blank line before the next "## You".
local function tail(buf)
  local id = drafts[buf]
  if id then
    local pos = vim.api.nvim_buf_get_extmark_by_id(buf, ns, id, {})
    if pos[1] and pos[1] >= 1 then
      return pos[1] - 1
    end
  end
  return vim.api.nvim_buf_line_count(buf)
end

local function last_pos(buf)
  local n = tail(buf)
  local line = vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1] or ""
  return n - 1, #line
end

-- Lines longer than this are shown broken (at a character boundary): a
-- line of megabytes would make every redraw of the chat walk all of it.
M.LONG_LINE = 2000

local function break_long(parts, col)
  local long = false
  for i, part in ipairs(parts) do
    if #part + (i == 1 and col or 0) > M.LONG_LINE then
      long = true
      break
    end
  end
  if not long then
    return parts -- the usual case: nothing to copy
  end
  local out = {}
  for i, part in ipairs(parts) do
    local base, from, len = i == 1 and col or 0, 1, #part
    while base + (len - from + 1) > M.LONG_LINE do
      local stop = from + math.max(M.LONG_LINE - base, 0) -- first byte of the next piece
      while stop > from and stop <= len and part:byte(stop) >= 0x80 and part:byte(stop) < 0xC0 do
        stop = stop - 1
      end
      out[#out + 1] = part:sub(from, stop - 1)
      from, base = stop, 0
    end
    out[#out + 1] = part:sub(from)
  end
  return out
end

local function append_text(buf, text)
  local row, col = last_pos(buf)
  vim.api.nvim_buf_set_text(buf, row, col, row, col, break_long(vim.split(text, "\n", { plain = true }), col))
end

local function append_lines(buf, lines)
  local at = tail(buf)
  vim.api.nvim_buf_set_lines(buf, at, at, false, lines)
end

-- Keeps windows that showed the end of the answer at its end, and those in
-- the next message where they were in it.
local function follow(buf, fn)
  local wins = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local n, cur = tail(buf), vim.api.nvim_win_get_cursor(win)
    if drafts[buf] and cur[1] > n then
      wins[#wins + 1] = { win = win, from_end = vim.api.nvim_buf_line_count(buf) - cur[1], col = cur[2] }
    elseif cur[1] >= n - 1 then
      wins[#wins + 1] = { win = win }
    end
  end
  fn()
  local total = vim.api.nvim_buf_line_count(buf)
  for _, w in ipairs(wins) do
    local pos = w.from_end and { total - w.from_end, w.col } or { tail(buf), 0 }
    pcall(vim.api.nvim_win_set_cursor, w.win, pos)
  end
end

--- Writes the gathered chunks of the answer.
function M.flush(chat)
  chat.flush_due = false
  if not chat.pending or #chat.pending == 0 or not vim.api.nvim_buf_is_valid(chat.buf) then
    return
  end
  local text = table.concat(chat.pending)
  chat.pending = {}
  follow(chat.buf, function()
    append_text(chat.buf, text)
  end)
end

local function push(chat, text)
  chat.streamed = (chat.streamed or 0) + #text
  chat.pending = chat.pending or {}
  chat.pending[#chat.pending + 1] = text
  chat.pending_bytes = (#chat.pending > 1 and chat.pending_bytes or 0) + #text
  if (chat.streamed > plain.PLAIN_AFTER or chat.pending_bytes > plain.FLOOD) and not chat.plain then
    M.highlight(chat, false)
  end
  if not chat.flush_due then
    chat.flush_due = true
    -- Runs once the poll that delivered the text is done, before the
    -- screen is drawn: no frame of delay on top of the door's.
    vim.schedule(function() M.flush(chat) end)
  end
end

function M.header(chat)
  vim.api.nvim_buf_set_lines(chat.buf, 0, -1, false, {
    "# radium chat with " .. chat.agent,
    "",
    "_" .. chat.root .. "_ · send with :w or " .. (require("radium.project").config.keymaps.submit or ":w")
      .. " · #selection #buffer #file:<path> #image:<path> add context",
    "",
    YOU,
    "",
  })
  vim.bo[chat.buf].modified = false
end

--- The text under the last "## You" heading, trimmed.
function M.user_text(chat)
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  for i = #lines, 1, -1 do
    if lines[i] == YOU then
      return vim.trim(table.concat(vim.list_slice(lines, i + 1, #lines), "\n"))
    end
  end
  return ""
end

function M.begin_answer(chat)
  chat.streamed = 0
  vim.bo[chat.buf].undolevels = -1
  drafts[chat.buf] = nil
  follow(chat.buf, function()
    append_lines(chat.buf, { "", "## " .. chat.agent, "", "", YOU, "" })
  end)
  local n = vim.api.nvim_buf_line_count(chat.buf)
  drafts[chat.buf] = vim.api.nvim_buf_set_extmark(chat.buf, ns, n - 2, 0, {})
  -- The cursor goes to the next message, under its heading.
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= n - 3 then
      pcall(vim.api.nvim_win_set_cursor, win, { n, 0 })
    end
  end
  chat.spinner = vim.api.nvim_buf_set_extmark(chat.buf, ns, n - 4, 0, {
    virt_text = { { "⠋ working… (:RadiumCancel stops it)", "Comment" } },
  })
end

local function end_answer(chat)
  M.flush(chat)
  if chat.spinner then
    pcall(vim.api.nvim_buf_del_extmark, chat.buf, ns, chat.spinner)
    chat.spinner = nil
  end
  if drafts[chat.buf] then
    -- The next "## You" is there already, with what was typed under it.
    pcall(vim.api.nvim_buf_del_extmark, chat.buf, ns, drafts[chat.buf])
    drafts[chat.buf] = nil
  else
    follow(chat.buf, function()
      append_lines(chat.buf, { "", YOU, "" })
    end)
  end
  vim.bo[chat.buf].undolevels = -123456 -- the global value again
  M.highlight(chat, true)
  vim.bo[chat.buf].modified = false
end

--- Adds an entry ("**kind** summary", then `details` indented); returns its id.
function M.entry(chat, kind, summary, details)
  M.flush(chat)
  local lines = { "**" .. kind .. "** " .. summary:gsub("\n", " ") }
  for _, d in ipairs(details or {}) do
    lines[#lines + 1] = "    " .. d
  end
  local row
  follow(chat.buf, function()
    local n = tail(chat.buf)
    local last = vim.api.nvim_buf_get_lines(chat.buf, n - 1, n, false)[1]
    local before = vim.api.nvim_buf_get_lines(chat.buf, math.max(n - 2, 0), n - 1, false)[1]
    if last == "" and (before == "" or (before or ""):find("^#")) then
      row = n - 1 -- on the empty line the text would go to
      vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, lines)
    elseif last == "" then
      row = n
      append_lines(chat.buf, lines)
    else
      row = n + 1
      append_lines(chat.buf, { "" })
      append_lines(chat.buf, lines)
    end
    append_lines(chat.buf, { "", "" })
  end)
  return vim.api.nvim_buf_set_extmark(chat.buf, M.entries_ns, row, 0, { end_row = row + #lines - 1, end_col = 0 })
end

--- Adds an entry ("**kind** summary") between turns: above the last
--- "## You" heading, so it stays out of what the user types under it.
function M.entry_above(chat, kind, summary)
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  for i = #lines, 1, -1 do
    if lines[i] == YOU then
      local modified = vim.bo[chat.buf].modified
      vim.api.nvim_buf_set_lines(chat.buf, i - 1, i - 1, false, { "**" .. kind .. "** " .. summary:gsub("\n", " "), "" })
      vim.bo[chat.buf].modified = modified
      return
    end
  end
  M.entry(chat, kind, summary)
end

--- Shows `text` at the end of entry `id`'s line (virtual text).
function M.note(chat, id, text)
  local pos = vim.api.nvim_buf_get_extmark_by_id(chat.buf, M.entries_ns, id, {})
  if pos[1] then
    vim.api.nvim_buf_set_extmark(chat.buf, ns, pos[1], 0, { virt_text = { { " → " .. text, "Comment" } } })
  end
end

--- The unified diffs of a tool call's `diffs`, as lines.
function M.diff_lines(call)
  local out = {}
  for _, d in ipairs(call and call.diffs or {}) do
    local old, new = d.old_text, d.new_text
    old = type(old) == "string" and old or ""
    new = type(new) == "string" and new or ""
    out[#out + 1] = "--- " .. tostring(d.path)
    out[#out + 1] = "+++ " .. tostring(d.path)
    for _, l in ipairs(vim.split(vim.diff(old, new, { ctxlen = 1 }) or "", "\n", { trimempty = true })) do
      out[#out + 1] = l
    end
  end
  return out
end

--- The diff lines of `call`'s diffs that the chat has not drawn yet for
--- tool call `id` (each is drawn once, wherever it comes: the tool call, an
--- update, or only the permission request), marking them drawn.
function M.new_diffs(chat, id, call)
  chat.drawn = chat.drawn or {}
  local key = tostring(id or "")
  local drawn = chat.drawn[key] or {}
  chat.drawn[key] = drawn
  local fresh = {}
  for _, d in ipairs(call and call.diffs or {}) do
    -- The texts are kept by reference (Lua shares strings), compared whole.
    local seen = false
    for _, o in ipairs(drawn) do
      if o.path == d.path and o.old_text == d.old_text and o.new_text == d.new_text then
        seen = true
        break
      end
    end
    if not seen then
      drawn[#drawn + 1] = d
      fresh[#fresh + 1] = d
    end
  end
  return M.diff_lines({ diffs = fresh })
end

local function tool_summary(t)
  return string.format("`%s` (%s)", t.title or "?", t.kind or "tool")
end

local marks = { completed = "✓", failed = "✗", in_progress = "…", pending = "…" }

-- A tool call's status: virtual text at the end of its entry's line (so the
-- line, and the entry's fold, never change).
local function show_status(chat, tool)
  local pos = vim.api.nvim_buf_get_extmark_by_id(chat.buf, M.entries_ns, tool.entry, {})
  if not pos[1] then
    return
  end
  local status = tool.status or "pending"
  tool.status_mark = vim.api.nvim_buf_set_extmark(chat.buf, ns, pos[1], 0, {
    id = tool.status_mark,
    virt_text = { { " " .. (marks[status] or "·") .. " " .. status, status == "failed" and "DiagnosticError" or "Comment" } },
  })
end

--- The status a tool call's entry shows.
function M.status(chat, id)
  local tool = chat.tools[id]
  return tool and tool.status
end

--- Shows one session event.
function M.event(chat, ev)
  local t = ev.type
  if t == "text" then
    push(chat, ev.text)
  elseif t == "thought" then
    M.entry(chat, "thought", ev.text)
  elseif t == "tool_call" then
    local tool = { title = ev.title, kind = ev.kind, status = ev.status }
    local diff = M.new_diffs(chat, ev.id, ev)
    tool.entry = M.entry(chat, "tool", tool_summary(tool), diff)
    tool.details = 1 + #diff
    chat.tools[ev.id] = tool
    require("radium.chat_follow").event(chat, ev)
    follow(chat.buf, function()
      require("radium.chat_tools").update(chat, tool, ev, M.entries_ns, tool.details)
    end)
    show_status(chat, tool)
  elseif t == "tool_call_update" then
    local tool = chat.tools[ev.id]
    -- A diff that comes only with an update gets an entry of its own.
    local diff = M.new_diffs(chat, ev.id, ev)
    if #diff > 0 then
      M.entry(chat, "diff", string.format("`%s`", tool and tool.title or ev.title or "?"), diff)
    end
    require("radium.chat_follow").event(chat, ev)
    if tool then
      tool.status = ev.status or tool.status
      follow(chat.buf, function()
        require("radium.chat_tools").update(chat, tool, ev, M.entries_ns, tool.details)
      end)
      show_status(chat, tool)
    end
  elseif t == "plan" then
    local lines = {}
    for _, e in ipairs(ev.entries or {}) do
      lines[#lines + 1] = string.format("- [%s] %s", e.status == "completed" and "x" or (e.status == "in_progress" and "~" or " "), e.content)
    end
    M.entry(chat, "plan", #lines .. " step(s)", lines)
  elseif t == "permission_decided" then
    if ev.by ~= "door" then
      local what = string.format("%s by %s%s", ev.allowed and "allowed" or "rejected", ev.by, ev.reason and (": " .. ev.reason) or "")
      M.entry(chat, "permission", what)
      if tostring(ev.by):find("^hook") and not ev.allowed then
        require("radium.project").notify(string.format("a tool call was %s", what), vim.log.levels.WARN)
      end
    end
  elseif t == "write" then
    local path = ev.path:sub(1, 1) == "/" and ev.path or (chat.root .. "/" .. ev.path)
    -- Written through radium (no `by`): the agent was served the unsaved
    -- buffer sent with the prompt as the file, so that text is the base.
    local base = ev.by == nil and chat.sent_buffers and chat.sent_buffers[path] or nil
    if base then
      chat.sent_buffers[path] = nil -- a later write is based on this one
    end
    local buf = require("radium.writes").sync(path, { seq = ev.seq, base = base, root = chat.root })
    local back = {}
    for _, i in ipairs(type(ev.hunks_taken_back) == "table" and ev.hunks_taken_back or {}) do
      back[#back + 1] = tostring(i + 1)
    end
    local left_out = #back > 0 and string.format(", rejected hunks left out: %s", table.concat(back, ", ")) or ""
    M.entry(chat, "wrote", string.format("`%s`%s%s [tag %s] (:RadiumUndo takes it back)", vim.fn.fnamemodify(path, ":~:."), buf and " (its buffer updated)" or "", left_out, tostring(ev.tag)))
  elseif t == "write_refused" then
    M.entry(chat, "refused", string.format("`%s`: %s", ev.path, ev.error))
    require("radium.project").notify(string.format("a write of %s was refused: %s", ev.path, ev.error), vim.log.levels.WARN)
  elseif t == "notice" then
    M.entry(chat, "notice", ev.message or "")
  elseif t == "turn_end" then
    if ev.stop_reason and ev.stop_reason ~= "end_turn" then
      M.entry(chat, "stopped", ev.stop_reason)
    end
    end_answer(chat)
  elseif t == "error" then
    M.entry(chat, "error", string.format("%s (%s)", ev.message or "?", ev.code or "?"))
    require("radium.project").notify(string.format("%s: %s", chat.agent, ev.message or "error"), vim.log.levels.ERROR)
    end_answer(chat)
  end
end

local ENTRY = "^%*%*%a+%*%* "

--- Folds: an entry ("**kind** ...") and its indented details are one fold.
function M.foldexpr(lnum)
  local line = vim.fn.getline(lnum)
  if line:find(ENTRY) then
    -- an entry with details folds; a one-line entry stays as it is
    return vim.fn.getline(lnum + 1):sub(1, 4) == "    " and ">1" or "0"
  end
  if line:sub(1, 4) ~= "    " then
    return "0"
  end
  for l = lnum - 1, math.max(1, lnum - 500), -1 do
    local above = vim.fn.getline(l)
    if above:find(ENTRY) then
      return "1"
    elseif above:sub(1, 4) ~= "    " then
      return "0"
    end
  end
  return "0"
end

--- A closed entry: its line, its status (the virtual text) and its size.
function M.foldtext()
  local first, last = vim.v.foldstart, vim.v.foldend
  local text = vim.fn.getline(first)
  local buf = vim.api.nvim_get_current_buf()
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, { first - 1, 0 }, { first - 1, -1 }, { details = true })) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      text = text .. chunk[1]
    end
  end
  return string.format("%s  [+%d lines]", text, last - first)
end

--- Window options of a chat window.
function M.window(win)
  local wo = vim.wo[win]
  wo.wrap, wo.linebreak = true, true
  wo.foldmethod = "expr"
  wo.foldexpr = "v:lua.require'radium.chat_render'.foldexpr(v:lnum)"
  wo.foldtext = "v:lua.require'radium.chat_render'.foldtext()"
  wo.foldlevel = 0
  wo.number = false
end

return M
