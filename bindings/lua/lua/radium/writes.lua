-- Files radium changed on disk (an agent's write, :RadiumUndo) that are
-- loaded in a buffer: the buffer takes the new text as one undo step, and
-- Neovim knows the file as read, so no W11/W12 warning and no "changed
-- since reading it" question at the next :write follows.
local M = {}

--- The loaded buffer of `path` (absolute), or nil.
---@param path string
---@return integer|nil
function M.buffer_of(path)
  local full = vim.fn.fnamemodify(path, ":p")
  local real = vim.uv.fs_realpath(full) or full
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= "" and (name == full or (vim.uv.fs_realpath(name) or name) == real) then
        return buf
      end
    end
  end
end

--- The whole text of the file at `path` on disk, or nil when it cannot be read.
---@param path string
---@return string|nil
function M.read_disk(path)
  local fd = io.open(path, "rb")
  if not fd then
    return nil
  end
  local text = fd:read("*a")
  fd:close()
  return text
end

local function disk_lines(path)
  local text = M.read_disk(path)
  if not text then
    return nil
  end
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

--- Brings the disk's text of `path` into its loaded buffer, if any, as one
--- undo step; the buffer is unmodified afterwards when it equals the disk.
--- A buffer with unsaved changes is never reloaded: the disk's change is
--- merged into it (lua/radium/merge.lua; `opts.seq` is the operation that
--- changed the file, `opts.base` the text it was based on when known,
--- `opts.root` its project) and it stays modified.
--- Returns the buffer, or nil when the file is not loaded.
---@param path string
---@param opts { seq: integer|nil, base: string|nil, root: string|nil }|nil
---@return integer|nil
function M.sync(path, opts)
  local buf = M.buffer_of(path)
  if not buf then
    return nil
  end
  local lines = disk_lines(path)
  if not lines then
    return buf -- removed: the buffer keeps its text (the user may save it)
  end
  if vim.bo[buf].modified then
    require("radium.merge").into(buf, path, opts)
    return buf
  end
  -- Neovim reloads the file itself when it sees its new time: the reload
  -- is one undo step ('undoreload'), and Neovim then knows the file as
  -- read, so the next :write asks nothing ("changed since reading it").
  local group = vim.api.nvim_create_augroup("radium_sync_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd("FileChangedShell", {
    group = group,
    buffer = buf,
    callback = function()
      vim.v.fcs_choice = "reload"
    end,
  })
  pcall(vim.cmd, "checktime " .. buf)
  pcall(vim.api.nvim_del_augroup_by_id, group)
  -- A time Neovim cannot tell apart (or a reload that failed): the text
  -- goes in as an edit.
  if vim.api.nvim_buf_is_valid(buf) and not vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), lines) then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
  vim.bo[buf].modified = false
  return buf
end

return M
