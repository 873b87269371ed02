-- Code intelligence in Neovim (docs/code-intelligence.md): references and
-- renames answered by the engine's language servers (the syntax fallback
-- where none runs), never blocking the main loop.
--   :RadiumReferences [name]  every reference of the name under the cursor
--                             (or `name`) across the project, in the quickfix
--                             list, the definition first and marked;
--   :RadiumRename {new}       the rename of the name under the cursor,
--                             opened in the review (lua/radium/review.lua) as
--                             the hunks of every file it changes: nothing is
--                             written until a hunk is accepted, and an accept
--                             is one radium step (:RadiumUndo takes it back).
local M = {}

local levels = vim.log.levels

local function project() return require("radium.project") end

--- Requests in flight (for tests).
M.running = 0

local function notify(msg, level)
  project().notify(msg, level)
end

local function request(root, req, handle, on_done)
  project().request_async(M, root, req, handle, on_done)
end

local function failed(r)
  local msg = tostring(r.error):gsub("^radium: ", "")
  if r.code == "not_found" then
    return notify(msg, levels.WARN)
  end
  notify(msg, levels.ERROR)
end

local function engine_said(d)
  if d.engine == "lsp" then
    return string.format("engine: lsp (%s)", tostring(d.server))
  elseif d.engine == "syntax" then
    return "engine: syntax (no language server answered; not type-aware)"
  end
  return "engine: text (no grammar for this language; every match of the word)"
end

-- What the command is about: buffer, its file, the project, the name and
-- the line and column it is at (the cursor's, when the name is the word
-- under it: of two on one line, the one under the cursor is meant).
local function target(name)
  local buf = vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(buf)
  if file == "" or file:find("^%a+://") or vim.bo[buf].buftype ~= "" then
    error("radium: this buffer has no file; open the file the name is in", 0)
  end
  file = vim.fs.normalize(vim.fn.fnamemodify(file, ":p"))
  local word = vim.fn.expand("<cword>")
  local line
  if name == nil or name == "" then
    if word == "" or not word:find("^[%w_$]+$") then
      error("radium: no name under the cursor; put the cursor on one or give it", 0)
    end
    name = word
  end
  local column
  if name == word then
    line = vim.api.nvim_win_get_cursor(0)[1]
    column = vim.fn.charcol(".")
  end
  return buf, file, project().root(buf), name, line, column
end

-- The byte column (0-based) of character column `col` (1-based) of `text`.
local function byte_col(text, col)
  local ok, b = pcall(vim.str_byteindex, text, "utf-32", col - 1, false)
  return ok and b or col - 1
end

--- :RadiumReferences [name]: the references of `name` (default: the word
--- under the cursor, at the cursor's line) in the quickfix list, opened.
--- The buffer's unsaved text is what the engine reads for its own file.
---@param name string|nil
---@param on_done fun(response: table)|nil
function M.references(name, on_done)
  local buf, file, root, var, line, column = target(name)
  local args = { file = file, var = var, line = line, column = column }
  if vim.bo[buf].modified then
    args.text = require("radium.record").saved_text(buf)
  end
  notify(string.format("finding the references of `%s`...", var))
  request(root, { command = "read-var", args = args }, function(r)
    if not r.ok then
      return failed(r)
    end
    local d = r.data
    local items = {}
    for _, o in ipairs(d.occurrences or {}) do
      local path = o.file:sub(1, 1) == "/" and o.file or (root .. "/" .. o.file)
      local item = { filename = path, lnum = o.line, col = byte_col(o.text or "", o.column) + 1,
        text = (o.definition and "[definition] " or "") .. vim.trim(o.text or "") }
      if o.definition then
        table.insert(items, 1, item)
      else
        items[#items + 1] = item
      end
    end
    local title = string.format("radium references: %s (%s)", d.variable, engine_said(d))
    vim.fn.setqflist({}, " ", { title = title, items = items })
    if #items == 0 then
      return notify(string.format("no references of `%s` (%s)", d.variable, engine_said(d)))
    end
    vim.cmd("botright copen")
    notify(string.format("%d reference(s) of `%s` in %d file(s); %s", #items, d.variable, tonumber(d.files) or 0, engine_said(d)),
      d.engine == "lsp" and levels.INFO or levels.WARN)
  end, on_done)
end

-- The loaded buffer of `path` with unsaved changes, if any.
local function unsaved(path)
  local buf = require("radium.writes").buffer_of(path)
  return buf and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified and buf or nil
end

--- :RadiumRename {new}: renames the name under the cursor (the whole
--- project, through `modify-var` with `apply = false`) and opens every file
--- it changes in the review. Files with unsaved changes are refused: the
--- rename is worked out from the files on disk.
---@param new string
---@param on_done fun(response: table)|nil
function M.rename(new, on_done)
  if type(new) ~= "string" or not new:find("^[%w_$]+$") then
    error(string.format("radium: :RadiumRename takes the new name (letters, digits, _), not `%s`", tostring(new or "")), 0)
  end
  local buf, file, root, var, line, column = target(nil)
  if var == new then
    return notify(string.format("`%s` is already its name", var))
  end
  if vim.bo[buf].modified then
    error("radium: the buffer has unsaved changes; :w first (the rename is worked out from the files on disk)", 0)
  end
  notify(string.format("renaming `%s` to `%s`...", var, new))
  request(root, { command = "modify-var", args = { file = file, from = var, to = new, line = line, column = column, apply = false } },
    function(r)
      if not r.ok then
        return failed(r)
      end
      local d = r.data
      local blocks, dirty, gone = {}, {}, {}
      for i, p in ipairs(d.preview or {}) do
        local path = p.path:sub(1, 1) == "/" and p.path or (root .. "/" .. p.path)
        if type(p.new_text) ~= "string" then
          gone[#gone + 1] = p.path
        elseif unsaved(path) then
          dirty[#dirty + 1] = p.path
        else
          blocks[#blocks + 1] = { index = i - 1, language = "", content = p.new_text, file_path = p.path }
        end
      end
      if #dirty > 0 then
        return notify(string.format("not renamed: %s %s unsaved changes; save and run :RadiumRename again",
          table.concat(dirty, ", "), #dirty == 1 and "has" or "have"), levels.WARN)
      end
      if #blocks == 0 then
        return notify(string.format("nothing to rename: the %s proposes no edit for `%s`", d.engine == "lsp" and "server" or "fallback", var))
      end
      local editor = require("radium.editor")
      editor.take_blocks(blocks, root, "rename")
      editor.review("all")
      notify(string.format("rename `%s` → `%s`: %d edit(s) in %d file(s) to review; %s", var, new, d.edits or 0,
        #blocks, engine_said(d)), d.engine == "lsp" and levels.INFO or levels.WARN)
      if #gone > 0 then
        notify("the rename also removes " .. table.concat(gone, ", ") .. ", which the review cannot show: not done", levels.WARN)
      end
    end, on_done)
end

return M
