-- Clipboard mode (docs/clipboard.md), for agents that live in a browser tab:
-- :RadiumClipboard send puts the buffer's file (or lines of it) on the system
-- clipboard as text ready to paste into a chat; :RadiumClipboard receive
-- reads the answer copied back and opens its blocks that name files in the
-- review (lua/radium/review.lua), as the blocks of an agent's answer.
-- Both are engine requests run without blocking (`clipboard-send`,
-- `clipboard-receive`); the engine reaches the clipboard (X11, Wayland) and
-- keeps it while Neovim runs.
local M = {}

local levels = vim.log.levels

local function project() return require("radium.project") end

--- Requests in flight (for tests).
M.running = 0

local function notify(msg, level)
  project().notify(msg, level)
end

-- `path` relative to `root` when it is inside it, else as it is.
local function relative(path, root)
  if vim.startswith(path, root .. "/") then
    return path:sub(#root + 2)
  end
  return path
end

local function failed(r, receive)
  local msg = tostring(r.error):gsub("^radium: ", "")
  if r.code == "clipboard" then
    msg = msg:gsub(",? or use `print` to get the text without the clipboard", "")
    if receive and msg:find("holds no text", 1, true) then
      return notify(msg) -- an empty clipboard: nothing to review
    elseif receive then
      msg = msg .. " (:RadiumClipboard receive {register} reads an answer from a register)"
    end
    return notify(msg, levels.WARN)
  end
  notify(msg, levels.ERROR)
end

local function request(root, req, handle, on_done)
  project().request_async(M, root, req, handle, on_done)
end

local function lines_said(first, last)
  if last < first then
    return ""
  end
  return first == last and string.format("line %d of ", first) or string.format("lines %d-%d of ", first, last)
end

--- :[range]RadiumClipboard send [prompt]: buffer `buf`'s file (lines
--- `first..last` with `range`) through `clipboard-send`. A buffer with
--- unsaved changes or no file on disk goes as its text, its path a label.
--- `print` leaves the clipboard alone (the text is in the response, said nothing).
---@param opts { buf: integer|nil, range: boolean|nil, first: integer|nil, last: integer|nil, prompt: string|nil, print: boolean|nil }
---@param on_done fun(response: table)|nil
function M.send(opts, on_done)
  local buf = opts.buf or vim.api.nvim_get_current_buf()
  local root = project().root(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  local full = (name ~= "" and not name:find("^%a+://")) and vim.fs.normalize(vim.fn.fnamemodify(name, ":p")) or nil
  local label = full and relative(full, root) or nil
  local args = { prompt = (opts.prompt and opts.prompt ~= "") and opts.prompt or nil, print = opts.print or nil }
  if opts.range then
    args.start_line, args.end_line = opts.first, opts.last
  end
  local stat = full and vim.uv.fs_stat(full)
  local on_disk = stat and stat.type == "file" and vim.bo[buf].buftype == ""
  local unsaved = vim.bo[buf].modified
  args.path = label
  if not on_disk or unsaved then
    args.text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
    local ft = vim.bo[buf].filetype
    if not label and ft ~= "" then
      args.language = ({ sh = "bash" })[ft] or ft
    end
  end
  request(root, { command = "clipboard-send", args = args }, function(r)
    if not r.ok then
      return failed(r)
    end
    local d = r.data
    if not d.copied then
      return
    end
    local what = type(d.path) == "string" and d.path or "the buffer"
    notify(string.format("copied %s%s%s to the clipboard", lines_said(d.start_line or 1, d.end_line or 0), what,
      (on_disk and unsaved) and " (with its unsaved changes)" or ""))
  end, on_done)
end

-- The `{text, nl}` lines of `text` (nl: the line ends with "\n").
local function pieces(text)
  local out, pos = {}, 1
  while pos <= #text do
    local nl = text:find("\n", pos, true)
    if not nl then
      out[#out + 1] = { text:sub(pos), false }
      break
    end
    out[#out + 1] = { text:sub(pos, nl - 1), true }
    pos = nl + 1
  end
  return out
end

--- The text that unified diff `diff` (as `clipboard-receive` gives it) makes
--- of `old`, or nil when `old` is not the text the diff was made from.
---@param old string
---@param diff string
---@return string|nil
function M.patch(old, diff)
  local src, out, at = pieces(old), {}, 0
  local dl = vim.split(diff, "\n", { plain = true })
  local function copy_to(n)
    while at < n do
      at = at + 1
      out[#out + 1] = src[at]
    end
  end
  local i = 1
  while i <= #dl do
    local a, b = dl[i]:match("^@@ %-(%d+),?(%d*) %+%d+,?%d* @@")
    i = i + 1
    if a then
      a, b = tonumber(a), b == "" and 1 or tonumber(b)
      local start = b == 0 and a or a - 1
      if start < at or start > #src then
        return nil
      end
      copy_to(start)
      while i <= #dl and dl[i] ~= "" and not dl[i]:find("^@@ ") do
        local tag, text = dl[i]:sub(1, 1), dl[i]:sub(2)
        local nl = not (dl[i + 1] or ""):find("^\\")
        if tag == " " or tag == "-" then
          at = at + 1
          local o = src[at]
          if not o or o[1] ~= text or o[2] ~= nl then
            return nil
          end
          if tag == " " then
            out[#out + 1] = o
          end
        elseif tag == "+" then
          out[#out + 1] = { text, nl }
        elseif tag ~= "\\" then
          return nil
        end
        i = i + 1
      end
    end
  end
  copy_to(#src)
  local parts = {}
  for _, p in ipairs(out) do
    parts[#parts + 1] = p[1] .. (p[2] and "\n" or "")
  end
  return table.concat(parts), #out
end

-- The whole new text of block `b` of a `clipboard-receive` listing: its
-- `file_text` (for a block answering a range, the file with that range
-- replaced), its `content` from an engine that does not send that, or its
-- diff applied to the file on disk from one that sends neither; or nil and why.
local function content_of(b, root)
  if type(b.file_text) == "string" then
    return b.file_text
  end
  if type(b.content) == "string" then
    return b.content
  end
  if b.lines == 0 then
    return ""
  end
  local path = b.path:sub(1, 1) == "/" and b.path or (root .. "/" .. b.path)
  local old = require("radium.writes").read_disk(path)
  if b.status == "new" then
    old = old == nil and "" or nil
  end
  if old ~= nil and b.status == "unchanged" then
    return old
  end
  local text, count
  if old ~= nil and type(b.diff) == "string" then
    text, count = M.patch(old, b.diff)
  end
  if not text or count ~= b.lines then
    return nil, string.format("block %d for %s: the file changed while the answer was read; run :RadiumClipboard receive again", b.index + 1, b.path)
  end
  return text
end

local function plural(n, word)
  return string.format("%d %s%s", n, word, n == 1 and "" or "s")
end

-- Opens the review of a `clipboard-receive` answer's blocks that name files.
local function open(r, root, from)
  if not r.ok then
    return failed(r, true)
  end
  local code, no_path, problems, seen = {}, {}, {}, {}
  for _, b in ipairs(r.data.blocks or {}) do
    local n, path = b.index + 1, type(b.path) == "string" and b.path or nil
    local lang = (type(b.language) == "string" and b.language ~= "") and b.language or "text"
    if b.status == "no path" or not path then
      no_path[#no_path + 1] = string.format("block %d (%s, %s)", n, lang, plural(b.lines or 0, "line"))
    elseif b.status == "incomplete" then
      problems[#problems + 1] = string.format("block %d for %s is cut short (its fence is not closed): copy the whole answer", n, path)
    elseif b.status == "refused" then
      problems[#problems + 1] = string.format("block %d refused: %s", n, tostring(b.error or path))
    else
      local content, err = content_of(b, root)
      if not content then
        problems[#problems + 1] = err
      else
        if seen[path] then
          problems[#problems + 1] = string.format("%s has more than one block (%d and %d): the review shows the last", path, seen[path], n)
        end
        seen[path] = n
        code[#code + 1] = { index = b.index, language = b.language or "", content = content, file_path = path }
        if b.status == "snippet" then
          problems[#problems + 1] = string.format(
            "block %d for %s would delete most of the file (a snippet, not the whole file?): reject the hunks that delete what you keep", n, path)
        end
      end
    end
  end
  if #code == 0 and #no_path == 0 and #problems == 0 then
    return notify(string.format("no code blocks in %s", from))
  end
  if #code > 0 then
    local editor = require("radium.editor")
    editor.take_blocks(code, root, "clipboard")
    project().guard(editor.review, "all")
  end
  if #no_path > 0 then
    notify(string.format("%s no file, so %s not reviewed (ask for fences such as ```lua:path/to/file.lua): %s",
      #no_path == 1 and "1 block names" or (#no_path .. " blocks name"), #no_path == 1 and "it is" or "they are",
      table.concat(no_path, ", ")))
  end
  if #problems > 0 then
    notify(table.concat(problems, "\n"), levels.WARN)
  end
end

-- Register names an answer can be read from (not the expression register).
local REGISTERS = '^[%w"%-%*%+%.:%%#/]$'

--- :RadiumClipboard receive [register]: the answer on the clipboard (or in
--- `register`) through `clipboard-receive`; its blocks that name files are
--- reviewed, the others listed. Nothing is written until a hunk is accepted.
---@param register string|nil
---@param on_done fun(response: table)|nil
function M.receive(register, on_done)
  local root = project().root()
  local args, from = nil, "the clipboard"
  if register and register ~= "" then
    if not register:find(REGISTERS) then
      error(string.format("radium: `%s` is not a register (receive takes one, such as a, \" or +)", register), 0)
    end
    local text = vim.fn.getreg(register)
    from = "register " .. register
    if type(text) ~= "string" or text == "" then
      return notify(from .. " is empty")
    end
    args = { text = text }
  end
  request(root, { command = "clipboard-receive", args = args }, function(r)
    open(r, root, from)
  end, on_done)
end

--- The registers :RadiumClipboard receive completes: those holding text.
function M.registers()
  local out = {}
  for _, r in ipairs(vim.split('"0123456789abcdefghijklmnopqrstuvwxyz-', "")) do
    local ok, text = pcall(vim.fn.getreg, r)
    if ok and type(text) == "string" and text ~= "" then
      out[#out + 1] = r
    end
  end
  return out
end

return M
