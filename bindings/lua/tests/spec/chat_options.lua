-- The agent's modes and models in a chat, with the example ACP agent (modes
-- default / acceptEdits / plan / dontAsk, models small / large):
-- :RadiumMode and :RadiumModel with a value, with vim.ui.select, their
-- completion, the chat's header line, the statusline, the agent's own
-- switch, and the errors.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin
local radium = h.radium

local function chat_text(chat)
  return table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
end

local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, vim.split(text, "\n"))
  vim.cmd("write")
end

local function open(agent)
  local chat = require("radium.chat").open(agent)
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "the chat's session did not open: " .. tostring(chat.failed))
  return chat
end

local function turn(chat, text)
  local before = chat.turns or 0
  say(chat, text)
  pt.wait(function() return (chat.turns or 0) > before and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

local function first_line(chat)
  return vim.api.nvim_buf_get_lines(chat.buf, 0, 1, false)[1]
end

test(":RadiumMode and :RadiumModel set the agent's mode and model, shown in the header and the statusline", function()
  pt.project()
  local chat = open("example")
  eq(first_line(chat), "# radium chat with example · mode default · model small · effort medium", "the header line")
  eq(radium.statusline(), "radium: example · mode default · model small · effort medium", "the statusline in the chat")
  eq(vim.fn.getcompletion("RadiumMode ", "cmdline"), { "default", "acceptEdits", "plan", "dontAsk" }, "completion of modes")
  eq(vim.fn.getcompletion("RadiumModel l", "cmdline"), { "large" }, "completion of models")
  vim.cmd("RadiumModel large")
  pt.wait(function() return chat.controls.model == "large" end)
  eq(first_line(chat), "# radium chat with example · mode default · model large · effort medium", "the header after :RadiumModel")
  -- Without a value: a vim.ui.select with the current one marked.
  local saved, shown = vim.ui.select, nil
  vim.ui.select = function(items, opts, on_choice)
    shown = vim.tbl_map(opts.format_item, items)
    on_choice(items[3])
  end
  vim.cmd("RadiumMode")
  vim.ui.select = saved
  check(shown and shown[1]:find("^● default") ~= nil, "the current mode marked: " .. vim.inspect(shown))
  check(shown and shown[3]:find("^  plan") ~= nil, "plan offered: " .. vim.inspect(shown))
  pt.wait(function() return chat.controls.mode == "plan" end)
  eq(radium.statusline(), "radium: example · mode plan · model large · effort medium", "the statusline after :RadiumMode")
  turn(chat, "whoami")
  check(chat_text(chat):find("mode plan, model large, effort medium", 1, true) ~= nil, "the agent has them: " .. chat_text(chat))
  eq(vim.bo[chat.buf].modified, false, "the header change leaves the chat unmodified")
  close_all()
end)

test("the agent's own switch updates the header; a value it does not offer is an error", function()
  pt.project()
  local chat = open("example")
  turn(chat, "switchmode acceptEdits")
  eq(first_line(chat), "# radium chat with example · mode acceptEdits · model small · effort medium", "the header after the agent switched")
  local notes = pt.notes()
  vim.cmd("RadiumModel gigantic")
  pt.wait(function() return notes.find("gigantic") ~= nil end)
  notes.stop()
  local note = notes.find("gigantic") or {}
  check(tostring(note[1]):find("does not offer `gigantic` for `model` (it offers: small, large)", 1, true) ~= nil, "said: " .. notes.text())
  eq(note[2], vim.log.levels.ERROR, "an error")
  eq(chat.controls.model, "small", "unchanged")
  close_all()
  notes = pt.notes()
  vim.cmd("RadiumMode plan")
  notes.stop()
  check(notes.text():find("no chat with a running session", 1, true) ~= nil, "no chat: " .. notes.text())
end)

test("the agent's switch between turns reaches the chat: header, statusline and usage", function()
  pt.project()
  local chat = open("example")
  turn(chat, "latemode plan")
  -- The turn has ended; the agent switches 200 ms later, between turns.
  pt.wait(function() return chat.controls.mode == "plan" and chat.usage ~= nil end, 15000)
  eq(first_line(chat), "# radium chat with example · mode plan · model small · effort medium", "the header after the switch between turns")
  eq(radium.statusline():find("mode plan", 1, true) ~= nil, true, "the statusline: " .. radium.statusline())
  close_all()
end)

test("a notice of the session's start is in the chat as it opens, and said once", function()
  local p = pt.project()
  vim.fn.writefile({ "[[servers]]", 'name = "docs"', 'type = "http"', 'url = "http://127.0.0.1:9/mcp"' }, p.home .. "/mcp.toml")
  local chat = open("example")
  require("radium.chat_render").flush(chat)
  local _, shown = chat_text(chat):gsub("MCP server `docs`", "")
  eq(shown, 1, "the notice in the chat before any prompt: " .. chat_text(chat))
  turn(chat, "hello")
  _, shown = chat_text(chat):gsub("MCP server `docs`", "")
  eq(shown, 1, "not repeated by the first turn: " .. chat_text(chat))
  vim.fn.delete(p.home .. "/mcp.toml")
  close_all()
end)

test("an agents.toml default the agent does not offer is a warning; the others apply", function()
  local p = pt.project()
  local lines = vim.fn.readfile(p.home .. "/agents.toml")
  vim.list_extend(lines, {
    "",
    "[[agents]]",
    'id = "planner"',
    'protocol = "acp"',
    string.format('command = ["node", "%s/examples/acp-agent/agent.mjs"]', h.repo),
    'mode = "plan"',
    'model = "huge"',
  })
  vim.fn.writefile(lines, p.home .. "/agents.toml")
  local notes = pt.notes()
  local chat = open("planner")
  notes.stop()
  eq(chat.controls.mode, "plan", "the default mode applied")
  local note = notes.find("model = \"huge\"") or {}
  check(tostring(note[1]):find("does not offer `huge`", 1, true) ~= nil, "the warning: " .. notes.text())
  eq(note[2], vim.log.levels.WARN, "a warning")
  close_all()
end)

test(":RadiumEffort sets the agent's reasoning effort, with completion and a pick", function()
  pt.project()
  local chat = open("example")
  eq(vim.fn.getcompletion("RadiumEffort ", "cmdline"), { "low", "medium", "high" }, "completion of efforts")
  eq(vim.fn.getcompletion("RadiumEffort h", "cmdline"), { "high" }, "completion by prefix")
  vim.cmd("RadiumEffort high")
  pt.wait(function() return chat.controls.options[3].current == "high" end)
  local saved, shown, prompt = vim.ui.select, nil, nil
  vim.ui.select = function(items, opts, on_choice)
    shown, prompt = vim.tbl_map(opts.format_item, items), opts.prompt
    on_choice(items[1])
  end
  vim.cmd("RadiumEffort")
  vim.ui.select = saved
  check(shown and shown[3]:find("^● high") ~= nil, "the current effort marked: " .. vim.inspect(shown))
  check(tostring(prompt):find("reasoning effort", 1, true) ~= nil, "the pick's prompt: " .. tostring(prompt))
  pt.wait(function() return chat.controls.options[3].current == "low" end)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  eq(radium.statusline(), "radium: example · mode default · model small · effort low", "the statusline shows the effort")
  turn(chat, "whoami")
  check(chat_text(chat):find("mode default, model small, effort low", 1, true) ~= nil, "the agent has it: " .. chat_text(chat))
  local notes = pt.notes()
  vim.cmd("RadiumEffort extreme")
  pt.wait(function() return notes.find("extreme") ~= nil end)
  notes.stop()
  check(notes.text():find("does not offer `extreme` for `effort` (it offers: low, medium, high)", 1, true) ~= nil, "said: " .. notes.text())
  close_all()
end)
