-- Send a selection to an agent (a `step`, without blocking), list the code
-- blocks it returned, review or apply them. The selection is tracked by an
-- extmark (lua/radium/track.lua); a block naming another file goes to that
-- file (a new buffer when it does not exist); a block with no path, or
-- naming the selection's file, replaces the selection.
local project = require("radium.project")
local track = require("radium.track")

local M = {}

-- `M.config` is the plugin's options (require("radium").setup's).
setmetatable(M, { __index = function(_, key)
  if key == "config" then
    return project.config
  end
end })

--- The last answer: { buf, root, track, answer, agent }.
M.last = nil
--- The id of the latest step in flight, if any.
M.running = nil
local inflight = {} -- [id] = { root, agent }
local seq = 0

--- The shared engine of buffer `buf`'s project (default: the current buffer).
---@param buf integer|nil
function M.engine(buf)
  return project.engine(project.root(buf))
end

--- Same as require("radium").setup(opts); kept for older configurations.
function M.setup(opts)
  project.setup(opts)
end

local function notify(msg, level)
  project.notify(msg, level)
end

--- The editor context of lines `first..last` (1-based) of buffer `buf`.
---@param cols integer[]|nil charwise: { start_col, end_col } (0-based, end exclusive)
function M.context(buf, first, last, cols)
  local count = project.config.surrounding_lines
  local total = vim.api.nvim_buf_line_count(buf)
  local selection
  if cols then
    local end_col = math.min(cols[2], #(vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ""))
    selection = vim.api.nvim_buf_get_text(buf, first - 1, cols[1], last - 1, end_col, {})
  else
    selection = vim.api.nvim_buf_get_lines(buf, first - 1, last, false)
  end
  local above = vim.api.nvim_buf_get_lines(buf, math.max(0, first - 1 - count), first - 1, false)
  local below = vim.api.nvim_buf_get_lines(buf, last, math.min(total, last + count), false)
  local root = project.root(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" then
    name = root .. "/untitled"
  end
  local ft = vim.bo[buf].filetype
  local ctx = {
    file_path = vim.fn.fnamemodify(name, ":p"),
    selection = table.concat(selection, "\n"),
    surrounding_lines = table.concat(above, "\n") .. "\n---\n" .. table.concat(below, "\n"),
    workspace = root,
    selection_range = { start_line = first, end_line = last },
  }
  local ids = { sh = "shellscript", bash = "shellscript", cs = "csharp" }
  if ft ~= "" then
    ctx.language = ids[ft] or ft
  end
  return ctx
end

--- Sends lines `first..last` of the current buffer (characters with `cols`)
--- to the agent, without blocking. `on_done(response)` runs on the main loop.
---@param first integer
---@param last integer
---@param prompt string|nil
---@param on_done fun(response: table)|nil
---@param cols integer[]|nil
function M.send(first, last, prompt, on_done, cols)
  local buf = vim.api.nvim_get_current_buf()
  local ctx = M.context(buf, first, last, cols)
  local engine, root = M.engine(buf)
  local agent = project.config.agent
  local t = track.new(buf, first, last, cols)
  notify(string.format("asking agent `%s`... (:RadiumCancel stops it)", agent))
  seq = seq + 1
  local id = "nvim-step-" .. seq
  M.running = id
  inflight[id] = { root = root, agent = agent }
  require("radium.progress").start(id, agent)
  engine:request_async({
    command = "step",
    id = id,
    args = { agent = agent, context = ctx, prompt = prompt or "" },
  }, function(response)
    inflight[id] = nil
    require("radium.progress").stop(id)
    if M.running == id then
      M.running = next(inflight)
    end
    if response.ok then
      M.last = { buf = buf, root = root, track = t, answer = response.data, agent = agent, path = ctx.file_path }
      notify(string.format("%d code block(s) from `%s`: :RadiumBlocks, :RadiumPreview, :RadiumApply", response.data.block_count, agent))
    elseif response.code == "untrusted" then
      notify(response.error .. " — :RadiumTrust trusts " .. root, vim.log.levels.ERROR)
    elseif response.code ~= "cancelled" then
      notify(response.error, vim.log.levels.ERROR)
    else
      notify("the agent was stopped")
    end
    if on_done then
      on_done(response)
    end
  end)
  return id
end

--- Stops every step in flight (their agents are killed); their callbacks
--- get `{ ok = false, code = "cancelled" }`. Returns how many were stopped.
---@return integer
function M.cancel()
  local n = 0
  for id, s in pairs(inflight) do
    local r = project.engine(s.root):request({ command = "cancel", args = { id = id } })
    if r.ok then
      n = n + r.data.cancelled
    end
  end
  return n
end

local function answer()
  if not M.last then
    error("radium: no answer yet; send a selection first (:RadiumSend)", 0)
  end
  return M.last
end

local function block(n)
  local blocks = answer().answer.code_blocks
  n = n or 1
  local b = blocks[n]
  if not b then
    if #blocks == 0 then
      error("radium: the answer has no code blocks", 0)
    end
    error(string.format("radium: no code block %d (the answer has %d)", n, #blocks), 0)
  end
  return b
end

--- Makes the code blocks of a chat's last turn the answer :RadiumPreview
--- and :RadiumApply work on (blocks that name a file go to that file).
function M.take_blocks(blocks, root, agent)
  M.last = { root = root, answer = { code_blocks = blocks, block_count = #blocks }, agent = agent }
end

--- The code blocks of the last answer: { { language, content, index, file_path? }, ... }.
function M.blocks()
  return M.last and M.last.answer.code_blocks or {}
end

--- Lines for a listing of the blocks.
function M.list_lines()
  local lines = {}
  for i, b in ipairs(M.blocks()) do
    local first = vim.split(b.content, "\n")[1] or ""
    lines[#lines + 1] = string.format("%d. [%s]%s %s", i, b.language ~= "" and b.language or "text", b.file_path and (" " .. b.file_path) or "", first)
  end
  return lines
end

--- The absolute path a block names in project `root`, or nil.
function M.block_path(b, root)
  if type(b.file_path) ~= "string" or b.file_path == "" then
    return nil
  end
  local p = b.file_path:sub(1, 1) == "/" and b.file_path or (root .. "/" .. b.file_path)
  return vim.fs.normalize(vim.fn.fnamemodify(p, ":p"))
end

--- The change block `b` proposes, against the buffers as they are now:
--- { buf, first, last, lines, new_file? }, or nil and the reason.
function M.change_for(b, last)
  local path = M.block_path(b, last.root)
  local own = last.path and vim.fs.normalize(last.path)
  if (not path or path == own) and last.track then
    return track.change(last.track, b.content)
  elseif not path then
    return nil, "the block names no file; send a selection with :RadiumSend to place it"
  end
  if not vim.startswith(path, last.root .. "/") then
    return nil, string.format("block names `%s`, outside the project %s", b.file_path, last.root)
  end
  local new_file = vim.fn.filereadable(path) == 0 and require("radium.writes").buffer_of(path) == nil
  local buf = vim.fn.bufadd(path)
  vim.fn.bufload(buf)
  local lines = vim.split(b.content, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return { buf = buf, first = 0, last = vim.api.nvim_buf_line_count(buf), lines = lines, new_file = new_file }
end

local function changes(n)
  local last = answer()
  local c, err = M.change_for(block(n), last)
  if not c then
    error("radium: " .. err, 0)
  end
  return c, last
end

--- The unified diff (engine `apply`) of block `n` against what it replaces.
function M.preview(n)
  local c = changes(n)
  local old = vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)
  local r = M.engine(c.buf):request({
    command = "apply",
    args = { content = table.concat(c.lines, "\n") .. "\n", text = table.concat(old, "\n") .. "\n", start_line = c.first + 1, end_line = math.max(c.last, c.first + 1) },
  })
  if not r.ok then
    error("radium: " .. r.error, 0)
  end
  return r.data
end

--- Opens the review of block `n` (or every block with n = "all") in the
--- buffers they change: accept or reject each hunk (lua/radium/review.lua).
function M.review(n)
  local list = {}
  if n == "all" then
    answer()
    for i = 1, #M.blocks() do
      list[#list + 1] = (changes(i))
    end
  else
    list[1] = (changes(n))
  end
  return require("radium.review").open(list)
end

local function apply(n)
  local c = changes(n)
  require("radium.review").apply(c)
  if c.track then
    track.applied(c.track, c)
  end
  if c.new_file then
    vim.fn.mkdir(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(c.buf), ":h"), "p")
  end
  local where = c.track and "the selection" or vim.fn.fnamemodify(vim.api.nvim_buf_get_name(c.buf), ":~:.")
  if require("radium.record").enabled() then
    notify(string.format("applied block %d to %s and saved it (:RadiumUndo takes it back; u in the buffer too)", n or 1, where))
  else
    notify(string.format("applied block %d to %s (undo with u%s)", n or 1, where, c.new_file and "; a new file: :w saves it" or ""))
  end
  return c.buf
end

--- Replaces what block `n` targets with it (one undo step: `u` takes it
--- back), then saves and records the buffer (lua/radium/record.lua).
function M.apply(n)
  return require("radium.record").run(function()
    return apply(n)
  end)
end

return M
