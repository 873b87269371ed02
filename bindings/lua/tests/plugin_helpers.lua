-- Helpers for the plugin's specs: a project with a .git root and a user
-- home with real agents (the example ACP agent, the example command agent,
-- and command agents that answer what a test wrote), notifications caught.
local repo = ...
local M = {}

--- A fresh project ({ ws, home, answer = fn(text, delay) }) and the plugin
--- set up for it (its radium_home; the root found per buffer).
function M.project()
  local dir = vim.fn.tempname()
  local ws, home = dir .. "/ws", dir .. "/home"
  vim.fn.mkdir(ws .. "/.git", "p")
  vim.fn.mkdir(ws .. "/src", "p")
  vim.fn.mkdir(home, "p")
  vim.fn.writefile({ "fn main() {}" }, ws .. "/src/main.rs")
  vim.fn.writefile({
    "[[agents]]",
    'id = "example"',
    'protocol = "acp"',
    string.format('command = ["node", "%s/examples/acp-agent/agent.mjs"]', repo),
    "",
    "[[agents]]",
    'id = "reviewer"',
    string.format('command = ["%s/examples/agents/example-agent.sh"]', repo),
    "",
    "[[agents]]",
    'id = "prose"',
    [=[command = ["/bin/sh", "-c", "cat > /dev/null; echo 'Just words, no code.'"]]=],
    "",
    "[[agents]]",
    'id = "answer"',
    string.format([=[command = ["/bin/sh", "-c", "cat > /dev/null; sleep $(cat %s/delay); cat %s/answer.md"]]=], home, home),
  }, home .. "/agents.toml")
  vim.fn.writefile({ "0" }, home .. "/delay")
  local p = { ws = ws, home = home }
  --- What the `answer` agent says next (after `delay` seconds).
  function p.answer(text, delay)
    vim.fn.writefile(vim.split(text, "\n", { plain = true }), home .. "/answer.md")
    vim.fn.writefile({ tostring(delay or 0) }, home .. "/delay")
  end
  require("radium").setup({ workspace = false, radium_home = home, notify = true, agent = "reviewer", chat_agent = false })
  return p
end

--- Trusts a workspace through the engine's `trust` request.
function M.trust(ws)
  local r = require("radium").engine(ws):request({ command = "trust", args = { path = ws } })
  assert(r.ok, vim.inspect(r))
end

--- Catches vim.notify: { all = { {msg, level} }, find(s), last(), text(), stop() }.
function M.notes()
  local saved = vim.notify
  local n = { all = {} }
  vim.notify = function(msg, level)
    n.all[#n.all + 1] = { msg, level }
  end
  function n.find(s)
    for _, x in ipairs(n.all) do
      if tostring(x[1]):find(s, 1, true) then
        return x
      end
    end
  end
  function n.last()
    return n.all[#n.all] or {}
  end
  function n.text()
    return table.concat(vim.tbl_map(function(x) return tostring(x[1]) end, n.all), " | ")
  end
  function n.stop()
    vim.notify = saved
  end
  return n
end

--- Waits for `cond`, up to `ms` (default 10 s).
function M.wait(cond, ms)
  return vim.wait(ms or 10000, cond, 10)
end

return M
