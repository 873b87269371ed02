-- :RadiumChat history: the project's past conversations (the engine's
-- `history-list`, newest first) in vim.ui.select; the one picked reopens in a
-- chat buffer with its transcript (`history-read`), resumed: the agent takes
-- up its own session when it can, else the earlier turns go with the next
-- prompt as context (the chat says which). Its prompts keep their
-- `tag_before`, so :RadiumRestore works on them too. The agent's own
-- sessions (ACP `session/list`) that radium's history does not hold are
-- listed after them, marked "(the agent's own)": listing starts the agent,
-- so they are asked only of the agent named (`:RadiumChat history AGENT`)
-- or, without one, of the agents with a chat open in the project. One picked
-- opens a chat resumed from it, without a transcript (the chat says so).
-- The requests run off the main loop.
local project = require("radium.project")

local M = {}
local levels = vim.log.levels
local ns = vim.api.nvim_create_namespace("radium_chat_prompts")

--- History requests in flight (tests wait on them).
M.running = 0

local function when(ms)
  return os.date("%Y-%m-%d %H:%M", math.floor((tonumber(ms) or 0) / 1000))
end

--- One line of the picker: agent, turns, time, title; for one of the
--- agent's own sessions: agent, the mark, time, title.
function M.format(c)
  if c.source == "agent" then
    local at = type(c.updated_at) == "string" and c.updated_at:sub(1, 16):gsub("T", " ") or "?"
    local title = type(c.title) == "string" and c.title ~= "" and c.title or "(no title)"
    return string.format("%s · (the agent's own) · %s · %s", c.agent, at, title)
  end
  return string.format("%s · %d turn(s) · %s · %s", c.agent, c.turns or 0, when(c.updated), c.title ~= "" and c.title or "(no prompt)")
end

-- Lines of `text`, none of them a heading the chat reads as a message's.
local function lines_of(text)
  local out = {}
  for _, line in ipairs(vim.split(text or "", "\n", { plain = true })) do
    out[#out + 1] = line:match("^## ") and " " .. line or line
  end
  return out
end

--- Writes the earlier `turns` of a conversation into `chat`'s buffer, above
--- its last "## You", and keeps their prompts (with their tag_before) for
--- :RadiumRestore.
function M.transcript(chat, turns)
  local buf = chat.buf
  local at = vim.api.nvim_buf_line_count(buf) - 2 -- the last "## You"
  local lines, starts = {}, {}
  for _, t in ipairs(turns) do
    starts[#starts + 1] = at + #lines
    vim.list_extend(lines, { "## You", "" })
    vim.list_extend(lines, lines_of(t.prompt))
    vim.list_extend(lines, { "", "## " .. chat.agent, "" })
    vim.list_extend(lines, lines_of(t.text))
    if type(t.error) == "string" then
      lines[#lines + 1] = "**error** " .. t.error
    end
    lines[#lines + 1] = ""
  end
  vim.api.nvim_buf_set_lines(buf, at, at, false, lines)
  chat.prompts = chat.prompts or {}
  for i, t in ipairs(turns) do
    chat.prompts[#chat.prompts + 1] = {
      text = t.prompt,
      tag_before = type(t.tag_before) == "string" and t.tag_before or false,
      mark = vim.api.nvim_buf_set_extmark(buf, ns, starts[i], 0, {}),
    }
  end
  chat.turns = #turns
  vim.bo[buf].modified = false
end

--- Says how `session` took up the conversation `chat` reopened.
function M.opened(chat, session)
  if not session.resumed then
    return
  end
  local how = session.resumed == "context"
      and "it gets the earlier turns with your next prompt"
      or "it resumed its own session"
  chat.resumed = session.resumed
  project.notify(string.format("reopened with `%s`: %s", chat.agent, how))
end

-- Reads conversation `c` and reopens it in a chat.
local function reopen(root, c)
  project.request_async(M, root, { command = "history-read", cwd = root, args = { id = c.id } }, function(r)
    if not r.ok then
      return project.notify("the conversation could not be read: " .. r.error, levels.ERROR)
    end
    for _, w in ipairs(r.data.warnings or {}) do
      project.notify(w, levels.WARN)
    end
    require("radium.chat").open(c.agent, { resume = c.id, turns = r.data.turns })
  end)
end

--- Opens a chat that takes up the agent's own session `s` (an item of
--- `history-list`'s `agent_sessions`); radium holds no transcript of it.
local function take_up(s)
  local chat = require("radium.chat").open(s.agent, { resume = s.id })
  require("radium.chat_render").entry_above(chat, "resumed", string.format(
    "the agent's own session %s: radium holds no transcript of it; the agent remembers it", s.acp_session))
end

--- The agents whose own sessions `:RadiumChat history` lists in `root`:
--- `agent` when named, else those with a chat open in the project.
function M.agents_to_ask(root, agent)
  if agent then
    return { agent }
  end
  local out = {}
  for _, chat in pairs(require("radium.chat").list()) do
    if chat.root == root and not vim.tbl_contains(out, chat.agent) then
      out[#out + 1] = chat.agent
    end
  end
  table.sort(out)
  return out
end

-- Asks `agent` for its own sessions of `root`; `done(sessions)` runs once
-- answered. An agent that cannot list is said only when it was named.
local function ask_agent(root, agent, named, done)
  project.request_async(M, root, { command = "history-list", cwd = root, args = { agent = agent } }, function(r)
    if not r.ok then
      project.notify(string.format("the sessions of `%s` could not be listed: %s", agent, r.error), levels.WARN)
      return done({})
    end
    for _, w in ipairs(r.data.warnings or {}) do
      if w:find("agent `" .. agent .. "`", 1, true) and (named or not w:find("does not list its sessions", 1, true)) then
        project.notify(w, levels.WARN)
      end
    end
    done(r.data.agent_sessions or {})
  end)
end

--- :RadiumChat history [AGENT]: picks a past conversation of the current
--- buffer's project, or one of the agent's own sessions, and reopens it.
--- `on_list(items)` (tests) runs once everything is listed: radium's
--- conversations, then the agents' own sessions (their `source` is "agent").
function M.pick(agent, on_list)
  if type(agent) == "function" then
    agent, on_list = nil, agent
  end
  local root = project.root(vim.api.nvim_get_current_buf())
  local agents = M.agents_to_ask(root, agent)
  local conversations, own, waiting, failed = nil, {}, #agents + 1, false
  local function listed()
    waiting = waiting - 1
    if waiting > 0 or failed then
      return
    end
    local list = vim.list_extend(vim.list_extend({}, conversations), own)
    if on_list then
      on_list(list)
    end
    if #list == 0 then
      return project.notify("no past conversations in " .. root, levels.WARN)
    end
    vim.ui.select(list, { prompt = "radium: reopen the conversation", format_item = M.format }, function(c)
      if c and c.source == "agent" then
        project.guard(take_up, c)
      elseif c then
        project.guard(reopen, root, c)
      end
    end)
  end
  project.request_async(M, root, { command = "history-list", cwd = root }, function(r)
    if not r.ok then
      failed = true
      return project.notify("the conversations could not be listed: " .. r.error, levels.ERROR)
    end
    for _, w in ipairs(r.data.warnings or {}) do
      project.notify(w, levels.WARN)
    end
    conversations = r.data.conversations or {}
    listed()
  end)
  for _, a in ipairs(agents) do
    ask_agent(root, a, agent ~= nil, function(sessions)
      for _, s in ipairs(sessions) do
        s.source = "agent"
        own[#own + 1] = s
      end
      listed()
    end)
  end
end

return M
