-- Ranges that follow the text: a selection sent to an agent is held by an
-- extmark, so lines inserted or deleted above or below it while the agent
-- runs (or an undo of an apply) do not move the place the answer lands.
-- When the selected text itself changed, `locate` refuses instead of guessing.
local M = {}

local ns = vim.api.nvim_create_namespace("radium_track")
M.ns = ns

local function line_len(buf, row)
  return #(vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or "")
end

---@class radium.Track
---@field buf integer
---@field mark integer
---@field charwise boolean
---@field original string[] the text that was sent
---@field applied string[]|nil the text of the last apply

--- Tracks lines `first..last` (1-based) of `buf`, or, with `cols`
--- ({ start_col, end_col }, 0-based, end exclusive), the characters from
--- (first, start_col) to (last, end_col).
---@return radium.Track
function M.new(buf, first, last, cols)
  local sr, sc, er, ec = first - 1, 0, last - 1, line_len(buf, last - 1)
  if cols then
    sc, ec = cols[1], math.min(cols[2], line_len(buf, last - 1))
  end
  local mark = vim.api.nvim_buf_set_extmark(buf, ns, sr, sc, {
    end_row = er, end_col = ec, right_gravity = not cols and true or false, end_right_gravity = cols and true or false,
  })
  local t = { buf = buf, mark = mark, charwise = cols ~= nil }
  t.original = M.text(t, sr, sc, er, ec)
  return t
end

--- The text between two positions: whole lines, or characters when charwise.
function M.text(t, sr, sc, er, ec)
  if t.charwise then
    return vim.api.nvim_buf_get_text(t.buf, sr, sc, er, ec, {})
  end
  return vim.api.nvim_buf_get_lines(t.buf, sr, er + 1, false)
end

local function find_lines(buf, wanted)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local found = {}
  for i = 1, #lines - #wanted + 1 do
    local same = true
    for j = 1, #wanted do
      if lines[i + j - 1] ~= wanted[j] then
        same = false
        break
      end
    end
    if same then
      found[#found + 1] = i - 1
    end
  end
  return found
end

--- Where the tracked text is now: { sr, sc, er, ec } (0-based, end
--- exclusive in columns), or nil and the reason. The text must be what was
--- sent (or what the last apply put there); an undone apply is found again
--- by its text when it is in the buffer once.
function M.locate(t)
  if not vim.api.nvim_buf_is_valid(t.buf) or not vim.api.nvim_buf_is_loaded(t.buf) then
    return nil, "the buffer the selection came from is gone"
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(t.buf, ns, t.mark, { details = true })
  if pos[1] then
    local sr, sc, er, ec = pos[1], pos[2], pos[3].end_row, pos[3].end_col
    if not t.charwise then
      sc, ec = 0, line_len(t.buf, er)
    end
    local now = M.text(t, sr, sc, er, ec)
    if vim.deep_equal(now, t.original) or (t.applied and vim.deep_equal(now, t.applied)) then
      return { sr, sc, er, ec }
    end
  end
  if not t.charwise then
    -- After an undo the extmark may sit elsewhere: look for the text itself.
    for _, wanted in ipairs({ t.original, t.applied }) do
      local found = find_lines(t.buf, wanted)
      if #found == 1 then
        local sr = found[1]
        return { sr, 0, sr + #wanted - 1, line_len(t.buf, sr + #wanted - 1) }
      end
    end
  end
  local where = pos[1] and string.format(" (now lines %d-%d)", pos[1] + 1, pos[3].end_row + 1) or ""
  return nil, "the selected text changed since it was sent" .. where .. "; select it again and :RadiumSend"
end

--- The change that puts `content` (a block's text) in place of the tracked
--- text: { buf, first_row, last_row (exclusive), lines } over whole lines.
function M.change(t, content)
  local at, err = M.locate(t)
  if not at then
    return nil, err
  end
  local sr, sc, er, ec = at[1], at[2], at[3], at[4]
  local lines = vim.split(content, "\n", { plain = true })
  if t.charwise then
    if lines[#lines] == "" and #lines > 1 then
      table.remove(lines)
    end
    local first = vim.api.nvim_buf_get_lines(t.buf, sr, sr + 1, false)[1]
    local last = vim.api.nvim_buf_get_lines(t.buf, er, er + 1, false)[1]
    lines[1] = first:sub(1, sc) .. lines[1]
    lines[#lines] = lines[#lines] .. last:sub(ec + 1)
  elseif lines[#lines] == "" then
    table.remove(lines)
  end
  return { buf = t.buf, first = sr, last = er + 1, lines = lines, track = t, content = content, at = at }
end

--- After a change was applied: the extmark holds the new text.
function M.applied(t, change)
  local nlines = vim.split(change.content, "\n", { plain = true })
  if not t.charwise and nlines[#nlines] == "" then
    table.remove(nlines)
  end
  local sr, sc = change.at[1], change.at[2]
  local er, ec
  if t.charwise then
    if nlines[#nlines] == "" and #nlines > 1 then
      table.remove(nlines)
    end
    er = sr + #nlines - 1
    ec = (#nlines == 1 and sc or 0) + #nlines[#nlines]
  else
    er = sr + math.max(#nlines, 1) - 1
    ec = line_len(t.buf, er)
  end
  t.applied = nlines
  vim.api.nvim_buf_set_extmark(t.buf, ns, sr, sc, {
    id = t.mark, end_row = er, end_col = ec, right_gravity = not t.charwise, end_right_gravity = t.charwise,
  })
end

return M
