-- What a chat does when Neovim exits: a message written but not sent does
-- not hold :qa back, and each chat's session is closed gently, Neovim
-- waiting (bounded) for the agents to save their sessions.

local M = {}

--- How long Neovim's exit waits, in all, for the chats' sessions to close.
M.WAIT_MS = 2000

--- Defines the exit autocommands for the chats of `chat_mod` (radium.chat).
function M.define(chat_mod)
  local exit_group = vim.api.nvim_create_augroup("radium_chat_exit", { clear = true })

  -- A message written but not sent does not hold :qa back (E37/E162): the
  -- chat is not a file.
  vim.api.nvim_create_autocmd("ExitPre", {
    group = exit_group,
    callback = function()
      for buf in pairs(chat_mod.list()) do
        if vim.api.nvim_buf_is_valid(buf) then
          vim.bo[buf].modified = false
        end
      end
    end,
  })

  -- Neovim exits: each chat's session is closed gently (an agent that keeps
  -- its sessions gets session/close, then SIGTERM), and Neovim waits for those
  -- closes, at most M.WAIT_MS in all, so the agent can save its session
  -- (a resume then takes it up) before Neovim's exit ends it.
  vim.api.nvim_create_autocmd("VimLeavePre", {
    group = exit_group,
    callback = function()
      local closing = {}
      for _, chat in pairs(chat_mod.list()) do
        if chat.session and not chat.closed then
          if pcall(chat.session.close, chat.session) then
            closing[#closing + 1] = chat.session
          end
        end
      end
      if #closing > 0 then
        vim.wait(M.WAIT_MS, function()
          for _, session in ipairs(closing) do
            if not session.closed then
              return false
            end
          end
          return true
        end, 20)
      end
    end,
  })
end

return M
