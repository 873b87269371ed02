-- A pure-Lua ACP client, the yardstick of the key-echo benchmark (echo.py):
-- it spawns the agent itself and draws its answer in a chat buffer, in one
-- of two ways:
--   "percall": as codecompanion.nvim does: each stdout line decoded with
--     vim.json.decode in its own vim.schedule callback, one buffer write
--     per update;
--   "joined": each stdout read scheduled once, its lines decoded and the
--     text of all its updates joined into one buffer write.
-- It opens its chat with :RadiumChat (a split on the right, "## You"),
-- sends the text under the heading on :w, shows the text of
-- agent_message_chunk updates and the lines of a command's output
-- (`_meta.terminal_output.data`), and echoes BENCH-TURN-END when the
-- prompt's answer comes.
--   require("lua_client").setup({ mode = "joined", agent = { "node", "agent.mjs" } })
local M = {}

local uv = vim.uv or vim.loop

-- The length of the buffer's last line, kept as text is added (reading the
-- line back each time would copy a long line at every write).
local last_col = 0

local function draw(buf, text)
  if text == "" or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local last = vim.api.nvim_buf_line_count(buf)
  local parts = vim.split(text, "\n", { plain = true })
  vim.api.nvim_buf_set_text(buf, last - 1, last_col, last - 1, last_col, parts)
  last_col = #parts == 1 and last_col + #parts[1] or #parts[#parts]
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
  end
end

-- The text a decoded message adds to the chat, or nil.
local function text_of(msg)
  local u = msg.method == "session/update" and msg.params and msg.params.update
  if type(u) ~= "table" then
    return nil
  end
  if u.sessionUpdate == "agent_message_chunk" and type(u.content) == "table" then
    return u.content.text
  end
  local out = type(u._meta) == "table" and type(u._meta.terminal_output) == "table" and u._meta.terminal_output.data
  if u.sessionUpdate == "tool_call_update" and type(out) == "string" then
    return out
  end
  if u.sessionUpdate == "tool_call" then
    return "\n" .. tostring(u.title) .. "\n"
  end
end

function M.setup(opts)
  local mode, buf, stdin = opts.mode, nil, nil
  local next_id, waiting, session, partial = 1, {}, nil, ""

  local function send(method, params, done)
    local id = next_id
    next_id = next_id + 1
    waiting[id] = done
    stdin:write(vim.json.encode({ jsonrpc = "2.0", id = id, method = method, params = params }) .. "\n")
  end

  local function handle(msg)
    if msg.id and waiting[msg.id] then
      local done = waiting[msg.id]
      waiting[msg.id] = nil
      done(msg.result or {})
      return nil
    end
    return text_of(msg)
  end

  local function lines_of(chunk)
    local data = partial .. chunk
    local lines = vim.split(data, "\n", { plain = true })
    partial = table.remove(lines)
    return lines
  end

  local function on_stdout(err, chunk)
    if err or not chunk then
      return
    end
    if mode == "percall" then
      for _, line in ipairs(lines_of(chunk)) do
        vim.schedule(function()
          local text = handle(vim.json.decode(line))
          if text then
            draw(buf, text)
          end
        end)
      end
    else
      local lines = lines_of(chunk)
      vim.schedule(function()
        local texts = {}
        for _, line in ipairs(lines) do
          texts[#texts + 1] = handle(vim.json.decode(line))
        end
        draw(buf, table.concat(texts))
      end)
    end
  end

  local function start()
    local out = uv.new_pipe(false)
    stdin = uv.new_pipe(false)
    uv.spawn(opts.agent[1], { args = vim.list_slice(opts.agent, 2), stdio = { stdin, out, nil } }, function() end)
    out:read_start(on_stdout)
    send("initialize", { protocolVersion = 1, clientCapabilities = {} }, function()
      send("session/new", { cwd = vim.fn.getcwd(), mcpServers = {} }, function(r)
        session = r.sessionId
      end)
    end)
  end

  vim.api.nvim_create_user_command("RadiumChat", function()
    vim.cmd("botright vsplit")
    buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_name(buf, "bench-chat")
    vim.bo[buf].buftype = "acwrite"
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "# chat", "", "## You", "" })
    vim.api.nvim_win_set_cursor(0, { 4, 0 })
    vim.api.nvim_create_autocmd("BufWriteCmd", {
      buffer = buf,
      callback = function()
        local lines = vim.api.nvim_buf_get_lines(buf, 3, -1, false)
        vim.bo[buf].modified = false
        draw(buf, "\n\n## agent\n\n")
        send("session/prompt", { sessionId = session, prompt = { { type = "text", text = table.concat(lines, "\n") } } }, function()
          draw(buf, "\n\n## You\n")
          vim.g.bench_turn_end = true
          vim.api.nvim_echo({ { "BENCH-TURN-END" } }, false, {})
        end)
      end,
    })
    start()
  end, {})
end

return M
