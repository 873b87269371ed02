-- Review of proposed changes, in the buffers themselves: each hunk shows the
-- lines it removes (DiffDelete) and the lines it adds (DiffAdd, virtual lines
-- below), tracked by extmarks so edits elsewhere do not move it. Keys in a
-- reviewed buffer (config.keymaps): ga / gr accept or reject the hunk at the
-- cursor, gA / gR all of the buffer's, ]h / [h the next or previous hunk
-- (across files), q closes the review of the buffer (the rest rejected).
-- A buffer's accepted hunks are one undo step when accepted together; the
-- buffers an accept changed are then saved and recorded as one radium step
-- (lua/radium/record.lua), unless `review = { save = false }`.
local M = {}

local ns = vim.api.nvim_create_namespace("radium_review")
M.ns = ns
local reviews = {} -- [buf] = { hunks = { ... }, seq = the order it was opened in }
local nav = {} -- [buf] = seq: reviewed buffers whose review is over while others go on (]h / [h stay)
local opened = 0

local function project()
  return require("radium.project")
end

local function record()
  return require("radium.record")
end

local function text_of(lines)
  return table.concat(lines, "\n") .. "\n"
end

local function draw(h)
  local opts = { id = h.mark, sign_text = h.count > 0 and "~" or "+", sign_hl_group = "DiffChange" }
  local virt = {}
  for _, l in ipairs(h.lines) do
    virt[#virt + 1] = { { l == "" and " " or l, "DiffAdd" } }
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(h.buf, ns, h.mark, { details = true })
  local row = pos[1]
  if h.count > 0 then
    opts.end_row = row + h.count - 1
    opts.end_col = #(vim.api.nvim_buf_get_lines(h.buf, opts.end_row, opts.end_row + 1, false)[1] or "")
    opts.hl_group, opts.hl_eol = "DiffDelete", true
    vim.api.nvim_buf_set_extmark(h.buf, ns, row, 0, opts)
    if #virt > 0 then
      h.vmark = vim.api.nvim_buf_set_extmark(h.buf, ns, opts.end_row, 0, { id = h.vmark, virt_lines = virt })
    end
  else
    opts.virt_lines, opts.virt_lines_above = virt, not h.at_end
    vim.api.nvim_buf_set_extmark(h.buf, ns, row, 0, opts)
  end
end

local function clear(h)
  pcall(vim.api.nvim_buf_del_extmark, h.buf, ns, h.mark)
  if h.vmark then
    pcall(vim.api.nvim_buf_del_extmark, h.buf, ns, h.vmark)
  end
end

-- The hunks of changing lines first..last-1 of `buf` into `lines`.
local function hunks_of(change)
  local buf = change.buf
  local old = vim.api.nvim_buf_get_lines(buf, change.first, change.last, false)
  local idx = vim.diff(text_of(old), text_of(change.lines), { result_type = "indices", algorithm = "histogram" })
  local total = vim.api.nvim_buf_line_count(buf)
  local out = {}
  for _, d in ipairs(idx) do
    local sa, ca, sb, cb = d[1], d[2], d[3], d[4]
    local h = { buf = buf, count = ca, lines = vim.list_slice(change.lines, sb, sb + cb - 1) }
    local row
    if ca > 0 then
      row = change.first + sa - 1
      h.old = vim.list_slice(old, sa, sa + ca - 1)
    else
      row = change.first + sa -- insert before this row
      h.old = {}
      if row >= total then
        row, h.at_end = total - 1, true
      end
    end
    h.mark = vim.api.nvim_buf_set_extmark(buf, ns, row, 0, {})
    out[#out + 1] = h
  end
  return out
end

-- Applies hunk `h` to its buffer; nil and the reason when its lines changed.
local function apply_hunk(h)
  local pos = vim.api.nvim_buf_get_extmark_by_id(h.buf, ns, h.mark, {})
  if not pos[1] then
    return nil, "the hunk's lines are gone"
  end
  local row = pos[1]
  if h.count > 0 then
    local now = vim.api.nvim_buf_get_lines(h.buf, row, row + h.count, false)
    if not vim.deep_equal(now, h.old) then
      return nil, string.format("line %d changed since the review began; the hunk is left as it is", row + 1)
    end
    vim.api.nvim_buf_set_lines(h.buf, row, row + h.count, false, h.lines)
  else
    local at = h.at_end and row + 1 or row
    vim.api.nvim_buf_set_lines(h.buf, at, at, false, h.lines)
  end
  return true
end

-- The first change of a group starts an undo step of its own; the next
-- ones join it.
local function join_undo(buf, first)
  vim.api.nvim_buf_call(buf, function()
    if first then
      vim.cmd("let &g:undolevels = &g:undolevels")
    else
      pcall(vim.cmd, "undojoin")
    end
  end)
end

--- Applies a change ({ buf, first, last, lines }) at once, as one undo step.
function M.apply(change)
  record().before(change.buf)
  local hunks = hunks_of(change)
  for i = #hunks, 1, -1 do
    join_undo(change.buf, i == #hunks)
    apply_hunk(hunks[i])
    clear(hunks[i])
  end
  return #hunks
end

local function sorted(buf)
  local r = reviews[buf]
  if not r then
    return {}
  end
  local rows = {}
  for _, h in ipairs(r.hunks) do
    local pos = vim.api.nvim_buf_get_extmark_by_id(buf, ns, h.mark, {})
    rows[#rows + 1] = { row = pos[1] or 0, h = h }
  end
  table.sort(rows, function(a, b) return a.row < b.row end)
  return rows
end

local function unmap(buf)
  for _, key in pairs(project().config.keymaps) do
    if key then
      pcall(vim.keymap.del, "n", key, { buffer = buf })
    end
  end
end

local function nav_map(buf)
  local k = project().config.keymaps
  if k.next_hunk then
    vim.keymap.set("n", k.next_hunk, function() M.jump(1) end, { buffer = buf, nowait = true, desc = "radium: next hunk" })
  end
  if k.prev_hunk then
    vim.keymap.set("n", k.prev_hunk, function() M.jump(-1) end, { buffer = buf, nowait = true, desc = "radium: previous hunk" })
  end
end

local function finish(buf)
  local r = reviews[buf]
  if not r then
    return
  end
  for _, h in ipairs(r.hunks) do
    clear(h)
  end
  reviews[buf] = nil
  if vim.api.nvim_buf_is_valid(buf) then
    unmap(buf)
  end
  if next(reviews) then
    -- Other files are still under review: ]h / [h go on to them from here.
    if vim.api.nvim_buf_is_valid(buf) then
      nav[buf] = r.seq
      nav_map(buf)
    end
    return
  end
  for b in pairs(nav) do
    if vim.api.nvim_buf_is_valid(b) then
      unmap(b)
    end
  end
  nav = {}
end

local function remove(buf, h)
  local r = reviews[buf]
  for i, x in ipairs(r.hunks) do
    if x == h then
      table.remove(r.hunks, i)
      break
    end
  end
  clear(h)
  if #r.hunks == 0 then
    finish(buf)
    project().notify("review of " .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":~:.") .. " done")
  end
end

-- The hunk at (or else after, else before) the cursor's row.
local function at_cursor(buf)
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local rows = sorted(buf)
  local best
  for _, e in ipairs(rows) do
    local last = e.row + math.max(e.h.count, 1) - 1
    if row >= e.row and row <= last then
      return e.h
    end
    if not best and e.row > row then
      best = e.h
    end
  end
  return best or (rows[#rows] and rows[#rows].h)
end

local function accept(buf, all)
  buf = buf or vim.api.nvim_get_current_buf()
  local r = reviews[buf]
  if not r then
    return project().notify("nothing to review in this buffer", vim.log.levels.WARN)
  end
  record().before(buf)
  if not all then
    local h = at_cursor(buf)
    join_undo(buf, true)
    local ok, err = apply_hunk(h)
    if not ok then
      return project().notify(err, vim.log.levels.WARN)
    end
    if r.new_file then
      vim.fn.mkdir(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":h"), "p")
    end
    return remove(buf, h)
  end
  local rows = sorted(buf)
  local first, failed = true, 0
  for i = #rows, 1, -1 do
    join_undo(buf, first)
    local ok = apply_hunk(rows[i].h)
    first = false
    failed = failed + (ok and 0 or 1)
  end
  if r.new_file then
    vim.fn.mkdir(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":h"), "p")
  end
  finish(buf)
  if failed > 0 then
    project().notify(string.format("%d hunk(s) not applied: their lines changed since the review began", failed), vim.log.levels.WARN)
  end
end

--- Accepts the hunk at the cursor (or all of the buffer's with `all`); the
--- buffer is then saved and recorded (lua/radium/record.lua).
---@param buf integer|nil
---@param all boolean|nil
function M.accept(buf, all)
  return record().run(function()
    return accept(buf, all)
  end)
end

--- Rejects the hunk at the cursor (or all of the buffer's with `all`).
function M.reject(buf, all)
  buf = buf or vim.api.nvim_get_current_buf()
  if not reviews[buf] then
    return project().notify("nothing to review in this buffer", vim.log.levels.WARN)
  end
  if all then
    return finish(buf)
  end
  remove(buf, at_cursor(buf))
end

-- The buffer under review after (dir = 1) or before (dir = -1) `buf` in the
-- order the files were opened in, going round; nil when there is no other.
local function next_file(buf, dir)
  local here = (reviews[buf] and reviews[buf].seq) or nav[buf] or 0
  local list = {}
  for b, r in pairs(reviews) do
    if b ~= buf then
      list[#list + 1] = { buf = b, seq = r.seq }
    end
  end
  table.sort(list, function(a, b) return a.seq < b.seq end)
  if #list == 0 then
    return nil
  end
  if dir > 0 then
    for _, e in ipairs(list) do
      if e.seq > here then
        return e.buf
      end
    end
    return list[1].buf
  end
  for i = #list, 1, -1 do
    if list[i].seq < here then
      return list[i].buf
    end
  end
  return list[#list].buf
end

--- Moves to the next (or previous, dir = -1) hunk; past the buffer's last
--- (or first) one, to the first (or last) hunk of the next (or previous)
--- file under review, in the order the review opened them, going round.
function M.jump(dir)
  local buf = vim.api.nvim_get_current_buf()
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local rows = sorted(buf)
  local from, to, step = 1, #rows, 1
  if dir < 0 then
    from, to, step = #rows, 1, -1
  end
  for i = from, to, step do
    local e = rows[i]
    if (dir > 0 and e.row > row) or (dir < 0 and e.row < row) then
      return vim.api.nvim_win_set_cursor(0, { e.row + 1, 0 })
    end
  end
  local other = next_file(buf, dir)
  if other then
    vim.api.nvim_set_current_buf(other)
    local list = sorted(other)
    local r = list[dir > 0 and 1 or #list]
    return vim.api.nvim_win_set_cursor(0, { (r and r.row or 0) + 1, 0 })
  end
end

-- A review is not drawn over the window it was asked from when that window
-- is not a file's (the chat, the quickfix list, a terminal): it goes to a
-- file's window of the tab, else to a new split beside it.
local function file_window()
  local cur = vim.api.nvim_get_current_win()
  if vim.bo[vim.api.nvim_win_get_buf(cur)].buftype == "" then
    return
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(win).relative == "" and vim.bo[vim.api.nvim_win_get_buf(win)].buftype == "" then
      return vim.api.nvim_set_current_win(win)
    end
  end
  vim.cmd("leftabove vsplit")
end

local function map(buf)
  local k = project().config.keymaps
  local function set(key, fn, desc)
    if key then
      vim.keymap.set("n", key, fn, { buffer = buf, nowait = true, desc = "radium: " .. desc })
    end
  end
  set(k.accept, function() M.accept(buf) end, "accept the hunk")
  set(k.reject, function() M.reject(buf) end, "reject the hunk")
  set(k.accept_all, function() M.accept(buf, true) end, "accept every hunk of the buffer")
  set(k.reject_all, function() M.reject(buf, true) end, "reject every hunk of the buffer")
  set(k.next_hunk, function() M.jump(1) end, "next hunk")
  set(k.prev_hunk, function() M.jump(-1) end, "previous hunk")
  set(k.close, function() M.reject(buf, true) end, "close the review")
end

--- Opens a review of `changes` (a list of { buf, first, last, lines, new_file? }):
--- the hunks are drawn in each buffer, the first is shown. Returns the hunk count.
function M.open(changes)
  local count, items = 0, {}
  for _, change in ipairs(changes) do
    finish(change.buf)
    local hunks = hunks_of(change)
    if #hunks > 0 then
      opened = opened + 1
      nav[change.buf] = nil
      reviews[change.buf] = { hunks = hunks, new_file = change.new_file, seq = opened }
      for _, h in ipairs(hunks) do
        draw(h)
        local pos = vim.api.nvim_buf_get_extmark_by_id(h.buf, ns, h.mark, {})
        items[#items + 1] = { bufnr = h.buf, lnum = pos[1] + 1, text = string.format("radium: -%d +%d lines", h.count, #h.lines) }
      end
      map(change.buf)
      vim.bo[change.buf].buflisted = true
      count = count + #hunks
    end
  end
  if count == 0 then
    project().notify("the change is the same as the text: nothing to review")
    return 0
  end
  vim.fn.setqflist({}, "r", { title = "radium review", items = items })
  local first = items[1]
  file_window()
  if vim.api.nvim_get_current_buf() ~= first.bufnr then
    vim.api.nvim_set_current_buf(first.bufnr)
  end
  vim.api.nvim_win_set_cursor(0, { first.lnum, 0 })
  local k = project().config.keymaps
  project().notify(string.format("%d hunk(s) in %d file(s): %s accept, %s reject, %s/%s all, %s next, %s close",
    count, vim.tbl_count(reviews), k.accept, k.reject, k.accept_all, k.reject_all, k.next_hunk, k.close))
  return count
end

--- The buffers under review: { [buf] = hunk count }.
function M.pending()
  local out = {}
  for buf, r in pairs(reviews) do
    out[buf] = #r.hunks
  end
  return out
end

--- Accepts (or rejects) every hunk of every buffer under review; accepted,
--- the buffers are saved and recorded as one step.
function M.all(yes)
  record().run(function()
    for buf in pairs(vim.deepcopy(M.pending())) do
      if yes then
        M.accept(buf, true)
      else
        M.reject(buf, true)
      end
    end
  end)
end

return M
