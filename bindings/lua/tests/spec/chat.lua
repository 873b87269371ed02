-- :RadiumChat with the example ACP agent and a command agent (real
-- processes): a turn that streams, context variables, a permission asked
-- with vim.ui.select, the agent's write landing in the loaded buffer, tool
-- calls folded, cancel, several chats, the statusline, and the errors.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin
local radium = h.radium

local function chat_text(chat)
  return table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
end

-- The virtual texts of the chat (statuses and answers), line by line.
local function notes_of(chat)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, vim.api.nvim_get_namespaces().radium_chat, 0, -1, { details = true })) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      local line = vim.api.nvim_buf_get_lines(chat.buf, m[2], m[2] + 1, false)[1]
      out[#out + 1] = line .. " |" .. chunk[1]
    end
  end
  return table.concat(out, "\n")
end

-- Writes `text` under the last "## You" of the chat and sends it with :w.
local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, vim.split(text, "\n"))
  vim.cmd("write")
end

local function ready(chat)
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "the chat's session did not open: " .. tostring(chat.failed))
end

local function turn_done(chat)
  pt.wait(function() return chat.turns and chat.turns > 0 and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
end

local function open(agent)
  local chat = require("radium.chat").open(agent)
  ready(chat)
  return chat
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

test(":RadiumChat: a turn streams in, with #buffer as context, while the statusline shows it", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open("example")
  eq(vim.bo[chat.buf].filetype, "markdown", "a Markdown buffer")
  check(vim.api.nvim_buf_get_name(chat.buf):find("radium%-chat://%d+/example") ~= nil, "named after the agent")
  eq(radium.statusline(), "radium: example · mode default · model small · effort medium", "nothing runs yet: the chat's mode and model")
  say(chat, "hello there #buffer")
  check(radium.statusline():find("radium: example", 1, true) ~= nil, "the statusline while it runs: " .. radium.statusline())
  turn_done(chat)
  local text = chat_text(chat)
  check(text:find("\n## You\nhello there #buffer\n\n## example\n", 1, true) ~= nil, "the message, then the answer: " .. text)
  check(text:find("You said: hello there #buffer", 1, true) ~= nil, "the answer streamed in")
  check(text:find("Context: file://" .. p.ws .. "/src/main.rs", 1, true) ~= nil, "#buffer was sent: " .. text)
  check(text:match("\n## You\n$") ~= nil, "a new ## You to write under: " .. vim.inspect(text:sub(-30)))
  eq(radium.statusline(), "radium: example · mode default · model small · effort medium", "nothing runs after the turn")
  eq(vim.bo[chat.buf].modified, false, "the chat is not a modified file")
  close_all()
end)

test("a permission asked with vim.ui.select; the agent's write lands in the loaded buffer (one undo step, no W12)", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.fn.writefile({ "old" }, p.ws .. "/notes.txt")
  vim.cmd("edit " .. p.ws .. "/notes.txt")
  local notes_buf = vim.api.nvim_get_current_buf()
  local asked
  local saved = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    asked = { items = items, prompt = opts.prompt, shown = vim.tbl_map(opts.format_item, items) }
    vim.schedule(function() on_choice(items[1]) end)
  end
  local chat = open("example")
  say(chat, "write notes.txt from the agent")
  turn_done(chat)
  vim.ui.select = saved
  eq(asked and asked.shown, { "Allow (allow once)", "Reject (reject once)", "Review hunks (keep some, allow with them)" }, "the agent's options, with what each does, and the review of its hunks")
  check(asked and asked.prompt:find("Write " .. p.ws .. "/notes.txt", 1, true), "the prompt names the call: " .. tostring(asked and asked.prompt))
  eq(vim.api.nvim_buf_get_lines(notes_buf, 0, -1, false), { "from the agent" }, "the buffer has the agent's text")
  eq(vim.bo[notes_buf].modified, false, "and is the file")
  local text = chat_text(chat)
  check(text:find("**tool** `Write " .. p.ws .. "/notes.txt` (edit)\n", 1, true) ~= nil, "a compact tool entry: " .. text)
  check(notes_of(chat):find("(edit) | ✓ completed", 1, true) ~= nil, "its status: " .. notes_of(chat))
  check(text:find("    -old\n    +from the agent", 1, true) ~= nil, "with its diff")
  check(notes_of(chat):find("**permission** `Write " .. p.ws .. "/notes.txt` | → Allow", 1, true) ~= nil, "the answer noted: " .. notes_of(chat))
  check(text:find("**wrote** `", 1, true) ~= nil and text:find("(its buffer updated)", 1, true) ~= nil, "the write noted")
  local win = vim.fn.bufwinid(chat.buf)
  local row, plus
  for i, l in ipairs(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)) do
    if l:find("^%*%*tool%*%*") and not row then row = i end
    if l == "    +from the agent" and not plus then plus = i end
  end
  vim.api.nvim_win_call(win, function()
    eq(vim.fn.foldclosed(row), row, "the tool entry is folded")
    eq(vim.fn.foldclosed(plus), row, "its diff inside the fold")
  end)
  vim.cmd("checktime")
  local msgs = vim.api.nvim_exec2("messages", { output = true }).output
  check(not msgs:find("W1[12]"), "no W11/W12: " .. msgs)
  vim.api.nvim_buf_call(notes_buf, function() vim.cmd("silent undo") end)
  eq(vim.api.nvim_buf_get_lines(notes_buf, 0, -1, false), { "old" }, "u takes the agent's write back in one step")
  close_all()
end)

test("a permission prompt shows each option's kind and is decided by it, not by its name or id", function()
  -- The unruly agent's options: id `allow` named Reject of kind reject_once,
  -- id `reject` named Allow of kind allow_once.
  local p = pt.project()
  pt.trust(p.ws)
  local agents = vim.fn.readfile(p.home .. "/agents.toml")
  vim.list_extend(agents, {
    "", "[[agents]]", 'id = "unruly"', 'protocol = "acp"',
    string.format('command = ["node", "%s/tests/agents/unruly-agent.mjs"]', h.repo),
  })
  vim.fn.writefile(agents, p.home .. "/agents.toml")
  local saved = vim.ui.select
  local chat = open("unruly")
  for _, case in ipairs({ { pick = "Reject", id = "allow" }, { pick = "Allow", id = "reject" } }) do
    local shown
    vim.ui.select = function(items, opts, on_choice)
      shown = vim.tbl_map(opts.format_item, items)
      for _, o in ipairs(items) do
        if o.name == case.pick then vim.schedule(function() on_choice(o) end) end
      end
    end
    local turns = chat.turns or 0
    say(chat, "crafted")
    pt.wait(function() return (chat.turns or 0) > turns and not chat.running end, 15000)
    require("radium.chat_render").flush(chat)
    eq(shown, { "Reject (reject once)", "Allow (allow once)" }, "names with kinds")
    local text = chat_text(chat)
    -- The agent gets the chosen option's own id: `allow` for its Reject.
    check(text:find(string.format('"optionId":"%s"', case.id), 1, true) ~= nil, case.pick .. ": the option's exact id: " .. text)
  end
  vim.ui.select = saved
  close_all()
end)

test("an unsaved buffer is what the agent reads; a rejected permission; :RadiumCancel; several chats", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.fn.writefile({ "on disk" }, p.ws .. "/draft.txt")
  vim.cmd("edit " .. p.ws .. "/draft.txt")
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "unsaved" })
  local seen
  local saved = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    seen = items
    vim.schedule(function() on_choice(nil) end) -- the user pressed <Esc>
  end
  local one = open("example")
  local two = open("example")
  check(one.buf ~= two.buf, "two chats")
  say(one, "write draft.txt agent text")
  turn_done(one)
  vim.ui.select = saved
  check(seen ~= nil, "asked")
  local text = chat_text(one)
  check(text:find("    -unsaved", 1, true) ~= nil, "the diff is against the unsaved buffer: " .. text)
  check(text:find("I was not allowed to write", 1, true) ~= nil, "the agent was told no")
  check(notes_of(one):find("` | → rejected", 1, true) ~= nil, "the refusal noted: " .. notes_of(one))
  check(notes_of(one):find("| ✗ failed", 1, true) ~= nil, "the call failed")
  eq(vim.fn.readfile(p.ws .. "/draft.txt"), { "on disk" }, "nothing written")

  say(two, "slow")
  pt.wait(function() return chat_text(two):find("chunk 2", 1, true) ~= nil end)
  say(one, "plan")
  turn_done(one)
  check(chat_text(one):find("**plan** 2 step(s)\n    - [x] Look around\n    - [~] Answer", 1, true) ~= nil, "the plan: " .. chat_text(one))
  check(two.running, "the other chat still streams")
  check(radium.statusline():find("example", 1, true) ~= nil, "the statusline: " .. radium.statusline())
  vim.api.nvim_set_current_win(vim.fn.bufwinid(two.buf))
  local notes = pt.notes()
  vim.cmd("RadiumCancel")
  notes.stop()
  eq(notes.last()[1], "radium: cancelled 1 request(s)", "said")
  pt.wait(function() return not two.running end)
  require("radium.chat_render").flush(two)
  check(chat_text(two):find("**stopped** cancelled", 1, true) ~= nil, "cancelled: " .. chat_text(two))
  say(two, "again")
  turn_done(two)
  check(chat_text(two):find("You said: again", 1, true) ~= nil, "the conversation goes on")
  close_all()
end)

test("a command agent in a chat; context variables and their errors; bad chats", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open("prose")
  say(chat, "talk to me")
  turn_done(chat)
  check(chat_text(chat):find("## prose\nJust words, no code.", 1, true) ~= nil, "the command agent's answer: " .. chat_text(chat))
  local notes = pt.notes()
  say(chat, "look at #file:nope.txt")
  eq(notes.last(), { "radium: #file:nope.txt: no such file in " .. p.ws, vim.log.levels.ERROR }, "a missing file")
  say(chat, "")
  eq(notes.last(), { "radium: write a message under the last \"## You\" first", vim.log.levels.WARN }, "an empty message")
  vim.cmd("RadiumChat nobody")
  check(notes.last()[1]:find("radium: no agent `nobody` in " .. p.ws .. " (agents: example, reviewer, prose, answer)", 1, true) ~= nil, "unknown agent: " .. notes.text())
  eq(notes.last()[2], vim.log.levels.ERROR, "as an error")
  notes.stop()
  local other = open("example")
  vim.cmd("wincmd p")
  vim.api.nvim_buf_set_lines(vim.fn.bufnr(p.ws .. "/src/main.rs"), 0, -1, false, { "fn main() {", "    work();", "}" })
  vim.api.nvim_buf_set_mark(vim.fn.bufnr(p.ws .. "/src/main.rs"), "<", 2, 0, {})
  vim.api.nvim_buf_set_mark(vim.fn.bufnr(p.ws .. "/src/main.rs"), ">", 2, 0, {})
  vim.fn.writefile({ "notes" }, p.ws .. "/README")
  say(other, "see #selection and #file:README")
  turn_done(other)
  local text = chat_text(other)
  check(text:find("file://" .. p.ws .. "/src/main.rs#L2-L2", 1, true) ~= nil, "#selection sent: " .. text)
  check(text:find("file://" .. p.ws .. "/README", 1, true) ~= nil, "#file sent")
  close_all()
end)

test("code blocks of a chat turn that name files are reviewed in those files", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  p.answer("Two changes:\n```rust path=src/main.rs\nfn main() { run(); }\n```\n```python path=py/x.py\nprint(1)\n```\nand one without a path:\n```\nloose\n```")
  local chat = open("answer")
  local notes = pt.notes()
  say(chat, "change things")
  turn_done(chat)
  check(notes.find("3 code block(s) from `answer`"), "announced: " .. notes.text())
  vim.cmd("RadiumPreview 2")
  eq(vim.api.nvim_buf_get_name(0), p.ws .. "/py/x.py", "the new file's buffer is shown")
  vim.api.nvim_feedkeys("gA", "xt", false)
  eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), { "print(1)" }, "accepted")
  vim.cmd("RadiumApply 1")
  eq(vim.api.nvim_buf_get_lines(vim.fn.bufnr(p.ws .. "/src/main.rs"), 0, -1, false), { "fn main() { run(); }" }, "main.rs changed in its buffer")
  vim.cmd("RadiumApply 3")
  eq(notes.last(), { "radium: the block names no file; send a selection with :RadiumSend to place it", vim.log.levels.ERROR }, "a block with no path")
  notes.stop()
  close_all()
end)

test("a flood of text: long lines shown broken at character boundaries, highlighting off until the turn ends", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open("example")
  local ticks, timer = 0, vim.uv.new_timer()
  timer:start(10, 10, vim.schedule_wrap(function() ticks = ticks + 1 end))
  local t0 = vim.uv.hrtime()
  say(chat, "stream 2000 1024")
  pt.wait(function() return chat.plain == true or not chat.running end)
  check(chat.plain == true, "highlighting is off while 2 MB stream in")
  turn_done(chat)
  timer:stop()
  timer:close()
  local ms = (vim.uv.hrtime() - t0) / 1e6
  -- A 10 ms timer ticks about ms/10 times when the loop runs; a loop held
  -- by the stream would tick once at most, at its end. On a loaded machine
  -- (CI on 2 busy cores) an eighth of the ticks, and at least 2, are asked.
  check(ticks >= math.max(2, ms / 10 / 8), string.format("the main loop kept running (%d ticks in %.0f ms)", ticks, ms))
  check(chat.plain, "a chat over 1 MiB stays without highlighting after the turn (chat_flood: a smaller one gets it back)")
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  local answer, longest = {}, 0
  for _, l in ipairs(lines) do
    if l:find("^y+$") then
      answer[#answer + 1] = l
      longest = math.max(longest, #l)
    end
  end
  eq(#table.concat(answer), 2000 * 1024, "all the text is there")
  eq(longest, require("radium.chat_render").LONG_LINE, "no line longer than the limit")
  -- Multibyte text is broken between characters, never inside one.
  local render = require("radium.chat_render")
  render.event(chat, { type = "text", text = string.rep("é", 1500) })
  render.flush(chat)
  local tail = vim.api.nvim_buf_get_lines(chat.buf, -3, -1, false)
  for _, l in ipairs(tail) do
    check(vim.str_utfindex(l, "utf-32") ~= nil and not l:find("^[\128-\191]"), "valid UTF-8 pieces: " .. #l)
  end
  eq(table.concat(tail), string.rep("é", 1500), "the characters are all there")
  close_all()
end)

test("a hook that rejects an agent's tool call is reported in the chat and as a warning", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  -- A script hook (Lua hooks in permission checks: tests/spec/sessions.lua).
  radium.register_script("no-writes", "before_tool", { "/bin/sh", "-c", "cat > /dev/null; echo 'read-only today' >&2; exit 2" })
  local asked = false
  local saved = vim.ui.select
  vim.ui.select = function(_, _, on_choice) asked = true; on_choice(nil) end
  local notes = pt.notes()
  local chat = open("example")
  say(chat, "write blocked.txt nope")
  turn_done(chat)
  notes.stop()
  vim.ui.select = saved
  radium.unregister("no-writes")
  check(not asked, "nobody was asked")
  local text = chat_text(chat)
  check(text:find("**permission** rejected by hook:no-writes: read-only today", 1, true) ~= nil, "in the chat: " .. text)
  check(notes.find("radium: a tool call was rejected by hook:no-writes: read-only today"), "said: " .. notes.text())
  eq(notes.find("rejected by hook")[2], vim.log.levels.WARN, "as a warning")
  eq(vim.fn.filereadable(p.ws .. "/blocked.txt"), 0, "nothing written")
  close_all()
end)

test(":RadiumSend without a prompt asks for one; <Esc> sends nothing", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local editor = require("radium.editor")
  local saved = vim.ui.input
  local asked
  vim.ui.input = function(opts, on_confirm) asked = opts.prompt; on_confirm(nil) end
  vim.cmd("RadiumSend")
  eq(asked, "radium prompt: ", "asked")
  eq(editor.running, nil, "<Esc>: nothing sent")
  vim.ui.input = function(_, on_confirm) on_confirm("make it better") end
  local quiet = pt.notes()
  vim.cmd("RadiumSend")
  check(editor.running ~= nil, "sent with the prompt typed")
  pt.wait(function() return editor.running == nil end)
  quiet.stop()
  vim.ui.input = saved
  eq(editor.last.answer.context.selection, "fn main() {}", "the line was sent")
  close_all()
end)

test("a chat belongs to the project of the window it was opened from: the engine, :RadiumLog", function()
  local p = pt.project()
  -- Neovim's working directory is elsewhere: the chat must not fall back to it.
  local elsewhere = vim.fn.tempname()
  vim.fn.mkdir(elsewhere, "p")
  local cwd = vim.fn.getcwd()
  vim.cmd("cd " .. elsewhere)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open("example")
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local project = require("radium.project")
  eq(project.root(), p.ws, "the chat window's project")
  eq(project.root(chat.buf), p.ws, "the chat buffer's project")
  check(project.engine() == project.engine(p.ws), "commands from the chat use the project's engine")
  vim.cmd("cd " .. cwd)
  close_all()
end)

test("a diff sent only with the permission request is in the chat before the question, and drawn once", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.fn.writefile({ "rate = 1" }, p.ws .. "/price.py")
  local chat
  local at_question
  local saved = vim.ui.select
  local open_at_question
  vim.ui.select = function(items, _, on_choice)
    at_question = chat_text(chat)
    -- The diff's lines are not in a closed fold: they are on screen.
    local win = vim.fn.bufwinid(chat.buf)
    for i, l in ipairs(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)) do
      if l == "    +rate = 2" then
        open_at_question = vim.api.nvim_win_call(win, function() return vim.fn.foldclosed(i) end) == -1
      end
    end
    vim.schedule(function() on_choice(items[1]) end)
  end
  vim.cmd("edit " .. p.ws .. "/price.py")
  chat = open("example")
  -- Announced without its diff; the diff comes with the request (as Claude
  -- Code's adapter sends it).
  say(chat, "latewrite price.py rate = 2")
  turn_done(chat)
  vim.ui.select = saved
  check(at_question ~= nil, "the question was asked: " .. chat_text(chat))
  check((at_question or ""):find("    -rate = 1\n    +rate = 2", 1, true) ~= nil, "the diff before the question: " .. tostring(at_question))
  eq(open_at_question, true, "the diff is shown, not folded, when asked")
  local text = chat_text(chat)
  local _, n = text:gsub("    %+rate = 2", "")
  eq(n, 1, "drawn once: " .. text)
  eq(vim.fn.readfile(p.ws .. "/price.py"), { "rate = 2" }, "allowed, the agent wrote it: " .. text)
  close_all()
end)

test("#image:<path> in the chat sends the image to an agent that takes images; a bad one is an error and nothing is sent", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = open("example")
  eq(chat.root, p.ws, "the chat is the project's")
  vim.fn.writefile({ "png bytes" }, p.ws .. "/shot.png", "b")
  local notes = pt.notes()
  say(chat, "what is in #image:shot.png")
  turn_done(chat)
  local text = chat_text(chat)
  check(text:find("Images: image/png 9 bytes", 1, true) ~= nil, "the image reached the agent: " .. text .. "\n" .. notes.text())
  local turns = chat.turns
  say(chat, "and #image:missing.png")
  check(notes.last()[1]:find("^radium: [^:]*/missing.png: No such file") ~= nil, "a missing image is named: " .. notes.text())
  eq(notes.last()[2], vim.log.levels.ERROR, "as an error")
  vim.fn.writefile({ "x" }, p.ws .. "/notes.txt")
  say(chat, "and #image:notes.txt")
  check(notes.last()[1]:find("not an image type radium sends", 1, true) ~= nil, "not an image: " .. notes.text())
  eq(chat.turns, turns, "no turn was started")
  notes.stop()
  close_all()
end)
