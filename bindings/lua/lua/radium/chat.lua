-- :RadiumChat [agent]: a chat buffer (Markdown) over an agent session. Write
-- under the last "## You" heading and send with :w or <C-s>; the answer
-- streams in; tool calls are folded entries with their diffs; permissions
-- are asked with vim.ui.select; :RadiumCancel or <C-c> cancels the turn.
-- #selection, #buffer and #file:<path> add context, #image:<path> an image
-- (to an agent that takes images); unsaved buffers of the
-- project are sent as they are. The conversation lasts while Neovim runs.
local project = require("radium.project")
local render = require("radium.chat_render")
local hunks = require("radium.chat_hunks")

local M = {}
local chats = {} -- [buf] = chat
local count = 0
local source -- the last ordinary buffer entered (for #selection and #buffer)

local levels = vim.log.levels
M.render = render

vim.api.nvim_create_autocmd("BufEnter", {
  group = vim.api.nvim_create_augroup("radium_chat_source", { clear = true }),
  callback = function(ev)
    if vim.bo[ev.buf].buftype == "" and not chats[ev.buf] then
      source = ev.buf
    end
  end,
})

--- The chat of buffer `buf` (default: the current one), or nil.
function M.get(buf)
  return chats[buf or vim.api.nvim_get_current_buf()]
end

--- The open chats: { [buf] = chat }.
function M.list()
  return chats
end

local function read_file(path)
  local writes = require("radium.writes")
  local buf = writes.buffer_of(path)
  if buf then
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
  end
  return writes.read_disk(path)
end

--- The prompt options for `text` in `chat`: #selection, #buffer, #file:path,
--- #image:path (the engine checks and reads the image) and the project's
--- unsaved buffers. Raises with a message on a bad variable.
function M.context_for(chat, text)
  local opts, files = {}, {}
  local src = chat.source
  local function need_source(var)
    if not src or not vim.api.nvim_buf_is_valid(src) then
      error(string.format("radium: %s: no buffer to take it from (enter a file's buffer first)", var), 0)
    end
  end
  if text:find("#selection", 1, true) then
    need_source("#selection")
    local s, e = vim.api.nvim_buf_get_mark(src, "<"), vim.api.nvim_buf_get_mark(src, ">")
    if s[1] == 0 or e[1] == 0 then
      error("radium: #selection: nothing was selected in " .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(src), ":~:."), 0)
    end
    local ctx = require("radium.editor").context(src, s[1], math.min(e[1], vim.api.nvim_buf_line_count(src)))
    ctx.workspace, ctx.language = nil, nil
    opts.context = ctx
  end
  if text:find("#buffer", 1, true) then
    need_source("#buffer")
    local name = vim.api.nvim_buf_get_name(src)
    if name == "" then
      error("radium: #buffer: the buffer has no file name", 0)
    end
    files[#files + 1] = { path = vim.fn.fnamemodify(name, ":p"), text = table.concat(vim.api.nvim_buf_get_lines(src, 0, -1, false), "\n") .. "\n" }
  end
  for rel in text:gmatch("#file:(%S+)") do
    local path = rel:sub(1, 1) == "/" and rel or (chat.root .. "/" .. rel)
    local body = read_file(path)
    if not body then
      error(string.format("radium: #file:%s: no such file in %s", rel, chat.root), 0)
    end
    files[#files + 1] = { path = path, text = body }
  end
  if #files > 0 then
    opts.open_files = files
  end
  for rel in text:gmatch("#image:(%S+)") do
    opts.images = opts.images or {}
    opts.images[#opts.images + 1] = rel:sub(1, 1) == "/" and rel or (chat.root .. "/" .. rel)
  end
  local unsaved = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified and vim.bo[b].buftype == "" and vim.startswith(name, chat.root .. "/") then
      unsaved[name] = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n") .. "\n"
    end
  end
  if next(unsaved) then
    opts.buffers = unsaved
  end
  return opts
end

local function start_turn(chat, text)
  local ok, opts = pcall(M.context_for, chat, text)
  if not ok then
    return project.notify(opts, levels.ERROR)
  end
  local sent, err = pcall(chat.session.prompt, chat.session, text, opts)
  if not sent then
    -- The engine's refusal (a bad #image:, ...) as its message alone.
    return project.notify((tostring(err):gsub("^[^\n]-:%d+: ", ""):gsub("^radium: ", "")), levels.ERROR)
  end
  require("radium.chat_restore").mark(chat, text)
  -- What the agent was told these files hold: the base of its writes
  -- through radium (lua/radium/merge.lua).
  chat.sent_buffers = opts.buffers or {}
  chat.running = true
  chat.turns = (chat.turns or 0) + 1
  require("radium.progress").start("chat" .. chat.buf, chat.agent)
  render.begin_answer(chat)
end

--- Sends what is written under the last "## You" heading of `buf`'s chat.
---@param buf integer|nil
function M.submit(buf)
  local chat = M.get(buf)
  if not chat then
    return project.notify("this buffer is not a chat (:RadiumChat opens one)", levels.WARN)
  end
  vim.bo[chat.buf].modified = false
  if chat.running then
    return project.notify("a turn is running; :RadiumCancel stops it", levels.WARN)
  end
  local text = render.user_text(chat)
  if text == "" then
    return project.notify("write a message under the last \"## You\" first", levels.WARN)
  end
  if chat.failed then
    return project.notify("the session did not open: " .. chat.failed, levels.ERROR)
  end
  if not chat.session then
    chat.queued = text
    return project.notify("the agent is starting; the message goes when it is ready")
  end
  start_turn(chat, text)
end

--- Cancels `chat`'s running turn. Returns 1 when one was running, else 0.
function M.cancel(chat)
  if chat and chat.running and chat.session then
    local ok, err = pcall(chat.session.cancel, chat.session)
    if not ok then
      project.notify(err, levels.ERROR)
      return 0
    end
    return 1
  end
  return 0
end

--- Cancels the current chat's turn, or, outside a chat, every running turn.
function M.cancel_current()
  local chat = M.get()
  if chat then
    return M.cancel(chat)
  end
  local n = 0
  for _, c in pairs(chats) do
    n = n + M.cancel(c)
  end
  return n
end

local function on_permission(chat, event, answer)
  local title = event.tool_call and event.tool_call.title or "a tool call"
  -- What the call changes is drawn before the question, unless it already
  -- was (an agent may announce the call first and send its diff only here).
  local diff = render.new_diffs(chat, event.tool_call and event.tool_call.id, event.tool_call)
  local entry = render.entry(chat, "permission", string.format("`%s`", title), #diff > 0 and diff or nil)
  if #diff > 0 then
    -- On screen before the question: the entry's fold open, the screen
    -- drawn (the default vim.ui.select blocks on a prompt without drawing).
    local pos = vim.api.nvim_buf_get_extmark_by_id(chat.buf, render.entries_ns, entry, {})
    for _, win in ipairs(pos[1] and vim.fn.win_findbuf(chat.buf) or {}) do
      vim.api.nvim_win_call(win, function()
        pcall(vim.cmd, string.format("%dfoldopen", pos[1] + 1))
      end)
    end
    vim.cmd("redraw")
  end
  local items = vim.list_extend({}, event.options or {})
  -- "Review hunks": keep some hunks of the diffs, allow with them.
  local review = { review = true }
  if hunks.has_hunks(event.tool_call) then
    items[#items + 1] = review
  end
  -- An option's name is the agent's text; its kind is what it does (and
  -- what radium decides by), so both are shown: "Reject (allow once)".
  local function shown(o)
    if o.review then
      return "Review hunks (keep some, allow with them)"
    end
    return string.format("%s (%s)", o.name or o.id, type(o.kind) == "string" and o.kind:gsub("_", " ") or "no kind")
  end
  vim.ui.select(items, {
    prompt = string.format("radium: %s asks to run %s", chat.agent, title),
    format_item = shown,
  }, function(choice)
    if choice == review then
      return hunks.review(chat, event.tool_call, function(kept)
        render.note(chat, entry, kept and "allowed with the hunks kept" or "rejected")
        answer(kept and { answer = "allow", hunks = kept } or "reject")
      end)
    end
    render.note(chat, entry, choice and shown(choice) or "rejected")
    -- The option itself: sent by its exact id, decided by its kind.
    answer(choice or "reject")
  end)
end

local function handlers(chat)
  return {
    on_event = function(ev)
      -- Wiped while the agent still talked (its close runs on_close).
      if not vim.api.nvim_buf_is_valid(chat.buf) then return end
      if ev.type == "options" then
        return require("radium.chat_options").changed(chat, ev)
      end
      if require("radium.chat_slash").event(chat, ev) then
        return
      end
      render.event(chat, ev)
      if ev.type == "turn_end" or ev.type == "error" then
        chat.running = false
        require("radium.progress").stop("chat" .. chat.buf)
        if ev.tag then
          project.set_tag(chat.root, ev.tag)
        end
        require("radium.chat_restore").ended(chat, ev)
        chat.blocks = ev.code_blocks
        pcall(vim.api.nvim_exec_autocmds, "User", {
          pattern = "RadiumTurnEnd",
          modeline = false,
          data = { buf = chat.buf, agent = chat.agent, stop_reason = ev.stop_reason, error = ev.message },
        })
        if type(ev.code_blocks) == "table" and #ev.code_blocks > 0 then
          require("radium.editor").take_blocks(ev.code_blocks, chat.root, chat.agent)
          project.notify(string.format("%d code block(s) from `%s`: :RadiumPreview all reviews them, :RadiumApply applies", #ev.code_blocks, chat.agent))
        end
      end
    end,
    on_permission = function(ev, answer)
      if not vim.api.nvim_buf_is_valid(chat.buf) then return answer("reject") end
      on_permission(chat, ev, answer)
    end,
    on_close = function()
      chat.closed = true
      chat.running = false
      require("radium.progress").stop("chat" .. chat.buf)
    end,
  }
end

local function create(agent, root, src, opts)
  opts = opts or {}
  count = count + 1
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(buf, string.format("radium-chat://%d/%s", count, agent))
  -- Commands run from the chat's window (:RadiumLog, :RadiumUndo) use its project.
  vim.b[buf].radium_root = root
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "markdown"
  -- Tree-sitter highlighting parses in the background (Neovim 0.11); the
  -- regex syntax would be run again over the streamed lines at each redraw.
  if not pcall(vim.treesitter.start, buf, "markdown") then
    vim.bo[buf].synmaxcol = 200
  end
  local chat = { buf = buf, agent = agent, root = root, source = src, number = count, tools = {} }
  chats[buf] = chat
  render.header(chat)
  if opts.turns then
    require("radium.chat_history").transcript(chat, opts.turns)
  end
  require("radium.chat_slash").attach(chat)
  vim.api.nvim_create_autocmd("BufWriteCmd", { buffer = buf, callback = function() M.submit(buf) end })
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    callback = function()
      chats[buf] = nil
      if chat.session and not chat.closed then
        pcall(chat.session.close, chat.session)
      end
    end,
  })
  local k = project.config.keymaps
  if k.submit then
    vim.keymap.set({ "n", "i" }, k.submit, function() M.submit(buf) end, { buffer = buf, desc = "radium: send the message" })
  end
  if k.cancel then
    vim.keymap.set("n", k.cancel, function() M.cancel(chat) end, { buffer = buf, desc = "radium: cancel the turn" })
  end
  if k.restore then
    vim.keymap.set("n", k.restore, function() project.guard(require("radium.chat_restore").restore, chat) end,
      { buffer = buf, desc = "radium: restore the files to before this prompt" })
  end
  local engine = project.engine(root)
  engine:session_open(agent, handlers(chat), function(session, err, code)
    if not session then
      chat.failed = err
      local hint = code == "untrusted" and " — :RadiumTrust trusts " .. root or ""
      render.entry(chat, "error", err .. hint)
      project.notify(string.format("chat with `%s` did not start: %s%s", agent, err, hint), levels.ERROR)
      return
    end
    chat.session = session
    require("radium.chat_options").opened(chat, session)
    require("radium.chat_history").opened(chat, session)
    -- The project's steps (accepted reviews, :RadiumApply) and this chat's
    -- writes are one conversation from the start.
    project.set_tag(root, session.tag)
    if chat.queued then
      local text = chat.queued
      chat.queued = nil
      start_turn(chat, text)
    end
  end, { tag = not opts.resume and project.tag(root) or nil, resume = opts.resume })
  return chat
end

-- The window of the current tab that shows `chat`, or nil.
local function window_of(chat)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == chat.buf then
      return win
    end
  end
end

local function show(chat)
  local shown = window_of(chat)
  if shown then
    return vim.api.nvim_set_current_win(shown)
  end
  -- Where "follow the agent" shows files (radium.chat_follow).
  chat.from_win = vim.api.nvim_get_current_win()
  vim.cmd("botright vsplit")
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, chat.buf)
  render.window(win)
  vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(chat.buf), 0 })
end

-- Hides `chat`'s window (the chat and its session stay); in the tab's only
-- window the chat's place is taken by the last file buffer entered.
local function hide(chat, win)
  if #vim.api.nvim_tabpage_list_wins(0) > 1 then
    return vim.api.nvim_win_close(win, false)
  end
  local other = chat.source
  if not (other and vim.api.nvim_buf_is_valid(other)) then
    other = vim.api.nvim_create_buf(true, false)
  end
  vim.api.nvim_win_set_buf(win, other)
end

--- The open chats, oldest first.
function M.ordered()
  local out = {}
  for buf, chat in pairs(chats) do
    if vim.api.nvim_buf_is_valid(buf) then
      out[#out + 1] = chat
    end
  end
  table.sort(out, function(a, b) return a.number < b.number end)
  return out
end

-- The newest chat with `agent` (any agent when nil), of `root`'s project
-- first.
local function latest(agent, root)
  local best
  for _, chat in ipairs(M.ordered()) do
    if agent == nil or chat.agent == agent then
      if not best or chat.root == root or best.root ~= root then
        best = chat
      end
    end
  end
  return best
end

--- :RadiumChat [agent]: closes the window of the chat with `agent` (default:
--- config.chat_agent, else the newest chat) shown in this tab, shows it again
--- when it is hidden (the same session), and only otherwise opens a new chat
--- (M.open). Returns the chat and what was done: "hidden", "shown" or "opened".
---@param agent string|nil
function M.toggle(agent)
  local cur = vim.api.nvim_get_current_buf()
  if chats[cur] and (agent == nil or chats[cur].agent == agent) then
    hide(chats[cur], vim.api.nvim_get_current_win())
    return chats[cur], "hidden"
  end
  local src = (vim.bo[cur].buftype == "" and not chats[cur]) and cur or source
  local chat = latest(agent or project.config.chat_agent, project.root(src))
  if chat then
    local win = window_of(chat)
    if win then
      hide(chat, win)
      return chat, "hidden"
    end
    show(chat)
    return chat, "shown"
  end
  return M.open(agent), "opened"
end

--- :RadiumChats: picks one of the open chats with vim.ui.select and shows it
--- (its window when it is shown, else a split).
function M.pick()
  local list = M.ordered()
  if #list == 0 then
    return project.notify("no chats are open (:RadiumChat opens one)", levels.WARN)
  end
  vim.ui.select(list, {
    prompt = "radium: show the chat",
    format_item = function(chat)
      local state = chat.running and "running" or chat.failed and "failed" or chat.closed and "closed" or "idle"
      local where = window_of(chat) and ", shown" or ""
      return string.format("%d. %s (%s%s) %s", chat.number, chat.agent, state, where, vim.fn.fnamemodify(chat.root, ":~"))
    end,
  }, function(chat)
    if chat and vim.api.nvim_buf_is_valid(chat.buf) then
      show(chat)
    end
  end)
end

--- Opens a new chat with `agent` (default: config.chat_agent, else a picker)
--- for the current buffer's project, in a split. Returns the chat (nil while
--- the picker is open). `opts.resume` continues a conversation of the
--- history, whose `opts.turns` are shown first (see radium.chat_history).
---@param agent string|nil
function M.open(agent, opts)
  local cur = vim.api.nvim_get_current_buf()
  local src = (vim.bo[cur].buftype == "" and not chats[cur]) and cur or source
  local root = project.root(src)
  agent = agent or project.config.chat_agent
  if not agent then
    local ids = require("radium.commands").agent_ids()
    if #ids == 0 then
      error("radium: no agents in " .. root .. ": add some to $RADIUM_HOME/agents.toml (see :help radium-agents)", 0)
    elseif #ids == 1 then
      agent = ids[1]
    else
      vim.ui.select(ids, { prompt = "radium: chat with" }, function(choice)
        if choice then
          project.guard(M.open, choice)
        end
      end)
      return nil
    end
  end
  local known = require("radium.commands").agent_ids()
  if not vim.tbl_contains(known, agent) then
    error(string.format("radium: no agent `%s` in %s (agents: %s)", agent, root, #known > 0 and table.concat(known, ", ") or "none"), 0)
  end
  local chat = create(agent, root, src, opts)
  show(chat)
  return chat
end

require("radium.chat_exit").define(M)

return M
