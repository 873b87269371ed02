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

--- `text` as the lines drawn under a tool call (without their indent).
function M.fold(text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    lines[#lines] = nil
  end
  for i, l in ipairs(lines) do
    if #l > MAX_LINE_CHARS and vim.fn.strchars(l) > MAX_LINE_CHARS then
      lines[i] = vim.fn.strcharpart(l, 0, MAX_LINE_CHARS) .. "…"
    end
  end
  if #lines <= M.FOLD_OVER then
    return lines
  end
  local out = vim.list_slice(lines, 1, M.FOLD_KEEP)
  out[#out + 1] = string.format("… %d more lines", #lines - 2 * M.FOLD_KEEP)
  vim.list_extend(out, lines, #lines - M.FOLD_KEEP + 1, #lines)
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
    local lines = output_lines(tool)
    local from = row + details
    vim.api.nvim_buf_set_lines(chat.buf, from, from + drawn, false, lines)
    tool.output_drawn = #lines
  end
  return true
end

return M
