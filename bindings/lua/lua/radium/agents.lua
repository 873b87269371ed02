-- :RadiumAgents: the agents of radium's catalogue and of agents.toml (the
-- engine's agents-list), each with its status (configured, installed, not
-- installed), where it is and how to sign in; `:RadiumAgents install ID`
-- installs a catalogue agent (its pinned npm package, into radium's cache)
-- off the main loop; `:RadiumAgents pick` chooses one with vim.ui.select and
-- installs it when it is not installed.
local M = {}

M.running = 0 -- installs in flight (tests wait on it)

local function project()
  return require("radium.project")
end

--- The engine's agents-list for the current project.
---@return table[] agents
function M.list()
  local engine, root = project().engine()
  local r = engine:request({ command = "agents-list", cwd = root })
  if not r.ok then
    error("radium: " .. r.error, 0)
  end
  return r.data.agents
end

--- One line for agent `a` of agents-list.
function M.line(a)
  if a.status == "configured" then
    return string.format("%s (%s) %s  [%s]", a.id, a.protocol, table.concat(a.command, " "), a.source)
  elseif a.status == "installed" then
    local where = a.found == "builtin" and "built into radium" or table.concat(a.command, " ")
    return string.format("%s (%s) installed: %s", a.id, a.protocol, where)
  end
  return string.format("%s: not installed (:RadiumAgents install %s installs %s@%s)", a.id, a.id, a.package, a.version)
end

--- Shows every agent, with how to sign in to the catalogue's.
function M.show()
  local lines = {}
  for _, a in ipairs(M.list()) do
    lines[#lines + 1] = M.line(a)
    if a.sign_in and a.sign_in ~= vim.NIL and a.status ~= "configured" and a.found ~= "builtin" then
      lines[#lines + 1] = "    sign in: " .. a.sign_in
    end
  end
  project().notify("agents of " .. project().root() .. ":\n" .. table.concat(lines, "\n"))
end

--- Installs catalogue agent `id` without blocking Neovim; says when done.
---@param id string
---@param on_done fun(r: table)|nil called with the engine's answer
function M.install(id, on_done)
  if type(id) ~= "string" or id == "" then
    error("radium: :RadiumAgents install takes an agent's id (:RadiumAgents lists them)", 0)
  end
  local _, root = project().engine()
  project().notify("installing agent " .. id .. " (npm; this can take a minute)")
  project().request_async(M, root, { command = "agents-install", cwd = root, args = { agent = id } }, function(r)
    if not r.ok then
      error("radium: " .. r.error, 0)
    end
    if r.data.fetched then
      project().notify(string.format("installed %s as agent %s in %s", r.data.package, id, r.data.path))
    else
      project().notify(string.format("%s is installed already (agent %s)", r.data.package, id))
    end
  end, on_done)
end

--- Picks an agent with vim.ui.select; a chosen one that is not installed is installed.
function M.pick()
  local list = M.list()
  vim.ui.select(list, {
    prompt = "radium agents",
    format_item = function(a) return M.line(a) end,
  }, function(a)
    if not a then
      return
    end
    if a.status == "not_installed" then
      project().guard(M.install, a.id)
    else
      project().notify(M.line(a) .. (a.sign_in ~= vim.NIL and a.sign_in and ("\nsign in: " .. a.sign_in) or ""))
    end
  end)
end

--- :RadiumAgents [install ID | pick].
---@param args string
function M.command(args)
  local words = vim.split(vim.trim(args or ""), "%s+", { trimempty = true })
  if #words == 0 then
    return M.show()
  elseif words[1] == "install" and #words == 2 then
    return M.install(words[2])
  elseif words[1] == "pick" and #words == 1 then
    return M.pick()
  end
  error("radium: :RadiumAgents takes nothing, `install ID` or `pick`, not `" .. args .. "`", 0)
end

--- Completion of :RadiumAgents.
function M.complete(lead, line)
  local words = vim.split(line, "%s+")
  local out = {}
  if #words <= 2 then
    out = { "install", "pick" }
  elseif #words == 3 and words[2] == "install" then
    local ok, list = pcall(M.list)
    for _, a in ipairs(ok and list or {}) do
      if a.package ~= vim.NIL and a.package then
        out[#out + 1] = a.id
      end
    end
  end
  return vim.tbl_filter(function(x) return vim.startswith(x, lead) end, out)
end

return M
