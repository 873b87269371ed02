-- The Neovim plugin installing itself from a release, run by
-- scripts/test-release.sh in a clean environment (no cargo on PATH):
--   nvim --headless -u NONE -l tests/release/nvim_install.lua MODE PLUGIN REPO
-- PLUGIN is a fresh copy of bindings/lua (what lazy.nvim clones), REPO the
-- checkout (for the example ACP agent). RADIUM_RELEASE_URL says where the
-- release is served. MODE:
--   install  the lazy.nvim build step downloads, verifies and installs; the
--            module loads; :checkhealth says where it came from; a chat turn
--            with the example ACP agent runs
--   corrupt  a wrong checksum is refused with a clear error, nothing is left
--   missing  no build for the platform and no cargo: the error says how to build
--   version  a release whose module is not the plugin's version is refused,
--            and a loaded module of another version is refused by require
-- Exits 1 with the reason on any failure.
local mode, plugin, repo = arg[1], arg[2], arg[3]
vim.opt.rtp:append(plugin)
local install = require("radium.install")
local paths = install.paths()

local function fail(msg)
  io.stderr:write("nvim_install(" .. mode .. "): " .. msg .. "\n")
  os.exit(1)
end
local function check(cond, msg)
  if not cond then
    fail(msg)
  end
end

-- The files in the plugin's lua/ and bin/ folders.
local function files()
  local out = {}
  for _, dir in ipairs({ plugin .. "/lua", plugin .. "/bin" }) do
    for name, kind in vim.fs.dir(dir) do
      if kind == "file" then
        out[#out + 1] = name
      end
    end
  end
  table.sort(out)
  return table.concat(out, " ")
end

-- The lazy.nvim build step, as the documented spec runs it.
local function build()
  return pcall(install.build)
end

if mode == "install" then
  local ok, msg = build()
  check(ok, "the build step failed: " .. tostring(msg))
  check(msg:find("installed for " .. install.version() .. "-linux-x86_64-gnu", 1, true), "unexpected message: " .. msg)
  check(vim.fn.filereadable(paths.module) == 1, "no module at " .. paths.module)
  check(vim.fn.executable(paths.rad) == 1, "no rad at " .. paths.rad)
  check(not files():find("tmp"), "temporary files left: " .. files())
  local info = install.info()
  check(info and info.source == "download" and info.url == vim.env.RADIUM_RELEASE_URL, "radium_native.json: " .. vim.inspect(info))
  local radium = require("radium")
  check(radium.version() == install.version(), "the loaded module is " .. radium.version())
  -- An error raised in the module reaches Lua through LuaJIT's unwinding of
  -- the module's own frames: with an unwinder of its own linked in, this
  -- crashed Neovim (SIGSEGV) instead of returning the error.
  for _ = 1, 3 do
    local ok_new, err = pcall(require("radium_native").new, "{not json")
    check(not ok_new and tostring(err):find("engine options", 1, true), "a bad engine option: " .. tostring(err))
  end
  local rad = vim.system({ paths.rad, "--version" }, { text = true }):wait()
  check(rad.code == 0 and rad.stdout:find(install.version(), 1, true), "rad --version: " .. vim.inspect(rad))

  -- :checkhealth says which build is loaded, where it came from, and that rad is reachable.
  local dir = vim.fn.tempname()
  local ws, home = dir .. "/ws", dir .. "/home"
  vim.fn.mkdir(ws .. "/.git", "p")
  vim.fn.mkdir(home, "p")
  vim.fn.writefile({
    "[[agents]]",
    'id = "example"',
    'protocol = "acp"',
    string.format('command = ["node", "%s/examples/acp-agent/agent.mjs"]', repo),
  }, home .. "/agents.toml")
  vim.cmd.cd(ws)
  radium.setup({ radium_home = home })
  vim.cmd("checkhealth radium")
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(health:find("downloaded from " .. vim.env.RADIUM_RELEASE_URL, 1, true), "checkhealth:\n" .. health)
  check(health:find("`rad` reachable: " .. paths.rad, 1, true), "checkhealth:\n" .. health)
  vim.cmd("bwipeout!")

  -- A chat turn with the example ACP agent.
  local chat = require("radium.chat").open("example")
  vim.wait(20000, function() return chat.session ~= nil or chat.failed ~= nil end, 20)
  check(chat.session, "the chat did not open: " .. tostring(chat.failed))
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, n - 1, n, false, { "hello from a release build" })
  vim.cmd("write")
  vim.wait(30000, function() return (chat.turns or 0) > 0 and not chat.running end, 20)
  check((chat.turns or 0) > 0 and not chat.running, "the turn did not finish")
  require("radium.chat_render").flush(chat)
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  check(text:find("You said: hello from a release build", 1, true), "the agent's answer is in the chat:\n" .. text)
  io.stdout:write("install: ok (" .. msg .. "); chat turn done", "\n")
elseif mode == "corrupt" then
  local before = files()
  local ok, err = build()
  check(not ok, "a corrupted download was installed")
  check(err:find("checksum mismatch for radium_native%-"), "unexpected error: " .. tostring(err))
  check(err:find("nothing was installed", 1, true), "unexpected error: " .. tostring(err))
  check(files() == before, "files changed: " .. before .. " -> " .. files())
  io.stdout:write("corrupt: refused (" .. err .. ")", "\n")
elseif mode == "missing" then
  check(vim.fn.executable("cargo") == 0, "cargo is on PATH")
  vim.env.RADIUM_PLATFORM = "linux-riscv64-gnu"
  local before = files()
  local ok, err = build()
  check(not ok, "an install for a platform without a build succeeded")
  check(err:find("has no build for 0.1.0-linux-riscv64-gnu", 1, true) or err:find("has no build for", 1, true), "unexpected error: " .. tostring(err))
  check(err:find("install Rust", 1, true) and err:find("build.sh", 1, true), "the error does not say how to build: " .. tostring(err))
  check(files() == before, "files changed: " .. before .. " -> " .. files())
  io.stdout:write("missing: " .. err, "\n")
elseif mode == "version" then
  -- The plugin copy says another version; the release's files carry that
  -- name but hold the real module.
  local before = files()
  local ok, err = build()
  check(not ok, "a module of another version was installed")
  check(err:find("is version " .. vim.env.RADIUM_REAL_VERSION .. ", not the plugin's version " .. install.version(), 1, true), "unexpected error: " .. tostring(err))
  check(files() == before, "files changed: " .. before .. " -> " .. files())
  -- A module of another version already in place is refused by require.
  vim.fn.system({ "cp", vim.env.RADIUM_REAL_MODULE, paths.module })
  local rok, rerr = pcall(require, "radium")
  check(not rok, "require loaded a module of another version")
  check(tostring(rerr):find("run :RadiumInstall to update", 1, true), "unexpected error: " .. tostring(rerr))
  io.stdout:write("version: refused (" .. err .. "); require: " .. tostring(rerr), "\n")
else
  fail("unknown mode")
end
os.exit(0)
