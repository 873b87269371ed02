-- :RadiumInstall's parts, through the real downloader (curl on file://
-- URLs) into a scratch folder: a release that fits is installed after its
-- checksum and version are checked; a wrong checksum and a platform without
-- a build are refused with clear messages and nothing is left behind;
-- RADIUM_PLATFORM and the URL settings; a module of another version than
-- the plugin's is refused by require("radium"). scripts/test-release.sh
-- runs the same from a served dist/ in a clean environment.

local h = ...
local check, eq, test, raises = h.check, h.eq, h.test, h.raises
local install = require("radium.install")
local version = install.version()
local loaded_module = vim.api.nvim_get_runtime_file("lua/radium_native.so", false)[1]
  or package.searchpath("radium_native", package.cpath)
assert(loaded_module, "the module under test is not found")

-- A release folder with the loaded module under the names of `tag`'s
-- platform, its SHA256SUMS, and an empty folder to install into.
local function release(tag, corrupt)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. "/release", "p")
  vim.fn.mkdir(dir .. "/into/lua", "p")
  local name = "radium_native-" .. version .. "-" .. tag .. ".so"
  vim.fn.system({ "cp", loaded_module, dir .. "/release/" .. name })
  vim.fn.system({ "sh", "-c", "cd '" .. dir .. "/release' && sha256sum -- * > SHA256SUMS" })
  assert(vim.fn.readfile(dir .. "/release/SHA256SUMS")[1]:find(name, 1, true), "the fixture's SHA256SUMS")
  if corrupt then
    local fd = assert(io.open(dir .. "/release/" .. name, "ab"))
    fd:write("x")
    fd:close()
  end
  return dir
end

local function files(dir)
  local out = {}
  for name, kind in vim.fs.dir(dir, { depth = 3 }) do
    if kind == "file" then
      out[#out + 1] = name
    end
  end
  table.sort(out)
  return out
end

-- Runs install() with no cargo on PATH (a fallback must never build here)
-- and waits for its answer (the main loop keeps running).
local function run(opts)
  local result
  local saved = vim.env.PATH
  vim.env.PATH = "/usr/bin:/bin"
  assert(vim.fn.executable("cargo") == 0, "cargo is in /usr/bin or /bin")
  install.install(opts, function(err, msg) result = { err = err, msg = msg } end)
  vim.wait(60000, function() return result ~= nil end, 20)
  vim.env.PATH = saved
  return assert(result, "the install did not finish")
end

local linux_x64 = { os = "linux", arch = "x86_64", libc = "gnu", luajit = true }

test("the names, the SHA256SUMS parser and the release URL's precedence", function()
  eq(install.names("0.1.0", linux_x64), {
    tag = "0.1.0-linux-x86_64-gnu", module = "radium_native-0.1.0-linux-x86_64-gnu.so", rad = "rad-0.1.0-linux-x86_64-gnu",
  }, "names")
  local sums = install.parse_sums(string.rep("a", 64) .. "  one\n" .. string.rep("B", 64) .. " *two\nnot a line\n" .. string.rep("c", 10) .. "  short\n")
  eq(sums, { one = string.rep("a", 64), two = string.rep("b", 64) }, "parsed sums")
  local saved = vim.env.RADIUM_RELEASE_URL
  vim.env.RADIUM_RELEASE_URL = nil
  eq(install.base_url({}), install.DEFAULT_URL:format(version), "the default: GitHub's release of the version")
  vim.env.RADIUM_RELEASE_URL = "http://127.0.0.1:9/dist/"
  eq(install.base_url({}), "http://127.0.0.1:9/dist", "the environment, without the trailing slash")
  eq(install.base_url({ release_url = "file:///r" }), "file:///r", "the option first")
  vim.env.RADIUM_RELEASE_URL = saved
end)

test("RADIUM_PLATFORM overrides the detection; a malformed one is an error", function()
  local saved = vim.env.RADIUM_PLATFORM
  vim.env.RADIUM_PLATFORM = "linux-aarch64-musl"
  local p = install.platform()
  eq({ p.os, p.arch, p.libc }, { "linux", "aarch64", "musl" }, "forced platform")
  vim.env.RADIUM_PLATFORM = "linux"
  raises(install.platform, "RADIUM_PLATFORM must be os-arch-libc", "malformed")
  local r = run({ release_url = "file:///nowhere" })
  check(r.err and r.err:find("RADIUM_PLATFORM must be", 1, true), "install says so: " .. tostring(r.err))
  vim.env.RADIUM_PLATFORM = saved
  local real = install.platform()
  check(real.luajit and real.os ~= "" and real.arch ~= "", vim.inspect(real))
end)

test("a release that fits is installed: checksum verified, version checked, recorded", function()
  local dir = release("linux-x86_64-gnu")
  local r = run({ release_url = "file://" .. dir .. "/release", platform = linux_x64, root = dir .. "/into" })
  eq(r.err, nil, "no error")
  check(r.msg:find("radium " .. version .. " installed for " .. version .. "-linux-x86_64-gnu from file://", 1, true), r.msg)
  eq(files(dir .. "/into"), { "lua/radium_native.json", "lua/radium_native.so" }, "the module and its record, no temporary file")
  local fd = assert(io.open(dir .. "/into/lua/radium_native.json"))
  local info = vim.json.decode(fd:read("*a"))
  fd:close()
  eq({ info.source, info.version, info.platform }, { "download", version, version .. "-linux-x86_64-gnu" }, "the record")
  eq(vim.fn.getfperm(dir .. "/into/lua/radium_native.so"), "rwxr-xr-x", "mode")
end)

test("a second install while one runs is refused (their temporary files would collide)", function()
  local dir = release("linux-x86_64-gnu")
  local opts = { release_url = "file://" .. dir .. "/release", platform = linux_x64, root = dir .. "/into" }
  local first, second
  local saved = vim.env.PATH
  vim.env.PATH = "/usr/bin:/bin" -- never a cargo build here
  install.install(opts, function(err) first = err or "ok" end)
  install.install(opts, function(err) second = err or "ok" end)
  eq(second, "radium: an install is already running; wait for its message", "the second")
  vim.wait(60000, function() return first ~= nil end, 20)
  vim.env.PATH = saved
  eq(first, "ok", "the first")
  local r = run(opts)
  eq(r.err, nil, "a later install runs")
end)

test("a wrong checksum is refused and nothing is written", function()
  local dir = release("linux-x86_64-gnu", true)
  local r = run({ release_url = "file://" .. dir .. "/release", platform = linux_x64, root = dir .. "/into" })
  check(r.err and r.err:find("checksum mismatch for radium_native%-" .. vim.pesc(version)), "refused: " .. tostring(r.err))
  check(r.err:find("nothing was installed", 1, true), r.err)
  eq(files(dir .. "/into"), {}, "nothing half-written")
end)

test("a release that cannot be reached, or has no build for the platform, without cargo: says how to build", function()
  local dir = release("linux-x86_64-gnu")
  local ok, err = pcall(function()
    local r = run({ release_url = "file://" .. dir .. "/release", root = dir .. "/into",
      platform = { os = "linux", arch = "riscv64", libc = "gnu", luajit = true } })
    check(r.err and r.err:find("has no build for " .. version .. "-linux-riscv64-gnu", 1, true), tostring(r.err))
    check(r.err:find("cargo is not on PATH, so nothing was built: install Rust", 1, true), r.err)
    r = run({ release_url = "file://" .. dir .. "/nowhere", root = dir .. "/into", platform = linux_x64 })
    check(r.err and r.err:find("could not be reached", 1, true), tostring(r.err))
  end)
  assert(ok, err)
  eq(files(dir .. "/into"), {}, "nothing written")
end)

test("with cargo on PATH, a platform without a build runs build.sh; its failure is reported", function()
  local dir = release("linux-x86_64-gnu")
  -- A stand-in for cargo (only its presence is checked) and for the plugin's
  -- build.sh, which records that it ran (a real one builds for minutes).
  vim.fn.mkdir(dir .. "/bin", "p")
  vim.fn.writefile({ "#!/bin/sh", "exit 0" }, dir .. "/bin/cargo")
  vim.fn.setfperm(dir .. "/bin/cargo", "rwxr-xr-x")
  vim.fn.writefile({ 'echo built > "$(dirname "$0")/lua/built-by-build.sh"' }, dir .. "/into/build.sh")
  local opts = { release_url = "file://" .. dir .. "/release", root = dir .. "/into",
    platform = { os = "linux", arch = "riscv64", libc = "musl", luajit = true } }
  local saved = vim.env.PATH
  vim.env.PATH = dir .. "/bin:/usr/bin:/bin"
  local result
  install.install(opts, function(err, msg) result = { err = err, msg = msg } end)
  vim.wait(60000, function() return result ~= nil end, 20)
  local ok_result = result
  vim.fn.writefile({ "echo 'error: linking failed' >&2", "exit 101" }, dir .. "/into/build.sh")
  result = nil
  install.install(opts, function(err, msg) result = { err = err, msg = msg } end)
  vim.wait(60000, function() return result ~= nil end, 20)
  vim.env.PATH = saved
  eq(ok_result.err, nil, "the fallback build succeeded")
  check(ok_result.msg:find("built with cargo (release file://", 1, true) and ok_result.msg:find("has no build for " .. version .. "-linux-riscv64-musl)", 1, true), ok_result.msg)
  eq(vim.fn.readfile(dir .. "/into/lua/built-by-build.sh"), { "built" }, "build.sh ran")
  check(result.err and result.err:find("; the cargo build failed: error: linking failed", 1, true), "the failure: " .. tostring(result.err))
end)

test("require refuses a module of another version than the plugin's, saying how to update", function()
  local saved_version, saved_radium = package.loaded["radium.version"], package.loaded.radium
  package.loaded["radium.version"] = "9.9.9"
  package.loaded.radium = nil
  local ok, err = pcall(require, "radium")
  package.loaded["radium.version"], package.loaded.radium = saved_version, saved_radium
  check(not ok, "loaded")
  check(tostring(err):find("the native module is version " .. version .. " but the plugin is 9.9.9; run :RadiumInstall to update it", 1, true), tostring(err))
end)
