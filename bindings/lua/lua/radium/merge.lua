-- A file radium changed on disk (an agent's write, :RadiumUndo / :RadiumRedo
-- of one) whose buffer has unsaved changes never loses them: the engine's
-- `merge` joins the buffer's text (ours) with the disk's (theirs) from the
-- text before the change (the base: found from the write's `seq`, or the
-- unsaved text a prompt sent, which an agent writing through radium was
-- served as the file), off the main loop. The
-- merged text goes into the buffer as one undo step (`u` takes the disk's
-- change back out of the buffer), the buffer stays modified, and a message
-- names the file. Conflicts keep diff3 markers in the buffer and are listed
-- in the quickfix list ("radium conflicts").
local M = {}

local levels = vim.log.levels

local function project()
  return require("radium.project")
end

--- The buffer's text as it would be saved.
local function text_of(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local eol = vim.bo[buf].eol or vim.bo[buf].fixeol
  return table.concat(lines, "\n") .. (eol and "\n" or "")
end

local function lines_of(text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

--- Puts `lines` (the merge) into `buf` as one undo step, with Neovim
--- knowing the file as read at its new time (no W11/W12, no "changed since
--- reading it" at the next :write): the buffer is reloaded (kept for undo,
--- whatever 'undoreload' says), then the lines that differ from the disk's
--- are replaced, joined to the reload's undo step.
local function put(buf, lines)
  local undoreload = vim.go.undoreload
  vim.go.undoreload = 2 ^ 30
  vim.api.nvim_buf_call(buf, function()
    vim.cmd("let &g:undolevels = &g:undolevels") -- an undo step of its own
    pcall(vim.cmd, "silent keepjumps edit!")
  end)
  vim.go.undoreload = undoreload
  local old = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local first = 1
  while first <= #old and first <= #lines and old[first] == lines[first] do
    first = first + 1
  end
  local o, n = #old, #lines
  while o >= first and n >= first and old[o] == lines[n] do
    o, n = o - 1, n - 1
  end
  vim.api.nvim_buf_call(buf, function()
    pcall(vim.cmd, "undojoin")
  end)
  vim.api.nvim_buf_set_lines(buf, first - 1, o, false, vim.list_slice(lines, first, n))
  return first <= o or first <= n -- the buffer differs from the disk
end

local function conflicts_list(buf, name, conflicts)
  local items = {}
  for _, c in ipairs(conflicts) do
    items[#items + 1] = { bufnr = buf, lnum = c.line, text = string.format("radium: conflict %d: your unsaved text and the change on disk", c.id) }
  end
  vim.fn.setqflist({}, "r", { title = "radium conflicts", items = items })
  project().notify(string.format("%s: %d conflict(s) between your unsaved text and the change on disk, marked <<<<<<< ours / >>>>>>> theirs in the buffer (quickfix list: :copen)",
    name, #conflicts), levels.WARN)
end

M.running = 0 -- merges in flight (tests wait on it)
local queues = {} -- [buf] = the merges waiting for the one running in that buffer

local function finish(buf, name, r)
  if not r.ok then
    project().notify(string.format("%s changed on disk, but your unsaved changes are kept as they are (%s); :e! would load the disk's text",
      name, r.error), levels.WARN)
    return
  end
  vim.bo[buf].modified = put(buf, lines_of(r.data.text))
  if #r.data.conflicts > 0 then
    conflicts_list(buf, name, r.data.conflicts)
  elseif not vim.bo[buf].modified then
    project().notify(string.format("%s changed on disk and its buffer now shows it: the change was made over your unsaved text", name))
  else
    project().notify(string.format("%s changed on disk and was merged into its buffer, which keeps your unsaved changes (not saved; u takes the merge back)", name), levels.WARN)
  end
end

local function run(buf, path, opts)
  local name = vim.fn.fnamemodify(path, ":~:.")
  local engine, root = project().engine(opts.root or project().root(buf))
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  M.running = M.running + 1
  -- Off the main loop: a large file's merge never freezes Neovim.
  engine:request_async({
    command = "merge",
    cwd = root,
    args = { path = path, ours = text_of(buf), base = opts.base, seq = not opts.base and opts.seq or nil },
  }, function(r)
    M.running = M.running - 1
    local queue = queues[buf] or {}
    if vim.api.nvim_buf_is_valid(buf) then
      if vim.api.nvim_buf_get_changedtick(buf) ~= tick then
        -- Typed into while the engine merged: merged again from the new text.
        table.insert(queue, 1, { path = path, opts = opts })
      else
        project().guard(finish, buf, name, r)
      end
    end
    local next_one = table.remove(queue, 1)
    if next_one and vim.api.nvim_buf_is_valid(buf) then
      run(buf, next_one.path, next_one.opts)
    else
      queues[buf] = nil
    end
  end)
end

--- Merges the disk's text of `path` into its modified buffer `buf`, in the
--- background (one merge at a time per buffer, in order); the outcome is
--- said in a notification that names the file. `opts.seq`: the operation
--- that changed the file (a `write` event's, an undo's); `opts.base`: the
--- text the change was made over, when the door knows it (the unsaved text
--- an agent was served as the file); `opts.root`: its project.
---@param buf integer
---@param path string
---@param opts { seq: integer|nil, base: string|nil, root: string|nil }|nil
function M.into(buf, path, opts)
  opts = opts or {}
  if queues[buf] then
    table.insert(queues[buf], { path = path, opts = opts })
    return
  end
  queues[buf] = {}
  run(buf, path, opts)
end

return M
