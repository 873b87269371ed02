-- :RadiumChat shows what a tool call ran and printed (the example ACP agent
-- runs real commands, sent as Claude Code's adapter and Gemini CLI send
-- theirs): the command on the entry's line, its output below it, folded
-- with the entry, the middle of a long one left out, a non-zero exit code.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

local function lines_of(chat)
  return vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
end

local function say(chat, text)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { text })
  vim.cmd("write")
end

-- Opens a chat with the example agent and runs one turn of `text`.
local function turn(text)
  local chat = require("radium.chat").open("example")
  pt.wait(function() return chat.session ~= nil or chat.failed ~= nil end, 15000)
  assert(chat.session, "the chat's session did not open: " .. tostring(chat.failed))
  local before = chat.turns or 0
  say(chat, text)
  pt.wait(function() return (chat.turns or 0) > before and not chat.running end, 15000)
  require("radium.chat_render").flush(chat)
  return chat
end

-- The lines from the tool entry's line to the next line that is not indented.
local function tool_block(chat)
  local all, out = lines_of(chat), {}
  for i, l in ipairs(all) do
    if l:find("^%*%*tool%*%* ") then
      out[1] = l
      for j = i + 1, #all do
        if all[j]:sub(1, 4) ~= "    " then break end
        out[#out + 1] = all[j]
      end
      return out, i
    end
  end
  return out
end

local function close_all()
  for _, buf in ipairs(vim.tbl_keys(require("radium.chat").list())) do
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd("silent! only")
  vim.cmd("silent! %bwipeout!")
end

test("chat: a command's line and its output under the tool call, folded with it, the middle of a long one left out", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = turn("shell seq 1 30")
  local block, row = tool_block(chat)
  eq(block[1], "**tool** `$ seq 1 30` (execute)", "the entry names the command")
  local want = { "    1", "    2", "    3", "    4", "    5", "    6", "    7", "    8", "    … 14 more lines",
    "    23", "    24", "    25", "    26", "    27", "    28", "    29", "    30" }
  eq(vim.list_slice(block, 2), want, "the output, drawn once, its middle left out")
  vim.api.nvim_win_call(vim.fn.bufwinid(chat.buf), function()
    eq(vim.fn.foldclosed(row + 1), row, "the output folds with the entry")
    eq(vim.fn.foldclosedend(row), row + #block - 1, "all of it")
  end)
  check(table.concat(lines_of(chat), "\n"):find("The command exited with 0.", 1, true) ~= nil, "the answer after it")
  close_all()
end)

test("chat: a failed command shows its error output and exit code; one run elsewhere names its folder", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = turn("shell echo oops >&2; exit 3")
  eq(tool_block(chat), { "**tool** `$ echo oops >&2; exit 3` (execute)", "    oops", "    [exit 3]" }, "the error and the code")
  close_all()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  chat = turn("shellin src ls")
  eq(tool_block(chat), { "**tool** `$ ls` (execute, in src)", "    main.rs" }, "the folder, relative to the project")
  close_all()
end)

test("chat: a Gemini-style command shows the text of its content", function()
  local p = pt.project()
  pt.trust(p.ws)
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local chat = turn("gshell echo from gemini")
  eq(tool_block(chat), { "**tool** `echo from gemini` (execute)", "    from gemini" }, "its title and output")
  close_all()
end)

test("chat_tools.fold: short texts whole, long ones folded, long lines cut", function()
  local fold = require("radium.chat_tools").fold
  eq(fold("a\nb\n"), { "a", "b" }, "a short text")
  eq(#fold(string.rep("x\n", 21)), 17, "21 lines: 8, the fold, 8")
  eq(fold(string.rep("x\n", 21))[9], "… 5 more lines", "the fold says how many")
  local long = fold(string.rep("é", 600))[1]
  eq(vim.fn.strchars(long), 501, "a long line cut at 500 characters, then …")
end)
