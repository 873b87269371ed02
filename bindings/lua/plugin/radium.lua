-- radium: user commands (lua/radium/commands.lua). Nothing loads the engine
-- at start-up: it loads on the first command.
if vim.g.loaded_radium then
  return
end
vim.g.loaded_radium = true

require("radium.commands").define()
