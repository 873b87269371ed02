-- "Restore the files to before this prompt" in a chat: each prompt sent is
-- marked in the chat buffer and keeps its turn's `tag_before`;
-- :RadiumRestore [n] (or config.keymaps.restore on a prompt) lists the files
-- a rewind to that tag changes (the engine's `rewind` with dry_run), asks
-- with vim.ui.select, then rewinds and updates their loaded buffers. The
-- requests run off the main loop.
local project = require("radium.project")

local M = {}
local ns = vim.api.nvim_create_namespace("radium_chat_prompts")
local levels = vim.log.levels

--- Marks the prompt `text` about to be sent from `chat` (at its last
--- "## You" heading).
function M.mark(chat, text)
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  local row = #lines - 1
  for i = #lines, 1, -1 do
    if lines[i] == "## You" then
      row = i - 1
      break
    end
  end
  chat.prompts = chat.prompts or {}
  chat.prompts[#chat.prompts + 1] = { text = text, mark = vim.api.nvim_buf_set_extmark(chat.buf, ns, row, 0, {}) }
end

--- The end of the turn of `chat`'s last prompt: it keeps `tag_before`
--- (false when the engine kept no history for it).
function M.ended(chat, ev)
  local p = chat.prompts and chat.prompts[#chat.prompts]
  if p and p.tag_before == nil then
    p.tag_before = ev.tag_before or false
  end
end

-- The number of the prompt at or above the cursor, or nil.
local function at_cursor(chat)
  local win = vim.fn.bufwinid(chat.buf)
  if win == -1 or vim.api.nvim_get_current_buf() ~= chat.buf then
    return nil
  end
  local row = vim.api.nvim_win_get_cursor(win)[1] - 1
  local found
  for i, p in ipairs(chat.prompts or {}) do
    local pos = vim.api.nvim_buf_get_extmark_by_id(chat.buf, ns, p.mark, {})
    if pos[1] and pos[1] <= row then
      found = i
    end
  end
  return found
end

local function first_line(text)
  local line = vim.split(text, "\n", { plain = true })[1] or ""
  return vim.fn.strcharlen(line) > 60 and vim.fn.strcharpart(line, 0, 60) .. "…" or line
end

--- Restore requests in flight (tests wait on them).
M.running = 0

-- The engine's `rewind` to `tag`, without blocking the main loop: `done(r)`
-- with the answer, or `done(nil, error)`.
local function rewind(chat, tag, dry_run, done)
  project.request_async(M, chat.root, { command = "rewind", cwd = chat.root, args = { tag = tag, dry_run = dry_run } }, function(r)
    if r.ok then
      done(r)
    else
      done(nil, r.error)
    end
  end)
end

-- Restores the files of `chat` to before prompt `n`, after the question.
local function restore_to(chat, n, on_done)
  local p = chat.prompts[n]
  if not p.tag_before then
    local why = p.tag_before == false and "radium kept no history for it" or "its turn has not ended"
    return project.notify(string.format("cannot restore to before prompt %d: %s", n, why), levels.WARN)
  end
  rewind(chat, p.tag_before, true, function(plan, err)
    if not plan then
      return project.notify("restore: " .. tostring(err), levels.ERROR)
    end
    M.ask(chat, n, plan, on_done)
  end)
end

--- Lists the files of the preview `plan` (a `rewind` with dry_run) of
--- `chat`'s prompt `n`, asks, then restores; `on_done(data|nil)` after.
function M.ask(chat, n, plan, on_done)
  local p = chat.prompts[n]
  local files = plan.data.files or {}
  if #files == 0 then
    return project.notify(string.format("the files are as they were before prompt %d: nothing to restore", n))
  end
  local listing = {}
  for _, f in ipairs(files) do
    listing[#listing + 1] = "    " .. f
  end
  for _, w in ipairs(plan.warnings or {}) do
    listing[#listing + 1] = "    warning: " .. w
  end
  require("radium.chat_render").entry(chat, "restore",
    string.format("to before prompt %d (%s): %d file(s)", n, first_line(p.text), #files), listing)
  project.notify(string.format("restore to before prompt %d changes:\n%s", n, table.concat(listing, "\n")))
  vim.ui.select({ "Restore", "Cancel" }, {
    prompt = string.format("radium: restore %d file(s) to before prompt %d?", #files, n),
  }, function(choice)
    if choice ~= "Restore" then
      project.notify("restore: nothing changed")
      return on_done and on_done(nil)
    end
    -- A modified buffer of a file the restore changes is merged, not
    -- reloaded: its base is the file as it is now, before the restore.
    local writes = require("radium.writes")
    local bases = {}
    for _, f in ipairs(files) do
      local full = f:sub(1, 1) == "/" and f or (chat.root .. "/" .. f)
      local buf = writes.buffer_of(full)
      if buf and vim.bo[buf].modified then
        bases[full] = writes.read_disk(full)
      end
    end
    rewind(chat, p.tag_before, false, function(r, e)
      if not r then
        project.notify("restore: " .. tostring(e) .. "; nothing changed", levels.ERROR)
        return on_done and on_done(nil)
      end
      project.set_tag(chat.root, r.tag)
      for _, f in ipairs(r.data.files or {}) do
        local full = f:sub(1, 1) == "/" and f or (chat.root .. "/" .. f)
        writes.sync(full, { base = bases[full], root = chat.root })
      end
      project.notify(string.format("restored to before prompt %d: %s", n, table.concat(r.data.files or {}, ", ")))
      for _, w in ipairs(r.warnings or {}) do
        project.notify(w, levels.WARN)
      end
      return on_done and on_done(r.data)
    end)
  end)
end

--- :RadiumRestore [n]: the files of `chat` (default: the current chat) put
--- back to before prompt `n` (default: the prompt at or above the cursor,
--- else a pick among the prompts). `on_done(data|nil)` is called after.
function M.restore(chat, n, on_done)
  chat = chat or require("radium.chat").get()
  if not chat then
    return project.notify("not in a chat (:RadiumChat opens one)", levels.WARN)
  end
  local prompts = chat.prompts or {}
  if #prompts == 0 then
    return project.notify("no prompt sent in this chat yet", levels.WARN)
  end
  if n then
    if not prompts[n] then
      return project.notify(string.format("no prompt %s in this chat (1 to %d)", tostring(n), #prompts), levels.WARN)
    end
    return restore_to(chat, n, on_done)
  end
  local here = at_cursor(chat)
  if here then
    return restore_to(chat, here, on_done)
  end
  local items = {}
  for i = 1, #prompts do
    items[i] = i
  end
  vim.ui.select(items, {
    prompt = "radium: restore the files to before prompt",
    format_item = function(i) return string.format("%d. %s", i, first_line(prompts[i].text)) end,
  }, function(i)
    if i then
      restore_to(chat, i, on_done)
    end
  end)
end

return M
