-- The agent's modes, models and reasoning effort in a chat: :RadiumMode [m],
-- :RadiumModel [m] and :RadiumEffort [e] (the option of category
-- thought_level; completed with the values the agent offers; without a value, a
-- vim.ui.select with the current one marked), the current ones in the chat's
-- header line and in require("radium").statusline() while a chat is the
-- current buffer. Setting one waits for the agent off the main loop.
local project = require("radium.project")

local M = {}
local levels = vim.log.levels

-- The chat of the current buffer, else the newest chat (nil: none).
local function chat_now()
  local chats = require("radium.chat")
  local chat = chats.get()
  if chat then
    return chat
  end
  local list = chats.ordered()
  return list[#list]
end

-- The control of `chat` for `name` (a category, else an option id).
local function control(chat, name)
  local controls = chat and chat.controls
  local options = controls and type(controls.options) == "table" and controls.options or {}
  for _, c in ipairs(options) do
    if c.category == name then
      return c
    end
  end
  for _, c in ipairs(options) do
    if c.id == name then
      return c
    end
  end
end

local function text(v)
  return type(v) == "string" and v or nil
end

--- "mode plan · model small · effort high" for `chat` ("" when the agent offers none).
function M.summary(chat)
  local parts = {}
  for _, key in ipairs({ "mode", "model" }) do
    local value = chat and chat.controls and text(chat.controls[key])
    if value then
      parts[#parts + 1] = key .. " " .. value
    end
  end
  local effort = control(chat, "thought_level")
  if effort and text(effort.current) then
    parts[#parts + 1] = "effort " .. effort.current
  end
  return table.concat(parts, " · ")
end

--- The chat's first line: its agent, and the current mode and model.
function M.header(chat)
  if not vim.api.nvim_buf_is_valid(chat.buf) then
    return
  end
  local summary = M.summary(chat)
  local line = "# radium chat with " .. chat.agent .. (summary ~= "" and (" · " .. summary) or "")
  local modified = vim.bo[chat.buf].modified
  vim.api.nvim_buf_set_lines(chat.buf, 0, 1, false, { line })
  vim.bo[chat.buf].modified = modified
  pcall(vim.cmd.redrawstatus, { bang = true })
end

--- The session opened: its controls kept, the header drawn, the
--- agents.toml defaults that were not applied said, and the start's
--- notices shown in the chat.
function M.opened(chat, session)
  chat.controls = session.controls or {}
  M.header(chat)
  for _, warning in ipairs(type(chat.controls.warnings) == "table" and chat.controls.warnings or {}) do
    project.notify(warning, levels.WARN)
  end
  for _, notice in ipairs(session.notices or {}) do
    require("radium.chat_render").entry_above(chat, "notice", tostring(notice))
  end
end

--- An `options` event: the agent's controls changed (it switched itself).
function M.changed(chat, ev)
  chat.controls = vim.tbl_extend("force", chat.controls or {}, { options = ev.options, mode = ev.mode, model = ev.model })
  M.header(chat)
end

--- The values the current chat's agent offers for `name` ("mode", "model",
--- "thought_level").
function M.values(name)
  local out = {}
  local c = control(chat_now(), name)
  for _, v in ipairs(c and type(c.values) == "table" and c.values or {}) do
    out[#out + 1] = v.value
  end
  return out
end

--- Sets `name` to `value` on `chat`'s agent (without blocking); `done(err)`
--- after (nil: set).
function M.set(chat, name, value, done)
  done = done or function() end
  if not (chat and chat.session) then
    return done("no chat with a running session (:RadiumChat opens one)")
  end
  chat.session:set_option(name, value, function(controls, err)
    if err then
      project.notify(err, levels.ERROR)
      return done(err)
    end
    chat.controls = vim.tbl_extend("force", chat.controls or {}, controls)
    M.header(chat)
    project.notify(string.format("%s: %s", chat.agent, M.summary(chat)))
    done(nil)
  end)
end

--- :RadiumMode [m] / :RadiumModel [m] / :RadiumEffort [e]: sets it, or picks it with
--- vim.ui.select (the current one marked). Raises when there is no chat or
--- the agent offers no such control; a value it does not offer is said by
--- the engine (listing what it offers).
function M.command(name, arg)
  local chat = chat_now()
  if not (chat and chat.session) then
    error("radium: no chat with a running session (:RadiumChat opens one)", 0)
  end
  if arg and arg ~= "" then
    return M.set(chat, name, arg)
  end
  local c = control(chat, name)
  if not c or type(c.values) ~= "table" or #c.values == 0 then
    local word = name == "thought_level" and "reasoning effort" or name
    error(string.format("radium: `%s` offers no %s to choose", chat.agent, word), 0)
  end
  vim.ui.select(c.values, {
    prompt = string.format("radium: %s of %s", name == "thought_level" and "reasoning effort" or name, chat.agent),
    format_item = function(v)
      local mark = v.value == c.current and "● " or "  "
      local label = text(v.name) and v.name ~= v.value and string.format("%s (%s)", v.value, v.name) or v.value
      return mark .. label .. (text(v.description) and (": " .. v.description) or "")
    end,
  }, function(choice)
    if choice then
      M.set(chat, name, choice.value)
    end
  end)
end

--- For the statusline: the current chat's "mode … · model …" ("" outside a chat).
function M.statusline()
  local chat = require("radium.chat").get()
  return chat and M.summary(chat) or ""
end

return M
