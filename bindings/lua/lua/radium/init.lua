--- radium: the hook-and-context engine, in-process in Neovim.
---
--- local radium = require("radium")
--- local engine = radium.new({ workspace = vim.fn.getcwd() })
--- engine:register("shout", "before_model", function(ctx)
---   return { action = "modify", data = { input = ctx.data.input:upper() } }
--- end, { priority = 150 })
--- local outcome = engine:execute("before_model", { input = "hi" })
---
--- Errors: bad arguments and engine refusals raise Lua errors (like vim.api);
--- use pcall to handle them. Data converts with vim.json's rules, directly
--- between tables and the engine (see bindings/lua/README.md).

local M = {}

local MIN_MINOR = 10

local function check_neovim()
  if not vim or not vim.version then
    error("radium: this module runs inside Neovim 0.10 or later", 0)
  end
  local v = vim.version()
  if v.major == 0 and v.minor < MIN_MINOR then
    error(
      string.format("radium: Neovim 0.%d or later is required; this is %d.%d.%d", MIN_MINOR, v.major, v.minor, v.patch),
      0
    )
  end
end

check_neovim()

local ok, native = pcall(require, "radium_native")
if not ok then
  error(
    "radium: the native module is not installed (" .. tostring(native) .. "); run :RadiumInstall (downloads it, or builds it with cargo)",
    0
  )
end
-- A module of another version than the plugin's is refused: the two halves
-- of one release go together.
local plugin_version = require("radium.version")
if native.version ~= plugin_version then
  error(
    string.format(
      "radium: the native module is version %s but the plugin is %s; run :RadiumInstall to update it (then restart Neovim)",
      tostring(native.version),
      plugin_version
    ),
    0
  )
end

-- The converter between tables and the engine's values follows vim.json's
-- rules; it needs vim.NIL and vim.empty_dict()'s metatable for that.
native.setup(vim.NIL, getmetatable(vim.empty_dict()))

M.native = native
--- The library version, e.g. "0.1.0".
function M.version()
  return native.version
end
--- The ABI version (same number as the C header's RADIUM_ABI_VERSION).
function M.abi_version()
  return native.abi_version
end

--- The hook types, in order.
M.hook_types = {
  "before_model", "after_model", "before_tool", "after_tool", "tool_selection",
  "error_interception", "error_transformation", "error_recovery", "error_logging",
  "telemetry_collection", "custom_logging", "metrics_aggregation", "performance_monitoring",
}

local encode, decode = vim.json.encode, vim.json.decode -- options and lists only

-- Strip "file:line: " prefixes of errors raised inside this file, so the user
-- sees radium's message.
local function raise(err)
  if type(err) ~= "table" then
    err = "radium: " .. tostring(err):gsub("^runtime error: ", ""):gsub("^radium: ", "")
  end
  error(err, 3)
end

-- Every native method answers one value at most: no table for the results.
local function call(f, ...)
  local okk, result = pcall(f, ...)
  if not okk then
    raise(result)
  end
  return result
end

local function check_type(value, expected, what)
  if type(value) ~= expected then
    error(string.format("radium: %s must be a %s, got %s", what, expected, type(value)), 3)
  end
end

local function json_arg(value, what)
  local okk, text = pcall(encode, value)
  if not okk then
    error(string.format("radium: %s cannot be converted to JSON: %s", what, text), 3)
  end
  return text
end

-- Option tables are JSON objects even when empty ({} would encode as []).
local function object_arg(value, what)
  if value == nil or next(value) == nil then
    return "{}"
  end
  return json_arg(value, what)
end

local Engine = {}
Engine.__index = Engine

--- Creates an engine. `opts`: { workspace = "/path" } (applies its .radium/hooks.toml).
--- A broken hooks.toml does not stop the engine: none of it is applied, and
--- every chain with a hook to run raises its error (naming hooks.toml:LINE:COL)
--- until a new engine reads the fixed file; the "hooks-list" request carries
--- it in `warnings`. Requests that run no hook work as usual.
function M.new(opts)
  if opts ~= nil then
    check_type(opts, "table", "the engine options")
  end
  local handle = call(native.new, opts and object_arg(opts, "the engine options") or nil)
  return setmetatable({ _handle = handle }, Engine)
end

--- Registers a Lua hook. `fn(ctx)` gets { hook_type, data, metadata } and returns
--- nil (continue) or a result table: { action = "modify", data = ... },
--- { action = "stop", reason = "..." }, { action = "error", message = "..." }.
--- An error raised by `fn` is recorded as that hook's error; the chain goes on.
--- `opts`: { priority = 100, matcher = "create|view", timeout_ms = 0, enabled = true }.
function Engine:register(name, hook_type, fn, opts)
  check_type(name, "string", "the hook name")
  check_type(hook_type, "string", "the hook type")
  check_type(fn, "function", "the hook")
  if opts ~= nil then
    check_type(opts, "table", "the hook options")
  end
  local wrapper = function(ctx)
    local result = fn(ctx)
    if result ~= nil and type(result) ~= "table" then
      error(string.format("hook `%s` returned a %s; expected nil or a result table", name, type(result)), 0)
    end
    return result
  end
  call(self._handle.register_lua, self._handle, name, hook_type, wrapper, object_arg(opts, "the hook options"))
end

--- Registers a hook that is an external program: `cmd` is a list (program
--- first; no shell). The context arrives on its stdin as JSON; it answers on
--- stdout (a result JSON, or nothing), or exits 2 to stop (stderr is the reason).
--- `opts` as for register, plus `cwd`.
function Engine:register_script(name, hook_type, cmd, opts)
  check_type(name, "string", "the hook name")
  check_type(hook_type, "string", "the hook type")
  check_type(cmd, "table", "the command")
  if opts ~= nil then
    check_type(opts, "table", "the hook options")
  end
  call(self._handle.register_script, self._handle, name, hook_type, json_arg(cmd, "the command"), object_arg(opts, "the hook options"))
end

function Engine:unregister(name)
  check_type(name, "string", "the hook name")
  call(self._handle.unregister, self._handle, name)
end

function Engine:enable(name)
  check_type(name, "string", "the hook name")
  call(self._handle.set_enabled, self._handle, name, true)
end

function Engine:disable(name)
  check_type(name, "string", "the hook name")
  call(self._handle.set_enabled, self._handle, name, false)
end

--- The registered hooks: a list of { name, hook_type, priority, enabled, matcher, timeout_ms }.
--- (A broken hooks.toml is reported by `execute` and the "hooks-list" request, not here.)
function Engine:list()
  return decode(call(self._handle.list, self._handle))
end

--- Runs a chain now, on this thread, and returns its outcome:
--- { hook_type, status, data, stopped_by, hooks = { { name, status, duration_ns, error } }, duration_ns }.
--- Blocks while a script hook runs: use execute_async for chains that may wait.
--- Raises the workspace hooks.toml's error when it is broken and the chain has a hook to run.
function Engine:execute(hook_type, data)
  check_type(hook_type, "string", "the hook type")
  return call(self._handle.execute, self._handle, hook_type, data)
end

local watcher

-- Streamed events (a chat's answer) are delivered at most once a frame
-- (FRAME ms): what comes in between is joined by the native side and drawn
-- once. During a flood (a poll left more than it takes) the next poll runs
-- at the next turn of the loop instead, keys and redraws in between, so a
-- fast answer is not held to one poll's worth a frame. Chains and requests
-- are answered at every wake-up.
local FRAME = 16
local frame = { last = 0, timer = nil, more = false }

local function poll_streams()
  local uv = vim.uv or vim.loop
  frame.last = uv.now()
  local _, more = native.poll(true)
  frame.more = more == true
end

local function on_wake()
  local uv = vim.uv or vim.loop
  local since = uv.now() - frame.last
  if (frame.more or since >= FRAME) and not (frame.timer and frame.timer:is_active()) then
    return poll_streams()
  end
  native.poll(false)
  frame.timer = frame.timer or uv.new_timer()
  if not frame.timer:is_active() then
    frame.timer:start(math.max(FRAME - since, 1), 0, vim.schedule_wrap(poll_streams))
  end
end

local function ensure_watcher()
  if watcher then
    return
  end
  local uv = vim.uv or vim.loop
  watcher = uv.new_pipe(false)
  watcher:open(native.wake_fd())
  watcher:read_start(function(err, chunk)
    if err or chunk then
      vim.schedule(on_wake)
    end
  end)
end

--- Runs a chain without blocking: returns at once; `callback(outcome)` runs
--- later on Neovim's main loop. Lua hooks run on the main loop; script hooks
--- run in the background while Neovim stays responsive.
--- `opts`: { timeout_ms = N } ends the chain after N ms (status "deadline_exceeded").
--- A broken hooks.toml raises at once, as in `execute`.
function Engine:execute_async(hook_type, data, callback, opts)
  check_type(hook_type, "string", "the hook type")
  check_type(callback, "function", "the callback")
  if opts ~= nil then
    check_type(opts, "table", "the options")
  end
  ensure_watcher()
  call(self._handle.execute_async, self._handle, hook_type, data, opts and opts.timeout_ms or nil, callback)
end

--- The JSON request door: { command = "ping", args = {...} } in,
--- { ok = true, data = ... } or { ok = false, error = "...", code = "..." } out.
--- A failed command is a response, not a Lua error.
function Engine:request(req)
  check_type(req, "table", "the request")
  return call(self._handle.request, self._handle, req)
end

--- The JSON request door without blocking: `callback(response)` runs later on
--- the main loop. Use it for commands that wait, such as "step".
function Engine:request_async(req, callback)
  check_type(req, "table", "the request")
  check_type(callback, "function", "the callback")
  ensure_watcher()
  call(self._handle.request_async, self._handle, req, callback)
end

--- Runs an agent step without blocking: before_tool (editor-context) →
--- before_model → the agent → after_model → after_tool (code-apply).
--- `callback(response)`: { ok = true, data = { code_blocks, block_count, original_output, ... } }
--- or { ok = false, error, code }.
function Engine:step(agent, context, prompt, callback)
  check_type(agent, "string", "the agent id")
  check_type(callback, "function", "the callback")
  self:request_async({
    command = "step",
    args = { agent = agent, context = context or vim.NIL, prompt = prompt or "" },
  }, callback)
end

--- Opens a session with a coding agent (see lua/radium/session.lua) without
--- blocking: `callback(session)` once the agent is ready, or
--- `callback(nil, error, code)`. `handlers`: { on_event = fn(event),
--- on_permission = fn(event, answer), on_close = fn() }, all run on the main loop.
--- `opts.tag`: the conversation (dog tag) to continue; `session.tag` is the
--- session's from the start.
function Engine:session_open(agent, handlers, callback, opts)
  ensure_watcher()
  require("radium.session").open(self, agent, handlers, callback, opts)
end

--- Non-blocking chains still in flight (for tests and :checkhealth).
function M.pending()
  return native.pending()
end

-- The plugin: options, the shared engines, the hooks they all get.
-- (lua/radium/project.lua; the commands are in lua/radium/commands.lua.)

--- Sets the plugin's options (see `:help radium-config`). Calling it again
--- keeps the hooks registered with `radium.register` and the open chats.
---@param opts radium.Config|nil
function M.setup(opts)
  require("radium.project").setup(opts)
end

--- The shared engine of a project: the one the commands and chats use.
---@param root string|nil a project root (default: the current buffer's root)
---@return table engine
---@return string root
function M.engine(root)
  return require("radium.project").engine(root)
end

--- The project root of a buffer (`.radium`, `.git` or `root_markers`, else the cwd).
---@param buf integer|nil
---@return string
function M.root(buf)
  return require("radium.project").root(buf)
end

--- Registers a Lua hook on every shared engine, now and later (as
--- `Engine:register`); a hook that raises or stops a chain is reported with
--- `vim.notify`. Kept across `setup()`.
---@param name string
---@param hook_type string one of `radium.hook_types`
---@param fn fun(ctx: table): table|nil
---@param opts table|nil { priority, matcher, timeout_ms, enabled }
function M.register(name, hook_type, fn, opts)
  require("radium.project").register(name, hook_type, fn, opts)
end

--- Registers a script hook (a program, no shell) on every shared engine.
---@param name string
---@param hook_type string
---@param cmd string[]
---@param opts table|nil
function M.register_script(name, hook_type, cmd, opts)
  require("radium.project").register_script(name, hook_type, cmd, opts)
end

--- Removes a hook registered with `radium.register` or `radium.register_script`.
---@param name string
function M.unregister(name)
  require("radium.project").unregister(name)
end

--- For the statusline: what runs with a spinner (e.g. "⠋ radium: example"),
--- and in a chat buffer its agent's mode and model and its usage ("radium:
--- example · mode plan · model small · 12.3k/200k tokens, $0.04"); ""
--- otherwise. `%{v:lua.require'radium'.statusline()}`.
---@return string
function M.statusline()
  local parts = {}
  local running = require("radium.progress").statusline()
  local chat = require("radium.chat").get()
  local controls = chat and require("radium.chat_options").summary(chat) or ""
  local usage = require("radium.chat_slash").statusline()
  if running ~= "" then
    parts[#parts + 1] = running
  elseif controls ~= "" then
    parts[#parts + 1] = "radium: " .. chat.agent
  end
  if controls ~= "" then
    parts[#parts + 1] = controls
  end
  if usage ~= "" then
    parts[#parts + 1] = (#parts == 0) and usage or usage:gsub("^radium: ", "")
  end
  return table.concat(parts, " · ")
end

return M
