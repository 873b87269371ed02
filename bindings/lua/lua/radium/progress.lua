-- What runs (agent steps and chat turns), for the statusline and a spinner.
-- While something runs, a 100 ms timer redraws the statuslines and fires
-- `User RadiumProgress`; when nothing runs, no timer is left.
local M = {}

local frames = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" }
local running = {} -- [id] = label
local order = {}
local frame = 1
local timer

local function tick()
  frame = frame % #frames + 1
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "RadiumProgress", modeline = false })
  pcall(vim.cmd.redrawstatus, { bang = true })
end

--- Marks `id` as running, with `label` (e.g. the agent's id).
function M.start(id, label)
  if not running[id] then
    order[#order + 1] = id
  end
  running[id] = label
  if not timer then
    timer = vim.uv.new_timer()
    timer:start(100, 100, vim.schedule_wrap(function()
      if timer then
        tick()
      end
    end))
  end
  tick()
end

--- Marks `id` as done.
function M.stop(id)
  if not running[id] then
    return
  end
  running[id] = nil
  for i, v in ipairs(order) do
    if v == id then
      table.remove(order, i)
      break
    end
  end
  if #order == 0 and timer then
    timer:stop()
    timer:close()
    timer = nil
  end
  tick()
end

--- The labels of what runs, oldest first.
function M.running()
  local out = {}
  for _, id in ipairs(order) do
    out[#out + 1] = running[id]
  end
  return out
end

--- The current spinner frame.
function M.spinner()
  return frames[frame]
end

--- "" when nothing runs, else "⠋ radium: a, b".
---@return string
function M.statusline()
  if #order == 0 then
    return ""
  end
  return frames[frame] .. " radium: " .. table.concat(M.running(), ", ")
end

return M
