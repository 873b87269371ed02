-- "Follow the agent" (opt-in: setup({ follow_agent = true })): the first of
-- a tool call's `locations` ({path, line?}) is shown at its line in the
-- window the chat was opened from: never the chat's own window, and the
-- current window (the chat input, while the user types) stays current.
-- Only files inside the chat's project are shown; a window that is gone is
-- replaced by none (nothing is opened then).
local M = {}

-- The absolute, normalized path of `path` (relative: to `root`) when it is
-- inside `root`, else nil.
local function inside(path, root)
  if type(path) ~= "string" or path == "" then
    return nil
  end
  local abs = path:sub(1, 1) == "/" and path or (root .. "/" .. path)
  abs = vim.fs.normalize(vim.fn.fnamemodify(abs, ":p"))
  local top = vim.fs.normalize(vim.fn.fnamemodify(root, ":p")):gsub("/$", "")
  if abs:sub(1, #top + 1) ~= top .. "/" then
    return nil
  end
  return abs
end

-- The window to show files in: the one the chat was opened from, when it
-- is still there, in this tab, and does not show the chat.
local function target(chat)
  local win = chat.from_win
  if not (win and vim.api.nvim_win_is_valid(win)) then
    return nil
  end
  if vim.api.nvim_win_get_tabpage(win) ~= vim.api.nvim_get_current_tabpage() then
    return nil
  end
  if vim.api.nvim_win_get_buf(win) == chat.buf then
    return nil
  end
  return win
end

--- Shows the first location of tool event `ev` (a `tool_call` or
--- `tool_call_update`) of `chat` when follow_agent is on. Answers the path
--- shown (nil: none).
function M.event(chat, ev)
  if not require("radium.project").config.follow_agent then
    return nil
  end
  local loc = type(ev.locations) == "table" and ev.locations[1]
  if type(loc) ~= "table" then
    return nil
  end
  local path = inside(loc.path, chat.root)
  local win = path and target(chat)
  if not win then
    return nil
  end
  local ok = pcall(function()
    local buf = vim.fn.bufadd(path)
    vim.bo[buf].buflisted = true
    if not vim.api.nvim_buf_is_loaded(buf) then
      vim.fn.bufload(buf)
    end
    vim.api.nvim_win_set_buf(win, buf)
    local line = math.max(1, math.min(tonumber(loc.line) or 1, vim.api.nvim_buf_line_count(buf)))
    vim.api.nvim_win_set_cursor(win, { line, 0 })
    vim.api.nvim_win_call(win, function() vim.cmd("normal! zz") end)
  end)
  return ok and path or nil
end

return M
