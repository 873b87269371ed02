-- Agent sessions in Neovim: a conversation with a coding agent whose events
-- arrive on Neovim's main loop while the agent works, never blocking it.
--
--   engine:session_open("claude", {
--     on_event = function(event) ... end,          -- every event (docs/sessions.md)
--     on_permission = function(event, answer) ... end,
--     on_close = function() ... end,               -- the session ended
--   }, function(session, err) ... end, { tag = tag })
--
-- `session.tag` is the dog tag of the session's conversation from the start
-- (the one in `opts.tag` continued, when radium knows it): record the
-- editor's own steps (an accepted review) with it, and they are in the same
-- chain as the agent's writes, for undo and rewinds.
--
-- `on_permission` decides a permission request: return "allow", "reject" or
-- one of the event's `options` (a table: sent by its exact id, decided by its
-- kind, so an option named "Reject" whose kind allows, allows) to answer at
-- once, or keep `answer` and call it later (after asking the user); nobody
-- answering within the agent's permission_timeout rejects it. Without `on_permission`, a permission event goes to `on_event`
-- and `session:answer(event.id, ...)` answers it.

local M = {}

local Session = {}
Session.__index = Session

local function checked(response)
  if not response.ok then
    error(string.format("radium: %s (%s)", response.error, response.code), 3)
  end
  return response.data
end

local function deliver(session, handlers, event)
  if event == nil then
    session.closed = true
    if handlers.on_close then
      handlers.on_close()
    end
    return
  end
  if event.type == "permission" and handlers.on_permission then
    local answered = false
    local function answer(choice)
      if answered then
        return
      end
      answered = true
      session:answer(event.id, choice)
    end
    local now = handlers.on_permission(event, answer)
    if type(now) == "string" or type(now) == "table" then
      answer(now)
    end
    return
  end
  if handlers.on_event then
    handlers.on_event(event)
  end
end

--- Opens a session with `agent` (an id from agents.toml) without blocking:
--- the agent starts in the background; `callback(session)` runs on the main
--- loop once it is ready, or `callback(nil, error, code)`. `opts.tag`: the
--- conversation to continue (a dog tag); `opts.resume`: a conversation of
--- the history to continue (its id from `history-list`): `session.resumed`
--- then says how ("resume", "load" or "context"), and `session.conversation`
--- is the id the history keeps the session under.
function M.open(engine, agent, handlers, callback, opts)
  vim.validate({
    agent = { agent, "string" },
    handlers = { handlers, "table" },
    callback = { callback, "function" },
    opts = { opts, "table", true },
  })
  local tag = opts and opts.tag
  if tag ~= nil and type(tag) ~= "string" then
    error("radium: `tag` must be a dog tag (a string)", 2)
  end
  for _, name in ipairs({ "on_event", "on_permission", "on_close" }) do
    if handlers[name] ~= nil and type(handlers[name]) ~= "function" then
      error(string.format("radium: handler `%s` must be a function", name), 2)
    end
  end
  local resume = opts and opts.resume
  if resume ~= nil and type(resume) ~= "string" then
    error("radium: `resume` must be a conversation id (a string)", 2)
  end
  engine:request_async({ command = "session-new", args = { agent = agent, tag = tag, resume = resume } }, function(response)
    if not response.ok then
      callback(nil, response.error, response.code)
      return
    end
    local session = setmetatable({
      engine = engine,
      id = response.data.session,
      agent = response.data.agent,
      workspace = response.data.workspace,
      tag = response.data.tag,
      -- The agent's modes and options: { options, mode, model, warnings }.
      controls = {
        options = response.data.options,
        mode = response.data.mode,
        model = response.data.model,
        warnings = response.data.warnings,
      },
      -- What the start could not do (an MCP server not passed, radium's
      -- tools not offered): shown as the chat opens.
      notices = type(response.data.notices) == "table" and response.data.notices or {},
      conversation = response.data.conversation ~= vim.NIL and response.data.conversation or nil,
      resumed = response.data.resumed ~= vim.NIL and response.data.resumed or nil,
      closed = false,
    }, Session)
    local ok, err = pcall(engine._handle.session_subscribe, engine._handle, session.id, function(event)
      deliver(session, handlers, event)
    end)
    if not ok then
      callback(nil, tostring(err), "internal")
      return
    end
    callback(session)
  end)
end

--- Starts a turn: `prompt` is text (or ACP content blocks); `opts` may carry
--- `context` (an editor context: file_path, selection, selection_range,
--- surrounding_lines), `buffers` ({ [path] = unsaved text }),
--- `open_files` ({ { path, text } }) and `images` ({ path }: image files of
--- the workspace, for an agent that takes images). Returns at once; the turn's events
--- follow, the last one `turn_end` or `error`. Raises when a turn is running.
function Session:prompt(prompt, opts)
  opts = opts or {}
  return checked(self.engine:request({
    command = "session-prompt",
    args = {
      session = self.id,
      prompt = prompt,
      context = opts.context or vim.NIL,
      buffers = opts.buffers or vim.NIL,
      open_files = opts.open_files or vim.NIL,
      images = opts.images or vim.NIL,
    },
  }))
end

--- Answers permission request `id`: "allow" or "reject" (the agent's option
--- of that kind), or one of the request's options (an entry of the event's
--- `options`, or `{ option = id }`), sent by its exact id: its kind decides.
--- A table may name the hunks kept of the request's diffs, `hunks = { [path]
--- = { index, ... } }` (0-based, as the event's `hunks` number them), with
--- `answer = "allow"` or an allowing option: the others are taken back.
function Session:answer(id, choice)
  local args = { session = self.id, id = id }
  if type(choice) == "table" then
    if choice.answer then
      args.answer = choice.answer
    else
      args.option = choice.option or choice.id
    end
    args.hunks = choice.hunks
  else
    args.answer = choice
  end
  return checked(self.engine:request({ command = "session-permission", args = args }))
end

--- Sets the agent's option `option` (an id, or a category: "mode",
--- "model", "thought_level") to `value`, one the agent offers, without
--- blocking: `callback(controls)` on the main loop once the agent took it
--- (`controls`: { options, mode, model }), or `callback(nil, error)`.
function Session:set_option(option, value, callback)
  vim.validate({ option = { option, "string" }, value = { value, "string" }, callback = { callback, "function" } })
  self.engine:request_async({
    command = "session-set-option",
    args = { session = self.id, option = option, value = value },
  }, function(response)
    if not response.ok then
      return callback(nil, response.error)
    end
    self.controls = vim.tbl_extend("force", self.controls or {}, {
      options = response.data.options,
      mode = response.data.mode,
      model = response.data.model,
    })
    callback(self.controls)
  end)
end

--- Cancels the running turn (it ends with stop_reason "cancelled").
function Session:cancel()
  return checked(self.engine:request({ command = "session-cancel", args = { session = self.id } }))
end

--- Ends the session: the agent and all its children end; `on_close` follows.
function Session:close()
  if self.closed then
    return
  end
  return checked(self.engine:request({ command = "session-close", args = { session = self.id } }))
end

return M
