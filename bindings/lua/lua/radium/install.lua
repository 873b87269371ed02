-- :RadiumInstall and the lazy.nvim `build` step: downloads the native module
-- (and `rad`) of the plugin's own version for this platform from a release,
-- checks them against the release's SHA256SUMS, checks the module's version
-- in a separate Neovim, and only then moves them into place (a rename, so a
-- failed or refused download leaves nothing half-written). When no build fits
-- the platform or the release cannot be reached, it builds with cargo
-- (build.sh) or, without cargo, says how to. Every command runs through
-- vim.system: the main loop is never blocked (build() waits with vim.wait,
-- events still served, for lazy.nvim's build step).
-- This file loads nothing native: it must work before the module exists.
local M = {}

--- Where releases are, by default: the folder of the plugin's version.
M.DEFAULT_URL = "https://github.com/radium-dev/radium/releases/download/v%s"

--- The longest a download or a cargo build may take, in ms.
local TIMEOUT_MS = 15 * 60 * 1000

local function plugin_root()
  local src = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(src, ":p:h:h:h")
end

--- The plugin's version (the module must be the same).
function M.version()
  return require("radium.version")
end

--- Where the plugin keeps its module, `rad` and the record of where they
--- came from (under `root`, default the plugin's folder).
function M.paths(root)
  root = root or plugin_root()
  local windows = vim.fn.has("win32") == 1
  return {
    root = root,
    module = root .. "/lua/radium_native" .. (windows and ".dll" or ".so"),
    rad = root .. "/bin/rad" .. (windows and ".exe" or ""),
    info = root .. "/lua/radium_native.json",
    build = root .. "/build.sh",
  }
end

--- This machine: os ("linux", "macos", "windows"), arch ("x86_64", "aarch64"),
--- libc ("gnu" or "musl") and whether Lua is LuaJIT. $RADIUM_PLATFORM
--- ("os-arch-libc") overrides the detection.
function M.platform()
  local forced = vim.env.RADIUM_PLATFORM
  if forced and forced ~= "" then
    local os_, arch, libc = forced:match("^([%w_]+)%-([%w_]+)%-([%w_]+)$")
    if not os_ then
      error("radium: RADIUM_PLATFORM must be os-arch-libc (e.g. linux-x86_64-gnu), not `" .. forced .. "`", 0)
    end
    return { os = os_, arch = arch, libc = libc, luajit = jit ~= nil }
  end
  local u = vim.uv.os_uname()
  local os_ = ({ Linux = "linux", Darwin = "macos", Windows_NT = "windows" })[u.sysname] or u.sysname:lower()
  local arch = ({ x86_64 = "x86_64", amd64 = "x86_64", aarch64 = "aarch64", arm64 = "aarch64" })[u.machine] or u.machine
  -- The C library a Linux build links (musl when its loader is there); the
  -- other systems have one (macOS: "none", Windows: "msvc", as the release
  -- workflow names them).
  local libc = ({ macos = "none", windows = "msvc" })[os_] or "gnu"
  if os_ == "linux" and #vim.fn.glob("/lib/ld-musl-*", false, true) > 0 then
    libc = "musl"
  end
  return { os = os_, arch = arch, libc = libc, luajit = jit ~= nil }
end

--- The release's file names for a version and platform.
function M.names(version, p)
  local tag = string.format("%s-%s-%s-%s", version, p.os, p.arch, p.libc)
  local windows = p.os == "windows"
  return { tag = tag, module = "radium_native-" .. tag .. (windows and ".dll" or ".so"), rad = "rad-" .. tag .. (windows and ".exe" or "") }
end

--- The release folder: `opts.release_url`, $RADIUM_RELEASE_URL, the
--- `release_url` setting, else GitHub's release of the plugin's version.
function M.base_url(opts)
  local cfg = package.loaded["radium.project"] and require("radium.project").config or {}
  local url = (opts and opts.release_url) or vim.env.RADIUM_RELEASE_URL or cfg.release_url
  if not url or url == "" then
    url = M.DEFAULT_URL:format(M.version())
  end
  return (url:gsub("/+$", ""))
end

--- Parses SHA256SUMS text: { [file name] = hex digest }.
function M.parse_sums(text)
  local sums = {}
  for line in text:gmatch("[^\n]+") do
    local hash, name = line:match("^(%x+)%s+%*?(%S+)%s*$")
    if hash and #hash == 64 then
      sums[name] = hash:lower()
    end
  end
  return sums
end

-- Runs a command without blocking; cb(ok, stdout, stderr) on the main loop.
local function run(cmd, cb, opts)
  local ok, err = pcall(vim.system, cmd, vim.tbl_extend("force", { text = true, timeout = TIMEOUT_MS }, opts or {}),
    vim.schedule_wrap(function(r)
      cb(r.code == 0, r.stdout or "", r.stderr or "")
    end))
  if not ok then
    vim.schedule(function() cb(false, "", tostring(err)) end)
  end
end

-- The downloader: curl, else wget.
local function fetch_cmd(url, dest)
  if vim.fn.executable("curl") == 1 then
    return { "curl", "-fsSL", "--retry", "2", "--connect-timeout", "20", "-o", dest, url }
  elseif vim.fn.executable("wget") == 1 then
    return { "wget", "-q", "-T", "20", "-O", dest, url }
  end
end

local function fetch(url, dest, cb)
  local cmd = fetch_cmd(url, dest)
  if not cmd then
    return cb(false, "neither curl nor wget is installed")
  end
  run(cmd, function(ok, _, err)
    cb(ok, ok and nil or vim.trim(err) ~= "" and vim.trim(err) or "the download failed")
  end)
end

local function sha256(path, cb)
  local cmd = vim.fn.executable("sha256sum") == 1 and { "sha256sum", path } or { "shasum", "-a", "256", path }
  run(cmd, function(ok, out)
    cb(ok and out:match("^(%x+)") and out:match("^(%x+)"):lower() or nil)
  end)
end

local function write_info(p, info)
  local tmp = p.info .. ".tmp-" .. vim.uv.os_getpid()
  local fd = io.open(tmp, "w")
  if fd then
    fd:write(vim.json.encode(info), "\n")
    fd:close()
    os.rename(tmp, p.info)
  end
end

--- What the plugin's radium_native.json says about the module (nil when absent).
function M.info()
  local fd = io.open(M.paths().info, "r")
  if not fd then
    return nil
  end
  local ok, data = pcall(vim.json.decode, fd:read("*a"))
  fd:close()
  return ok and type(data) == "table" and data or nil
end

-- Loads a module file in a separate headless Neovim and prints its version.
local CHECK = [[
local f = assert(package.loadlib(arg[1], "luaopen_radium_native"))
io.stdout:write(f().version)
]]

local function module_version(path, cb)
  local script = vim.fn.tempname() .. ".lua"
  local fd = assert(io.open(script, "w"))
  fd:write(CHECK)
  fd:close()
  run({ vim.v.progpath, "--headless", "-u", "NONE", "-i", "NONE", "-l", script, path }, function(ok, out, err)
    os.remove(script)
    cb(ok and vim.trim(out) or nil, vim.trim(err))
  end)
end

-- Builds with cargo (build.sh) when cargo is there; else says how.
local function fallback(reason, done, p)
  if vim.fn.executable("cargo") ~= 1 then
    return done(reason .. ". cargo is not on PATH, so nothing was built: install Rust (https://rustup.rs) and run "
      .. ":RadiumInstall again (it then builds with cargo), or build by hand: bash " .. p.build)
  end
  vim.notify("radium: " .. reason .. "; building with cargo (bash " .. p.build .. ", a few minutes)", vim.log.levels.INFO)
  run({ "bash", p.build }, function(ok, _, err)
    if not ok then
      return done(reason .. "; the cargo build failed: " .. vim.trim(err):sub(-2000))
    end
    done(nil, "radium " .. M.version() .. " built with cargo (" .. reason .. ")")
  end)
end

-- Removes the temporary files of a download.
local function drop(files)
  for _, f in ipairs(files) do
    os.remove(f.tmp)
  end
end

-- Checks every downloaded file's digest, then the module's version, then
-- renames them all into place.
local function verify_and_place(files, ctx, done)
  local i = 0
  local function next_file()
    i = i + 1
    local f = files[i]
    if not f then
      return module_version(files[1].tmp, function(v, err)
        if v ~= M.version() then
          drop(files)
          return done(string.format("radium: the downloaded module %s is %s, not the plugin's version %s%s; nothing was installed",
            files[1].name, v and ("version " .. v) or "unloadable", M.version(), err ~= "" and (" (" .. err .. ")") or ""))
        end
        for _, g in ipairs(files) do
          vim.fn.mkdir(vim.fn.fnamemodify(g.dest, ":h"), "p")
          local ok, err2 = os.rename(g.tmp, g.dest)
          if not ok then
            drop(files)
            return done("radium: could not move " .. g.name .. " into place: " .. tostring(err2))
          end
          vim.uv.fs_chmod(g.dest, 493) -- 0755
        end
        write_info(ctx.paths, { version = v, source = "download", url = ctx.base, platform = ctx.names.tag,
          sha256 = files[1].sha256, rad = files[2] and files[2].dest or nil, installed = os.date("!%Y-%m-%dT%H:%M:%SZ") })
        local loaded = package.loaded.radium_native and " (restart Neovim to load it)" or ""
        done(nil, string.format("radium %s installed for %s from %s%s", v, ctx.names.tag, ctx.base, loaded))
      end)
    end
    sha256(f.tmp, function(got)
      if got ~= f.sha256 then
        drop(files)
        return done(string.format("radium: checksum mismatch for %s from %s (expected %s, got %s): the download was refused and nothing was installed",
          f.name, ctx.base, f.sha256, got or "nothing"))
      end
      next_file()
    end)
  end
  next_file()
end

--- Installs the module (and `rad`) for this platform; done(err, message) on
--- the main loop. opts: release_url, platform (a table like M.platform()'s),
--- root (the folder to install into, default the plugin's).
local running = false

function M.install(opts, done)
  if running then
    return done("radium: an install is already running; wait for its message")
  end
  running = true
  local caller = done
  done = function(err, msg)
    running = false
    caller(err, msg)
  end
  opts = opts or {}
  local ok, p = pcall(function() return opts.platform or M.platform() end)
  if not ok then
    return done(tostring(p))
  end
  local ctx = { base = M.base_url(opts), names = M.names(M.version(), p), paths = M.paths(opts.root) }
  if not p.luajit then
    return fallback("radium's module is built for LuaJIT and this Neovim's Lua is not LuaJIT", done, ctx.paths)
  end
  local sums_file = vim.fn.tempname()
  fetch(ctx.base .. "/SHA256SUMS", sums_file, function(got, err)
    local fd = got and io.open(sums_file, "r")
    local text = fd and fd:read("*a") or ""
    if fd then fd:close() end
    os.remove(sums_file)
    if not got then
      return fallback(string.format("the release %s could not be reached (%s)", ctx.base, err), done, ctx.paths)
    end
    local sums = M.parse_sums(text)
    if not sums[ctx.names.module] then
      return fallback(string.format("release %s has no build for %s", ctx.base, ctx.names.tag), done, ctx.paths)
    end
    local paths, pid = ctx.paths, vim.uv.os_getpid()
    local files = { { name = ctx.names.module, dest = paths.module, sha256 = sums[ctx.names.module] } }
    if sums[ctx.names.rad] then
      files[2] = { name = ctx.names.rad, dest = paths.rad, sha256 = sums[ctx.names.rad] }
    end
    vim.fn.mkdir(paths.root .. "/bin", "p")
    local i = 0
    local function next_download()
      i = i + 1
      local f = files[i]
      if not f then
        return verify_and_place(files, ctx, done)
      end
      f.tmp = f.dest .. ".tmp-" .. pid
      fetch(ctx.base .. "/" .. f.name, f.tmp, function(fok, ferr)
        if not fok then
          drop(files)
          return fallback(string.format("%s could not be downloaded from %s (%s)", f.name, ctx.base, ferr), done, ctx.paths)
        end
        next_download()
      end)
    end
    next_download()
  end)
end

--- :RadiumInstall: installs without blocking and says how it went.
function M.command(opts)
  M.install(opts, function(err, msg)
    if err then
      vim.notify(err, vim.log.levels.ERROR)
    else
      vim.notify(msg, vim.log.levels.INFO)
    end
  end)
end

--- The lazy.nvim `build` step: installs and waits for the end (vim.wait:
--- events are still served). Raises an error when the install failed.
function M.build(opts)
  local result
  M.install(opts, function(err, msg) result = { err = err, msg = msg } end)
  vim.wait(TIMEOUT_MS, function() return result ~= nil end, 100)
  if not result then
    error("radium: the install did not finish within " .. TIMEOUT_MS / 60000 .. " minutes", 0)
  end
  if result.err then
    error(result.err, 0)
  end
  print(result.msg)
  return result.msg
end

return M
