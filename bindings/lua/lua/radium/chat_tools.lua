-- What a chat shows of a tool call's command and output: the entry's line
-- names the command (`$ ...`, with its folder when it is not the project's),
-- and the output is drawn below it, indented (so it folds with the entry),
-- the middle lines of a long one left out ("… N more lines"), with the exit
-- code when it is not 0. The engine's events carry `command`, `cwd`,
-- `output` and `exit_code` (docs/sessions.md); a later output replaces the
-- one drawn.
local M = {}

--- An output of more lines than this is folded.
M.FOLD_OVER = 20
--- The lines kept before and after the fold.
M.FOLD_KEEP = 8
-- The most characters of one output line drawn.
local MAX_LINE_CHARS = 500

-- The lines of `text` (split at "\n", a last empty one dropped): `first`
-- of them from its start, or with `from_end` the last `first`, splitting
-- only as much of the text as they take (an output of megabytes is redrawn
-- at every update: splitting all of it each time made a flood quadratic).
local function some_lines(text, first, from_end)
  local k = 4096
  while true do
    local whole = k >= #text
    local part = whole and text or (from_end and text:sub(-k) or text:sub(1, k))
    local lines = vim.split(part, "\n", { plain = true })
    if (whole or from_end) and lines[#lines] == "" then
      lines[#lines] = nil
    end
    -- A cut piece (the first when from the end, the last from the start)
    -- is never among those kept when there are more lines than that.
    if whole or #lines > first then
      if from_end then
        return vim.list_slice(lines, math.max(#lines - first + 1, 1), #lines)
      end
      return vim.list_slice(lines, 1, first)
    end
    k = k * 4
  end
end

-- The number of lines of `text` (a last empty one not counted).
local function count_lines(text)
  local n, pos = 0, 1
  while true do
    local nl = text:find("\n", pos, true)
    if not nl then
      break
    end
    n, pos = n + 1, nl + 1
  end
  return pos <= #text and n + 1 or n
end

local function cut(l)
  if #l > MAX_LINE_CHARS and vim.fn.strchars(l) > MAX_LINE_CHARS then
    return vim.fn.strcharpart(l, 0, MAX_LINE_CHARS) .. "…"
  end
  return l
end

--- `text` as the lines drawn under a tool call (without their indent): in
--- time linear in the text, its lines split only when they are drawn.
function M.fold(text)
  local total = count_lines(text)
  local out
  if total <= M.FOLD_OVER then
    out = some_lines(text, total)
  else
    out = some_lines(text, M.FOLD_KEEP)
    out[#out + 1] = string.format("… %d more lines", total - 2 * M.FOLD_KEEP)
    vim.list_extend(out, some_lines(text, M.FOLD_KEEP, true))
  end
  for i, l in ipairs(out) do
    out[i] = i == M.FOLD_KEEP + 1 and total > M.FOLD_OVER and l or cut(l)
  end
  return out
end

-- `cwd` as the user reads it: relative to `root` when inside it; nil for
-- the root itself.
local function folder(cwd, root)
  if type(cwd) ~= "string" or cwd == "" or cwd == root then
    return nil
  end
  if root and cwd:sub(1, #root + 1) == root .. "/" then
    return cwd:sub(#root + 2)
  end
  return cwd
end

--- The summary of a tool call's entry: its command when it has one, else
--- its title; its kind, and the folder of its command.
function M.summary(tool, root)
  local what = tool.command and ("$ " .. tool.command) or (tool.title or "?")
  local dir = tool.command and folder(tool.cwd, root)
  return string.format("`%s` (%s%s)", what:gsub("\n", " "), tool.kind or "tool", dir and (", in " .. dir) or "")
end

-- The lines drawn under the entry for the call's output.
local function output_lines(tool)
  local lines = {}
  if type(tool.output) == "string" and vim.trim(tool.output) ~= "" then
    for _, l in ipairs(M.fold(tool.output)) do
      lines[#lines + 1] = "    " .. l
    end
  end
  if type(tool.exit_code) == "number" and tool.exit_code ~= 0 then
    lines[#lines + 1] = string.format("    [exit %d]", tool.exit_code)
  end
  return lines
end

--- Takes what `ev` (a `tool_call` or `tool_call_update`) says of the call's
--- command and output into `tool`, and redraws them under its entry
--- (`entries_ns` holds the entry's mark, `details` the number of lines the
--- entry was drawn with). Answers whether anything changed.
function M.update(chat, tool, ev, entries_ns, details)
  local summary_was = M.summary(tool, chat.root)
  if ev.title then tool.title = ev.title end
  if ev.kind then tool.kind = ev.kind end
  if type(ev.command) == "string" then tool.command = ev.command end
  if type(ev.cwd) == "string" then tool.cwd = ev.cwd end
  local drawn = tool.output_drawn or 0
  local redraw = false
  if type(ev.output) == "string" and ev.output ~= tool.output then
    tool.output, redraw = ev.output, true
  end
  if type(ev.exit_code) == "number" and ev.exit_code ~= tool.exit_code then
    tool.exit_code, redraw = ev.exit_code, true
  end
  local summary = M.summary(tool, chat.root)
  if summary == summary_was and not redraw then
    return false
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(chat.buf, entries_ns, tool.entry, {})
  local row = pos[1]
  if not row then
    return false
  end
  if summary ~= summary_was then
    local line = vim.api.nvim_buf_get_lines(chat.buf, row, row + 1, false)[1] or ""
    local head = line:match("^%*%*%a+%*%* ") or "**tool** "
    vim.api.nvim_buf_set_text(chat.buf, row, #head, row, #line, { summary })
  end
  if redraw then
    -- Only the lines that differ from those on screen are written (after a
    -- flood of updates, the "… N more lines" and the last few).
    local lines, was = output_lines(tool), tool.lines_drawn or {}
    local same = 0
    while same < #lines and same < drawn and lines[same + 1] == was[same + 1] do
      same = same + 1
    end
    local from = row + details
    vim.api.nvim_buf_set_lines(chat.buf, from + same, from + drawn, false, vim.list_slice(lines, same + 1, #lines))
    tool.output_drawn, tool.lines_drawn = #lines, lines
  end
  return true
end

return M
