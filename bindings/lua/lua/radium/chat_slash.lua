-- The agent's slash commands and usage in a chat buffer.
--
-- The agent's commands (its `commands` events, the latest list wins) are
-- completed in the chat buffer: typing `/` at the start of a line opens
-- them (the buffer's 'omnifunc', so <C-x><C-o> too), each with its input
-- hint as `menu` and its description as `info`. A message `/name args` is
-- sent to the agent unchanged: that is how it runs its commands.
-- The agent's usage (`usage` events: used/size tokens, cost) is shown in
-- the chat window's winbar and in `require("radium").statusline()` while
-- the chat is the current buffer.

local M = {}

--- "950", "12.3k", "200k", "1.5M".
---@param n number
---@return string
function M.tokens(n)
  local value, unit
  if n >= 1e6 then
    value, unit = n / 1e6, "M"
  elseif n >= 1e3 then
    value, unit = n / 1e3, "k"
  else
    return string.format("%d", n)
  end
  return (string.format("%.1f", value):gsub("%.0$", "")) .. unit
end

--- "12.3k/200k tokens, $0.04" for a chat's usage; nil when it has none.
---@param usage table|nil
---@return string|nil
function M.usage_text(usage)
  if type(usage) ~= "table" then
    return nil
  end
  local used = tonumber(usage.used) or tonumber(usage.totalTokens)
  if not used then
    return nil
  end
  local size = tonumber(usage.size)
  local text = size and (M.tokens(used) .. "/" .. M.tokens(size) .. " tokens") or (M.tokens(used) .. " tokens")
  local cost = type(usage.cost) == "table" and tonumber(usage.cost.amount)
  if cost then
    local currency = usage.cost.currency
    if currency == nil or currency == "USD" then
      text = text .. string.format(", $%.2f", cost)
    else
      text = text .. string.format(", %.2f %s", cost, tostring(currency))
    end
  end
  return text
end

--- Sets the winbar of every window showing `chat`: the agent and its usage.
function M.winbar(chat)
  local usage = M.usage_text(chat.usage)
  if not usage then
    return
  end
  local bar = ("radium: %s · %s"):format(chat.agent, usage):gsub("%%", "%%%%")
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    vim.wo[win].winbar = bar
  end
end

--- A chat's `commands` and `usage` events; answers whether `ev` was one.
function M.event(chat, ev)
  if ev.type == "commands" then
    chat.commands = type(ev.commands) == "table" and ev.commands or {}
    return true
  elseif ev.type == "usage" then
    chat.usage = chat.usage or {}
    for k, v in pairs(ev) do
      if k ~= "type" then
        chat.usage[k] = v
      end
    end
    M.winbar(chat)
    return true
  end
  return false
end

--- The completion items of `chat`'s commands whose `/name` starts with `base`.
---@return table[]
function M.items(chat, base)
  local items = {}
  for _, c in ipairs(chat and chat.commands or {}) do
    local word = "/" .. tostring(c.name)
    if vim.startswith(word, base) then
      local hint = type(c.hint) == "string" and c.hint or ""
      items[#items + 1] = {
        word = word .. " ",
        abbr = word,
        menu = hint ~= "" and ("<" .. hint .. ">") or "",
        info = type(c.description) == "string" and c.description or "",
        dup = 1,
      }
    end
  end
  return items
end

--- The chat buffer's 'omnifunc': the agent's commands at the start of a line.
function M.omnifunc(findstart, base)
  local chat = require("radium.chat").get(vim.api.nvim_get_current_buf())
  if findstart == 1 then
    local line = vim.api.nvim_get_current_line()
    local col = vim.api.nvim_win_get_cursor(0)[2]
    local before = line:sub(1, col)
    if chat and before:match("^/%S*$") then
      return 0
    end
    return -3
  end
  return M.items(chat, base)
end

--- Sets up the chat buffer: 'omnifunc', and `/` at the start of a line
--- opening the completion when the agent has commands.
function M.attach(chat)
  vim.bo[chat.buf].omnifunc = "v:lua.require'radium.chat_slash'.omnifunc"
  vim.keymap.set("i", "/", function()
    local col = vim.api.nvim_win_get_cursor(0)[2]
    if col == 0 and #(chat.commands or {}) > 0 and vim.fn.pumvisible() == 0 then
      return "/<C-x><C-o>"
    end
    return "/"
  end, { buffer = chat.buf, expr = true, desc = "radium: the agent's commands" })
  vim.api.nvim_create_autocmd("BufWinEnter", { buffer = chat.buf, callback = function() M.winbar(chat) end })
end

--- The usage of the current buffer's chat, for the statusline; "" when none.
function M.statusline()
  local chat = require("radium.chat").get(vim.api.nvim_get_current_buf())
  local usage = chat and M.usage_text(chat.usage)
  return usage and ("radium: " .. usage) or ""
end

return M
