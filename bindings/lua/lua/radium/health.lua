-- :checkhealth radium
local M = {}

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
    health.error("the module does not load: " .. tostring(radium), { "Build it: bash bindings/lua/build.sh" })
    return
  end
  health.ok("native module loaded: radium " .. radium.version())
  health.info("ABI version " .. tostring(radium.abi_version()))
  local eok, engine = pcall(radium.new)
  if eok and engine:request({ command = "ping" }).data == "pong" then
    health.ok("an engine answers ping")
  else
    health.error("an engine could not be created: " .. tostring(engine))
  end
end

return M
