-- :RadiumChat history: the project's past conversations (the engine's
-- `history-list`, newest first) in vim.ui.select; the one picked reopens in a
-- chat buffer with its transcript (`history-read`), resumed: the agent takes
-- up its own session when it can, else the earlier turns go with the next
-- prompt as context (the chat says which). Its prompts keep their
-- `tag_before`, so :RadiumRestore works on them too. The requests run off
-- the main loop.
local project = require("radium.project")

local M = {}
local levels = vim.log.levels
local ns = vim.api.nvim_create_namespace("radium_chat_prompts")

--- History requests in flight (tests wait on them).
M.running = 0

local function when(ms)
  return os.date("%Y-%m-%d %H:%M", math.floor((tonumber(ms) or 0) / 1000))
end

--- One line of the picker: agent, turns, time, title.
function M.format(c)
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

--- :RadiumChat history: picks a past conversation of the current buffer's
--- project and reopens it. `on_list(conversations)` (tests) runs once listed.
function M.pick(on_list)
  local root = project.root(vim.api.nvim_get_current_buf())
  project.request_async(M, root, { command = "history-list", cwd = root }, function(r)
    if not r.ok then
      return project.notify("the conversations could not be listed: " .. r.error, levels.ERROR)
    end
    for _, w in ipairs(r.data.warnings or {}) do
      project.notify(w, levels.WARN)
    end
    local list = r.data.conversations or {}
    if on_list then
      on_list(list)
    end
    if #list == 0 then
      return project.notify("no past conversations in " .. root, levels.WARN)
    end
    vim.ui.select(list, { prompt = "radium: reopen the conversation", format_item = M.format }, function(c)
      if c then
        project.guard(reopen, root, c)
      end
    end)
  end)
end

return M
