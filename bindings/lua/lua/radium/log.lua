-- :RadiumLog: the engine's log of the current buffer's project (the `log`
-- request, docs/protocol.md): failed requests, agents and language servers
-- started and stopped, their stderr. A scratch buffer in a split; while it
-- is shown, new entries are appended every second (requests made without
-- blocking; nothing runs once the buffer is hidden).
local M = {}

local function project() return require("radium.project") end

local logs = {} -- [buf] = { root, next, timer }

--- One entry as a line: "12:03:04 warn  request  view failed ...".
function M.line(e)
  local time = os.date("%H:%M:%S", math.floor((tonumber(e.time_ms) or 0) / 1000))
  return string.format("%s %-5s %-8s %s", time, tostring(e.level), tostring(e.source), tostring(e.message))
end

local function append(buf, entries)
  if #entries == 0 or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local lines = {}
  for _, e in ipairs(entries) do
    lines[#lines + 1] = M.line(e)
  end
  vim.bo[buf].modifiable = true
  local empty = vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ""
  vim.api.nvim_buf_set_lines(buf, empty and 0 or -1, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  end
end

--- Reads the entries not shown yet into `buf`, without blocking;
--- `on_done()` after.
function M.refresh(buf, on_done)
  local l = logs[buf]
  if not l or l.busy then
    return
  end
  l.busy = true
  project().engine(l.root):request_async({ command = "log", args = { since = l.next } }, function(r)
    l.busy = false
    if r.ok then
      l.next = r.data.next
      append(buf, r.data.entries)
    end
    if on_done then
      on_done(r)
    end
  end)
end

local function stop(buf)
  local l = logs[buf]
  if l and l.timer then
    l.timer:stop()
    l.timer:close()
    l.timer = nil
  end
end

--- Opens the log of the current buffer's project in a split (or goes to
--- it when it is open). Returns the log's buffer.
function M.open(on_done)
  local root = project().root()
  for buf, l in pairs(logs) do
    if l.root == root and vim.api.nvim_buf_is_valid(buf) then
      local win = vim.fn.win_findbuf(buf)[1]
      if win then
        vim.api.nvim_set_current_win(win)
      else
        vim.cmd("botright split")
        vim.api.nvim_win_set_buf(0, buf)
      end
      M.refresh(buf, on_done)
      return buf
    end
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, "radium://log/" .. root)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "radiumlog"
  logs[buf] = { root = root, next = 0 }
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_win_set_height(0, 12)
  local timer = vim.uv.new_timer()
  logs[buf].timer = timer
  timer:start(1000, 1000, vim.schedule_wrap(function()
    if vim.api.nvim_buf_is_valid(buf) and #vim.fn.win_findbuf(buf) > 0 then
      M.refresh(buf)
    end
  end))
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      stop(buf)
      logs[buf] = nil
    end,
  })
  M.refresh(buf, on_done)
  return buf
end

return M
