-- The Neovim front end: send the selection to an agent, list the code blocks
-- it returned, preview one as a diff against the selection, apply it (undo
-- with `u`). Commands are defined in plugin/radium.lua.
local M = {}

M.config = {
  agent = "example",       -- the agent id (from .radium/agents.toml or $RADIUM_HOME/agents.toml)
  surrounding_lines = 5,   -- lines of context above and below the selection
  workspace = nil,         -- default: the current working directory
  radium_home = nil,       -- default: $RADIUM_HOME, else ~/.radium
  notify = true,
}

-- The last answer, and the buffer and lines it is about.
M.last = nil
--- The id of the step in flight, if any.
M.running = nil
local seq = 0
local engine

function M.engine()
  if not engine then
    local radium = require("radium")
    engine = radium.new({ workspace = M.config.workspace or vim.fn.getcwd(), radium_home = M.config.radium_home })
  end
  return engine
end

--- Applies options; resets the engine so a new workspace takes effect.
function M.setup(opts)
  M.config = vim.tbl_extend("force", M.config, opts or {})
  engine = nil
end

local function notify(msg, level)
  if M.config.notify then
    vim.notify("radium: " .. msg, level or vim.log.levels.INFO)
  end
end

--- The editor context of lines `first..last` (1-based) of buffer `buf`.
function M.context(buf, first, last)
  local count = M.config.surrounding_lines
  local total = vim.api.nvim_buf_line_count(buf)
  local selection = vim.api.nvim_buf_get_lines(buf, first - 1, last, false)
  local above = vim.api.nvim_buf_get_lines(buf, math.max(0, first - 1 - count), first - 1, false)
  local below = vim.api.nvim_buf_get_lines(buf, last, math.min(total, last + count), false)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" then
    name = vim.fn.getcwd() .. "/untitled"
  end
  local ft = vim.bo[buf].filetype
  local ctx = {
    file_path = vim.fn.fnamemodify(name, ":p"),
    selection = table.concat(selection, "\n"),
    surrounding_lines = table.concat(above, "\n") .. "\n---\n" .. table.concat(below, "\n"),
    workspace = M.config.workspace or vim.fn.getcwd(),
    selection_range = { start_line = first, end_line = last },
  }
  -- Neovim filetypes that differ from the editor language ids radium uses.
  local ids = { sh = "shellscript", bash = "shellscript", typescriptreact = "typescriptreact", cs = "csharp" }
  if ft ~= "" then
    ctx.language = ids[ft] or ft
  end
  return ctx
end

--- Sends lines `first..last` of the current buffer to the agent, without
--- blocking. `on_done(response)` is called on the main loop (optional).
function M.send(first, last, prompt, on_done)
  local buf = vim.api.nvim_get_current_buf()
  local ctx = M.context(buf, first, last)
  local agent = M.config.agent
  notify(string.format("asking agent `%s`... (:RadiumCancel stops it)", agent))
  seq = seq + 1
  local id = "nvim-step-" .. seq
  M.running = id
  M.engine():request_async({
    command = "step",
    id = id,
    args = { agent = agent, context = ctx, prompt = prompt or "" },
  }, function(response)
    if M.running == id then
      M.running = nil
    end
    if response.ok then
      M.last = { buf = buf, first = first, last = last, answer = response.data }
      notify(string.format("%d code block(s) from `%s`: :RadiumBlocks, :RadiumPreview, :RadiumApply", response.data.block_count, agent))
    else
      notify(response.error, vim.log.levels.ERROR)
    end
    if on_done then
      on_done(response)
    end
  end)
end

--- Stops the step in flight (its agent process is killed); its callback
--- gets `{ ok = false, code = "cancelled" }`. Returns false when none runs.
function M.cancel()
  if not M.running then
    return false
  end
  local r = M.engine():request({ command = "cancel", args = { id = M.running } })
  return r.ok and r.data.cancelled > 0
end

local function block(n)
  if not M.last then
    error("radium: no answer yet; send a selection first (:RadiumSend)", 0)
  end
  local blocks = M.last.answer.code_blocks
  n = n or 1
  local b = blocks[n]
  if not b then
    error(string.format("radium: no code block %d (the answer has %d)", n, #blocks), 0)
  end
  return b
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

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
end

--- The unified diff of applying block `n` to the lines it came from.
function M.preview(n)
  local b = block(n)
  local last = M.last
  local r = M.engine():request({
    command = "apply",
    args = { content = b.content, text = buffer_text(last.buf), start_line = last.first, end_line = last.last },
  })
  if not r.ok then
    error("radium: " .. r.error, 0)
  end
  return r.data
end

--- Opens the diff preview of block `n` in a scratch buffer (filetype diff).
function M.show_preview(n)
  local data = M.preview(n)
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(data.diff, "\n", { trimempty = true }))
  vim.bo[buf].filetype = "diff"
  vim.bo[buf].modifiable = false
  return buf
end

--- Replaces the lines the answer was about with block `n` (one undo step).
function M.apply(n)
  local b = block(n)
  local last = M.last
  local lines = vim.split(b.content, "\n")
  if lines[#lines] == "" then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_lines(last.buf, last.first - 1, last.last, false, lines)
  -- Later applies refer to the new lines.
  last.last = last.first + #lines - 1
  notify(string.format("applied block %d (undo with u)", n or 1))
end

return M
