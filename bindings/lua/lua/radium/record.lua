-- An accept (ga, gA, :RadiumReview accept, :RadiumApply) saves the buffers
-- it changed and records them with the engine's `record` request as one
-- step of the project's conversation: :RadiumUndo takes it back in every
-- file at once, :RadiumRedo brings it back. `review = { save = false }`
-- turns this off (the buffers change, Neovim's own undo applies).
--
-- A buffer that had unsaved changes before the accept is saved too (the
-- step must be on disk to be undone); its text before the accept, unsaved
-- changes included, is what an undo gives back. The user is told once per
-- accept.
local M = {}

local function project() return require("radium.project") end
local function writes() return require("radium.writes") end

local batch = nil -- the accept being made: { order = { buf, ... }, before = { [buf] = ... } }

--- Whether accepts save and record (the `review.save` option).
function M.enabled()
  local r = project().config.review
  return r ~= false and not (type(r) == "table" and r.save == false)
end

--- The text `buf` gives its file when written: its lines joined by the
--- file format's line break, with the last one when 'eol' or 'fixeol' say so.
---@param buf integer
---@return string
function M.saved_text(buf)
  local bo = vim.bo[buf]
  local nl = ({ dos = "\r\n", mac = "\r" })[bo.fileformat] or "\n"
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), nl)
  if bo.eol or (bo.fixeol and not bo.binary) then
    text = text .. nl
  end
  return text
end

local function path_of(buf)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p")
end

--- Notes buffer `buf` as it is before the accept changes it (the first
--- time in an accept; nothing outside one, or with saving off).
---@param buf integer
function M.before(buf)
  if not batch or batch.before[buf] or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  if vim.bo[buf].buftype ~= "" or vim.api.nvim_buf_get_name(buf) == "" then
    return
  end
  local path = path_of(buf)
  local modified = vim.bo[buf].modified
  local old
  if vim.uv.fs_stat(path) then
    old = (not modified and writes().read_disk(path)) or M.saved_text(buf)
  end
  batch.before[buf] = { path = path, old = old, modified = modified, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) }
  batch.order[#batch.order + 1] = buf
end

-- Writes `buf` (its folder made first); true when the buffer is saved.
local function save(buf, path)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd("lockmarks silent write")
  end)
  if not ok then
    err = tostring(err)
    return false, err:match("E%d+:[^\n]*") or err:match("^[^\n]*")
  end
  if vim.bo[buf].modified then
    return false, "the buffer is still modified after :write"
  end
  return true
end

local function short(path)
  return vim.fn.fnamemodify(path, ":~:.")
end

-- Sends one `record` for the files of project `root`.
local function send(root, files)
  local engine = project().engine(root)
  local tag = project().tag(root)
  local ok, r = pcall(engine.request, engine, { command = "record", tag = tag, follow = tag and true or nil, args = { files = files } })
  if not ok then
    r = { ok = false, error = (tostring(r):gsub("^[^\n]-:%d+: ", "")) }
  end
  if not r.ok then
    project().notify(string.format("the accepted change is saved but not recorded (%s): :RadiumUndo cannot take it back, u in the buffer can",
      (tostring(r.error):gsub("^radium: ", ""))), vim.log.levels.WARN)
    return nil
  end
  project().set_tag(root, r.tag)
  for _, w in ipairs(r.warnings or {}) do
    project().notify(w, vim.log.levels.WARN)
  end
  return r.data
end

-- Saves the buffers the accept changed and records them, one request per
-- project. Returns the `record` answers' data, by root.
local function commit(b)
  local by_root, roots, unsaved, failed = {}, {}, {}, {}
  for _, buf in ipairs(b.order) do
    local before = b.before[buf]
    if vim.api.nvim_buf_is_valid(buf) and not vim.deep_equal(before.lines, vim.api.nvim_buf_get_lines(buf, 0, -1, false)) then
      local saved, err = save(buf, before.path)
      if not saved then
        failed[#failed + 1] = string.format("%s (%s)", short(before.path), err)
      else
        if before.modified then
          unsaved[#unsaved + 1] = short(before.path)
        end
        local file = { path = before.path, old_text = before.old == nil and vim.NIL or before.old }
        local text = M.saved_text(buf)
        if writes().read_disk(before.path) == text then
          file.new_text = text -- else a formatter ran on save: the engine takes the disk's text
        end
        local root = project().root(buf)
        if not by_root[root] then
          by_root[root] = {}
          roots[#roots + 1] = root
        end
        table.insert(by_root[root], file)
      end
    end
  end
  if #unsaved > 0 then
    project().notify(string.format("saved the unsaved changes of %s with the accepted change (it must be on disk to be undone); :RadiumUndo takes back the accepted change only",
      table.concat(unsaved, ", ")), vim.log.levels.WARN)
  end
  if #failed > 0 then
    project().notify("not saved, so not recorded (save with :w; u in the buffer takes the change back): " .. table.concat(failed, "; "), vim.log.levels.WARN)
  end
  local out = {}
  for _, root in ipairs(roots) do
    out[root] = send(root, by_root[root])
  end
  return out
end

--- Runs `fn` as one accept: the buffers it changes (each noted with
--- M.before first) are saved and recorded as one step when it returns, even
--- when it raised (the error is raised again afterwards). Accepts inside an
--- accept join it. Returns fn's first result.
function M.run(fn)
  if batch or not M.enabled() then
    return fn()
  end
  batch = { order = {}, before = {} }
  local ok, result = pcall(fn)
  local b = batch
  batch = nil
  commit(b)
  if not ok then
    error(result, 0)
  end
  return result
end

return M
