-- A chat's highlighting and folds by expression, off during a flood: past
-- PLAIN_AFTER bytes in a turn or a write of more than FLOOD bytes, back at
-- the turn's end unless the chat holds more than HIGHLIGHT_MAX.
local M = {}

-- Past this many bytes in a turn the chat is shown without highlighting
-- until the turn ends: highlighting a flood as it arrives would take the
-- main loop from the keys.
M.PLAIN_AFTER = 64 * 1024

-- More text than this waiting for one write is a flood (a model streams a
-- few hundred bytes a frame): the chat goes plain at once, as past
-- PLAIN_AFTER (tree-sitter re-parsing the answer at each redraw was most of
-- a flood's main-loop time).
M.FLOOD = 8 * 1024

-- A chat of more bytes than this stays plain once a flood made it so:
-- parsing megabytes of Markdown again at the turn's end would take the
-- main loop (about 0.6 s for 5 MB), and so would computing its folds.
M.HIGHLIGHT_MAX = 1024 * 1024

-- Folds by expression in the chat's windows (`on`), or kept as they are
-- (manual): the expression runs for every line written, most of a flood's
-- main-loop time.
local function folds(buf, on)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if on then
      vim.wo[win].foldmethod = "expr"
    elseif vim.wo[win].foldmethod == "expr" then
      vim.wo[win].foldmethod = "manual"
    end
  end
end

-- The buffer's tree-sitter parser stays attached once highlighting stops,
-- and edits every tree it holds at each write: one per Markdown paragraph
-- for the inline injections, which made each write of a flood cost as much
-- as the paragraphs above it. They go (the highlighter parses them again
-- when it starts); `remove_child` is the parser's own (private) method,
-- so a Neovim without it keeps them.
local function drop_injections(buf)
  local ok, parser = pcall(vim.treesitter.get_parser, buf, "markdown", { error = false })
  if ok and parser and type(parser.remove_child) == "function" then
    for lang in pairs(parser:children()) do
      pcall(parser.remove_child, parser, lang)
    end
  end
end

--- Turns the chat's highlighting and folding by expression off (`off`)
--- or back on (not for a chat over HIGHLIGHT_MAX bytes: it stays plain,
--- its folds as they were).
function M.highlight(chat, on)
  local buf = chat.buf
  if on and chat.plain then
    local n = vim.api.nvim_buf_line_count(buf)
    if vim.api.nvim_buf_get_offset(buf, n) > M.HIGHLIGHT_MAX then
      return
    end
  end
  if not on then
    pcall(vim.treesitter.stop, buf)
    drop_injections(buf)
    vim.bo[buf].syntax = "OFF"
    folds(buf, false)
    chat.plain = true
  elseif chat.plain then
    chat.plain = false
    folds(buf, true)
    if not pcall(vim.treesitter.start, buf, "markdown") then
      vim.bo[buf].syntax = "markdown"
    end
  end
end

return M
