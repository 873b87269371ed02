-- Agents out of the box: on a fresh install (a new radium_home, an empty
-- XDG_CACHE_HOME, no agents.toml) :RadiumAgents lists radium's catalogue with
-- each agent's status, `:RadiumAgents install` runs off the main loop and
-- says what went wrong, a catalogue agent found in radium's cache is
-- listed as installed, and :RadiumSend's default agent (`example`) answers.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local pt = h.plugin

--- A fresh install: a workspace, a radium_home with no agents.toml, an
--- empty cache; the plugin set up with its defaults (agent = "example").
local function fresh()
  local dir = vim.fn.tempname()
  local p = { ws = dir .. "/ws", home = dir .. "/home", cache = dir .. "/cache" }
  for _, d in ipairs({ p.ws .. "/.git", p.home, p.cache }) do
    vim.fn.mkdir(d, "p")
  end
  vim.fn.writefile({ "x = 1", "y = 2" }, p.ws .. "/main.py")
  p.saved_cache = vim.env.XDG_CACHE_HOME
  vim.env.XDG_CACHE_HOME = p.cache
  require("radium").setup({ workspace = false, radium_home = p.home, notify = true, agent = "example", chat_agent = false })
  vim.cmd("runtime plugin/radium.lua")
  vim.cmd("edit " .. p.ws .. "/main.py")
  function p.done()
    vim.env.XDG_CACHE_HOME = p.saved_cache
  end
  return p
end

test(":RadiumAgents lists the catalogue with status on a fresh install", function()
  local p = fresh()
  local notes = pt.notes()
  vim.cmd("RadiumAgents")
  check(notes.find("codex: not installed (:RadiumAgents install codex installs @zed-industries/codex-acp@"), "codex: " .. notes.text())
  check(notes.find("gemini: not installed"), "gemini: " .. notes.text())
  check(notes.find("example (command) installed: built into radium"), "the example agent: " .. notes.text())
  check(notes.find("sign in: set GEMINI_API_KEY"), "how to sign in: " .. notes.text())
  eq(vim.fn.getcompletion("RadiumAgents install ge", "cmdline"), { "gemini" }, "completion of install")
  -- An agent in radium's cache is installed; its install is already done.
  local dir = p.cache .. "/radium/agents/gemini-cli@0.61.0"
  vim.fn.mkdir(dir .. "/node_modules/.bin", "p")
  vim.fn.writefile({ "#!/bin/sh" }, dir .. "/node_modules/.bin/gemini")
  vim.fn.setfperm(dir .. "/node_modules/.bin/gemini", "rwxr-xr-x")
  vim.fn.writefile({ "done" }, dir .. "/.complete")
  vim.cmd("RadiumAgents")
  check(notes.find("gemini (acp) installed: " .. dir .. "/node_modules/.bin/gemini --acp"), "installed: " .. notes.text())
  local agents = require("radium.agents")
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(5, 5, vim.schedule_wrap(function() ticks = ticks + 1 end))
  vim.cmd("RadiumAgents install gemini")
  check(pt.wait(function() return agents.running == 0 end), "the install answered")
  timer:stop()
  timer:close()
  check(notes.find("@google/gemini-cli@0.61.0 is installed already (agent gemini)"), "already: " .. notes.text())
  notes.stop()
  p.done()
end)

test(":RadiumAgents install says what is wrong, without blocking", function()
  local p = fresh()
  local notes = pt.notes()
  local agents = require("radium.agents")
  vim.cmd("RadiumAgents install nobody")
  check(pt.wait(function() return agents.running == 0 end), "answered")
  check(notes.find("`nobody` is not in radium's catalogue"), "unknown id: " .. notes.text())
  local path = vim.env.PATH
  vim.env.PATH = "/nonexistent"
  vim.cmd("RadiumAgents install gemini")
  vim.env.PATH = path
  check(pt.wait(function() return agents.running == 0 end), "answered")
  check(notes.find("npm is not on PATH"), "no npm: " .. notes.text())
  vim.cmd("RadiumAgents install")
  check(notes.find(":RadiumAgents takes nothing, `install ID` or `pick`, not `install`"), "no id: " .. notes.text())
  notes.stop()
  p.done()
end)

test(":RadiumSend works on a fresh install: the default agent exists", function()
  local p = fresh()
  local editor = require("radium.editor")
  local done
  editor.send(1, 2, "review", function(r) done = r end)
  check(pt.wait(function() return done ~= nil end), "the step answered")
  eq(done.ok, true, "the step: " .. vim.inspect(done))
  eq(done.data.code_blocks[1].content, "# reviewed by the example agent\nx = 1\ny = 2\n", "the example agent's block")
  p.done()
end)
