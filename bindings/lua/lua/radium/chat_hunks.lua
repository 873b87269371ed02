-- Review hunks at a chat's permission prompt: each hunk of the request's
-- diffs (as the engine numbered them) is drawn in the chat as an entry, then
-- vim.ui.select asks "Keep" or "Reject"; the call is then allowed with the
-- hunks kept, and radium takes the rejected ones back from the agent's write.

local render = require("radium.chat_render")

local M = {}

--- Whether a permission request's diffs have hunks to review.
function M.has_hunks(call)
  for _, d in ipairs(call and call.diffs or {}) do
    if type(d.hunks) == "table" and #d.hunks > 0 then
      return true
    end
  end
  return false
end

--- A hunk as diff lines: its `@@` header, then `-` and `+` lines.
function M.lines(hunk)
  local old_n, new_n = hunk.old_count or 0, hunk.new_count or 0
  local out = {
    string.format(
      "@@ -%d,%d +%d,%d @@",
      (hunk.old_start or 0) + (old_n > 0 and 1 or 0),
      old_n,
      (hunk.new_start or 0) + (new_n > 0 and 1 or 0),
      new_n
    ),
  }
  for _, side in ipairs({ { "-", hunk.old_lines }, { "+", hunk.new_lines } }) do
    for _, line in ipairs(side[2] or {}) do
      out[#out + 1] = side[1] .. line:gsub("\r?\n$", "")
    end
  end
  return out
end

--- The hunks to ask about, in order: `{ path, index, of, hunk }`, the first
--- diff of each path (as the engine reviews them).
local function queue(call)
  local out, seen = {}, {}
  for _, d in ipairs(call and call.diffs or {}) do
    if type(d.path) == "string" and not seen[d.path] and type(d.hunks) == "table" then
      seen[d.path] = true
      for i, h in ipairs(d.hunks) do
        out[#out + 1] = { path = d.path, index = h.index or (i - 1), of = #d.hunks, hunk = h }
      end
    end
  end
  return out
end

--- Asks about each hunk of `call` in turn (drawn in `chat`, then Keep or
--- Reject); calls `done(kept)` with `{ [path] = { index, ... } }` (0-based,
--- as the engine numbers them), or `done(nil)` when a question is dismissed.
function M.review(chat, call, done)
  local items = queue(call)
  local kept = {}
  for _, item in ipairs(items) do
    kept[item.path] = kept[item.path] or {}
  end
  local function ask(i)
    local item = items[i]
    if not item then
      return done(kept)
    end
    -- Named from the chat's project, as the user knows it.
    local root = chat.root and (chat.root .. "/") or ""
    local name = item.path:sub(1, #root) == root and item.path:sub(#root + 1) or vim.fn.fnamemodify(item.path, ":~:.")
    local what = string.format("hunk %d of %d of `%s`", item.index + 1, item.of, name)
    local entry = render.entry(chat, "hunk", what, M.lines(item.hunk))
    vim.cmd("redraw")
    vim.ui.select({ "Keep", "Reject" }, {
      prompt = string.format("radium: keep %s?", what),
    }, function(choice)
      if not choice then
        render.note(chat, entry, "review stopped")
        return done(nil)
      end
      render.note(chat, entry, choice == "Keep" and "kept" or "rejected")
      if choice == "Keep" then
        table.insert(kept[item.path], item.index)
      end
      ask(i + 1)
    end)
  end
  ask(1)
end

return M
