-- :RadiumLog: the engine's log in a split, read without blocking; a failed
-- request is there with its error; a new entry follows while it is shown;
-- the timer ends with the buffer.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

require("radium.commands").define()

test(":RadiumLog shows failed requests and follows new entries", function()
  local p = pt.project()
  vim.cmd("edit " .. p.ws .. "/src/main.rs")
  local engine = require("radium").engine()
  local r = engine:request({ command = "view", args = { path = "nowhere.rs" } })
  eq(r.ok, false, "a request that fails")
  vim.cmd("RadiumLog")
  local buf = vim.api.nvim_get_current_buf()
  check(vim.api.nvim_buf_get_name(buf):find("radium://log/", 1, true), "the log's buffer: " .. vim.api.nvim_buf_get_name(buf))
  local function text() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") end
  check(pt.wait(function() return text():find("view failed", 1, true) ~= nil end, 5000), "the failure is listed: " .. text())
  check(text():find("^%d%d:%d%d:%d%d warn  request  view failed after"), "time, level, source: " .. text())
  eq(vim.bo[buf].modifiable, false, "read-only")
  -- A later entry is appended while the log is shown (the timer polls).
  engine:request({ command = "undo" })
  check(pt.wait(function() return select(2, text():gsub("\n", "")) >= 1 end, 5000), "a second line came: " .. text())
  -- :RadiumLog again goes to the same buffer.
  vim.cmd("wincmd p")
  vim.cmd("RadiumLog")
  eq(vim.api.nvim_get_current_buf(), buf, "the same log")
  vim.cmd("bwipeout " .. buf)
  vim.cmd("silent! %bwipeout!")
end)
