-- :checkhealth radium: Neovim, the native module (which build, where it
-- came from), `rad`, the project of the
-- current buffer (its root and trust) and its agents (found, runnable,
-- protocol, and really started: `agents-check`).
local M = {}

-- The longest :checkhealth waits for the agents to start, in ms.
local MAX_CHECK_WAIT = 60000

local function home()
  local cfg = package.loaded["radium.project"] and require("radium.project").config or {}
  return cfg.radium_home or vim.env.RADIUM_HOME or (vim.env.HOME .. "/.radium")
end

-- Whether `root` is trusted, read from $RADIUM_HOME/trust.json (nothing is changed).
local function trusted(root)
  local fd = io.open(home() .. "/trust.json", "r")
  if not fd then
    return false
  end
  local ok, data = pcall(vim.json.decode, fd:read("*a"))
  fd:close()
  local real = vim.uv.fs_realpath(root) or root
  for _, t in ipairs(ok and type(data) == "table" and data.trusted or {}) do
    if real == t or vim.startswith(real, t .. "/") then
      return true
    end
  end
  return false
end

local function check_agents(health, project, root)
  local list, err = project.agents(root)
  if not list then
    health.error("the agents could not be read: " .. tostring(err))
    return
  end
  if #list == 0 then
    health.warn("no agents configured", { "Add one to " .. home() .. "/agents.toml or " .. root .. "/.radium/agents.toml (:help radium-agents)" })
    return
  end
  local startable, wait = {}, 0
  for _, a in ipairs(list) do
    local program = a.command[1] or ""
    local runnable = vim.fn.executable(program) == 1
    local what = string.format("agent `%s` (%s, from %s): %s", a.id, a.protocol, a.source, table.concat(a.command, " "))
    if runnable then
      health.ok(what)
      table.insert(startable, a.id)
      wait = math.max(wait, tonumber(a.start_timeout_ms) or 30000)
    else
      health.error(what .. " — `" .. program .. "` cannot be run", { "Install it or fix `command` in agents.toml" })
    end
  end
  M.start_agents(health, project, root, startable, math.min(wait + 5000, MAX_CHECK_WAIT))
  local cfg = project.config
  for _, key in ipairs({ "agent", "chat_agent" }) do
    local id = cfg[key]
    if id and not vim.tbl_contains(vim.tbl_map(function(a) return a.id end, list), id) then
      health.warn(string.format("config.%s is `%s`, which is not one of these agents", key, id))
    end
  end
end

-- Starts each agent of `ids` (initialize, session/new, close) through the
-- engine's `agents-check`, sent without blocking; :checkhealth is itself a
-- blocking command, so it waits for the answer with vim.wait (events keep
-- being served), at most `wait_ms`.
function M.start_agents(health, project, root, ids, wait_ms)
  if #ids == 0 then
    return
  end
  local answer
  project.engine(root):request_async({ command = "agents-check", cwd = root, args = { agents = ids } }, function(r)
    answer = r
  end)
  local done = vim.wait(wait_ms, function()
    return answer ~= nil
  end, 50)
  if not done then
    health.warn(string.format("the agents did not all start within %d ms (see :RadiumLog)", wait_ms))
    return
  end
  if not answer.ok then
    health.error("the agents could not be started: " .. tostring(answer.error))
    return
  end
  for _, a in ipairs(answer.data.agents or {}) do
    if a.ok then
      health.ok(string.format("agent `%s` starts (initialize, session/new)", a.id))
    else
      health.error(string.format("agent `%s` does not start: %s", a.id, tostring(a.error)), { "rad agents check " .. a.id .. " says the same from a shell" })
    end
  end
end

-- Which build is loaded and where it came from (radium_native.json, written
-- by :RadiumInstall and build.sh).
function M.check_build(health)
  local install = require("radium.install")
  local path = vim.api.nvim_get_runtime_file("lua/radium_native.so", false)[1]
    or package.searchpath("radium_native", package.cpath) or "?"
  local info = install.info()
  if not info then
    health.info("module: " .. path .. " (origin unknown: not installed by :RadiumInstall or build.sh)")
  elseif info.source == "download" then
    health.ok(string.format("module: %s, downloaded from %s (%s, checksum verified)", path, tostring(info.url), tostring(info.platform)))
  elseif info.source == "release" then
    health.ok(string.format("module: %s, a release build copied in by build.sh (RADIUM_PREBUILT)", path))
  else
    health.ok(string.format("module: %s, built with cargo (%s profile)", path, tostring(info.profile)))
  end
end

-- Whether `rad` (radium's MCP tools for the agents) can be run.
function M.check_rad(health)
  local own = require("radium.install").paths().rad
  local rad = vim.fn.executable(own) == 1 and own or vim.fn.exepath("rad")
  if rad == "" then
    health.warn("`rad` is not reachable: agents get no radium tools",
      { "Run :RadiumInstall (downloads it into the plugin's bin/), or put `rad` on PATH (cargo install --path bindings/cli)" })
    return
  end
  local r = vim.system({ rad, "--version" }, { text = true }):wait(10000)
  if r.code == 0 then
    health.ok(string.format("`rad` reachable: %s (%s)", rad, vim.trim(r.stdout)))
  else
    health.error(string.format("`rad` at %s does not run: %s", rad, vim.trim(r.stderr or "")))
  end
end

function M.check()
  local health = vim.health
  health.start("radium")
  local v = vim.version()
  if v.major > 0 or v.minor >= 10 then
    health.ok(string.format("Neovim %d.%d.%d (0.10 or later is supported)", v.major, v.minor, v.patch))
  else
    health.error(string.format("Neovim %d.%d.%d is too old: radium needs 0.10 or later", v.major, v.minor, v.patch))
  end
  local ok, radium = pcall(require, "radium")
  if not ok then
    health.error("the module does not load: " .. tostring(radium),
      { "Run :RadiumInstall (downloads the build of the plugin's version, or builds it with cargo)" })
    M.check_rad(health)
    return
  end
  health.ok("native module loaded: radium " .. radium.version())
  health.info("ABI version " .. tostring(radium.abi_version()))
  M.check_build(health)
  M.check_rad(health)
  local eok, engine = pcall(radium.new)
  if eok and engine:request({ command = "ping" }).data == "pong" then
    health.ok("an engine answers ping")
  else
    health.error("an engine could not be created: " .. tostring(engine))
  end

  health.start("radium: the project")
  local project = require("radium.project")
  -- :checkhealth opens its own buffer: the project is the one of the buffer before it.
  local alt = vim.fn.bufnr("#")
  local buf = (alt > 0 and vim.bo[alt].buftype == "") and alt or nil
  local root = project.root(buf)
  health.info("root: " .. root .. " (markers: " .. table.concat(project.config.root_markers, ", ") .. ")")
  health.info("radium home: " .. home())
  local has_own = vim.fn.filereadable(root .. "/.radium/agents.toml") == 1 or vim.fn.filereadable(root .. "/.radium/hooks.toml") == 1
  if trusted(root) then
    health.ok("the project is trusted")
  elseif has_own then
    health.warn("the project has its own .radium configuration but is not trusted: its agents are not used", { "Run :RadiumTrust" })
  else
    health.info("the project is not trusted (:RadiumTrust trusts it; agent steps need it)")
  end
  check_agents(health, project, root)
end

return M
