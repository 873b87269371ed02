-- The plugin's shared state: its options, the project root of a buffer, one
-- engine per root (shared by the commands, the chats and the hooks registered
-- with require("radium")), the hooks every engine gets, the dog tag of each
-- project, and notifications.
local M = {}

---@class radium.Config
---@field agent string the agent of :RadiumSend (an id from agents.toml)
---@field chat_agent string|nil the agent :RadiumChat opens without an argument (default: ask)
---@field root_markers string[] files or folders that mark a project root, nearest first
---@field workspace string|nil a fixed project root for every buffer (default: found per buffer)
---@field radium_home string|nil default: $RADIUM_HOME, else ~/.radium
---@field surrounding_lines integer lines of context above and below a selection
---@field notify boolean show messages (errors are always shown)
---@field keymaps table<string, string|false> review and chat keys (false: no mapping)
---@field follow_agent boolean show the files of the agent's tool calls (their locations) in the window the chat was opened from
---@field release_url string|nil where :RadiumInstall downloads from (default: $RADIUM_RELEASE_URL, else GitHub's release of the plugin's version)
---@field review { save: boolean } save: an accept saves the buffers it changed and records them as one radium step (:RadiumUndo)
local defaults = {
  agent = "example",
  chat_agent = nil,
  root_markers = { ".radium", ".git" },
  workspace = nil,
  radium_home = nil,
  surrounding_lines = 5,
  notify = true,
  follow_agent = false,
  review = { save = true },
  release_url = nil,
  keymaps = {
    accept = "ga", reject = "gr", accept_all = "gA", reject_all = "gR",
    next_hunk = "]h", prev_hunk = "[h", close = "q",
    submit = "<C-s>", cancel = "<C-c>", restore = "<localleader>r",
  },
}

---@type radium.Config
M.config = vim.deepcopy(defaults)

local engines = {} -- [root] = engine
local hooks = {} -- ordered list of { name, kind = "lua"|"script", hook_type, fn|cmd, opts }
local tags = {} -- [root] = the project's latest dog tag

--- Shows a message: `vim.notify("radium: " .. msg, level)`. INFO messages
--- follow `config.notify`; warnings and errors always show.
---@param msg string
---@param level integer|nil a vim.log.levels value (default INFO)
function M.notify(msg, level)
  level = level or vim.log.levels.INFO
  if level < vim.log.levels.WARN and not M.config.notify then
    return
  end
  msg = tostring(msg):gsub("^radium: ", "")
  vim.notify("radium: " .. msg, level)
end

--- Runs `fn`; an error becomes an ERROR notification (no stack trace).
--- Returns fn's results, or nil after an error.
function M.guard(fn, ...)
  local results = { pcall(fn, ...) }
  if not results[1] then
    local err = tostring(results[2]):gsub("^[^\n]-:%d+: ", "")
    M.notify(err, vim.log.levels.ERROR)
    return nil
  end
  return unpack(results, 2)
end

--- Runs request `req` on project `root`'s engine without blocking, counted
--- in `owner.running` (the module's requests in flight, which tests wait
--- on): `handle(response)` runs on the main loop under the guard, then
--- `on_done(response)`.
function M.request_async(owner, root, req, handle, on_done)
  M.engine(root):request_async(req, function(r)
    owner.running = owner.running - 1
    M.guard(handle, r)
    if on_done then
      on_done(r)
    end
  end)
  owner.running = owner.running + 1 -- the callback runs later, on the main loop
end

--- Merges options. Hooks, engines and chats are kept; engines are made
--- again (with the hooks) when `workspace` or `radium_home` changed.
---@param opts radium.Config|nil
function M.setup(opts)
  if opts ~= nil and type(opts) ~= "table" then
    error("radium: setup() takes a table of options, got " .. type(opts), 0)
  end
  opts = opts or {}
  if opts.root_markers ~= nil and type(opts.root_markers) ~= "table" then
    error("radium: root_markers must be a list of names, got " .. type(opts.root_markers), 0)
  end
  local before = { M.config.workspace, M.config.radium_home }
  M.config = vim.tbl_deep_extend("force", M.config, opts)
  if opts.root_markers then
    M.config.root_markers = opts.root_markers
  end
  if before[1] ~= M.config.workspace or before[2] ~= M.config.radium_home then
    engines = {}
  end
end

--- The project root of buffer `buf` (default: the current one): the nearest
--- folder above its file holding one of `root_markers`, else the working
--- directory; a buffer radium made for a project (a chat) has that project's
--- (`b:radium_root`). `config.workspace`, when set, is every buffer's root.
---@param buf integer|nil
---@return string
function M.root(buf)
  if M.config.workspace then
    return vim.fn.fnamemodify(M.config.workspace, ":p"):gsub("/$", "")
  end
  buf = buf or vim.api.nvim_get_current_buf()
  if not vim.api.nvim_buf_is_valid(buf) then
    return vim.fn.getcwd()
  end
  -- A buffer radium made (a chat) belongs to the project it was opened for.
  local own = vim.b[buf].radium_root
  if type(own) == "string" and own ~= "" then
    return own
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name ~= "" and not name:find("^%a[%w+.-]*://") then
    local found = vim.fs.root(vim.fn.fnamemodify(name, ":p"), M.config.root_markers)
    if found then
      return found
    end
  end
  return vim.fn.getcwd()
end

local function add_hook(engine, h)
  if h.kind == "lua" then
    engine:register(h.name, h.hook_type, h.fn, h.opts)
  else
    engine:register_script(h.name, h.hook_type, h.cmd, h.opts)
  end
end

--- The `rad` the engines offer to agents (radium's MCP tools): the one
--- :RadiumInstall put in the plugin's bin/, else nil (`rad` on PATH).
function M.rad_program()
  local rad = require("radium.install").paths().rad
  return vim.fn.executable(rad) == 1 and rad or nil
end

--- The engine of project `root` (default: the current buffer's root), made
--- on first use with every hook registered through require("radium").
---@param root string|nil
function M.engine(root)
  root = root or M.root()
  local engine = engines[root]
  if not engine then
    engine = require("radium").new({ workspace = root, radium_home = M.config.radium_home, rad_program = M.rad_program() })
    for _, h in ipairs(hooks) do
      local ok, err = pcall(add_hook, engine, h)
      if not ok then
        M.notify(string.format("hook `%s` could not be added in %s: %s", h.name, root, err), vim.log.levels.WARN)
      end
    end
    engines[root] = engine
  end
  return engine, root
end

--- The engines made so far: { [root] = engine }.
function M.engines()
  return engines
end

-- A Lua hook that raises or stops a chain is said, once per call.
local function reporting(name, hook_type, fn)
  return function(ctx)
    local ok, result = pcall(fn, ctx)
    if not ok then
      local msg = tostring(result):gsub("^[^\n]-:%d+: ", "")
      vim.schedule(function()
        M.notify(string.format("hook `%s` (%s) failed: %s", name, hook_type, msg), vim.log.levels.WARN)
      end)
      error(result, 0)
    end
    if type(result) == "table" and result.action == "stop" then
      vim.schedule(function()
        M.notify(string.format("hook `%s` stopped %s: %s", name, hook_type, tostring(result.reason or "no reason given")), vim.log.levels.WARN)
      end)
    end
    return result
  end
end

local function check_new(name, hook_type)
  if type(name) ~= "string" or name == "" then
    error("radium: the hook name must be a non-empty string, got " .. type(name), 3)
  end
  if type(hook_type) ~= "string" or not vim.tbl_contains(require("radium").hook_types, hook_type) then
    error(string.format("radium: unknown hook type `%s` (one of: %s)", tostring(hook_type), table.concat(require("radium").hook_types, ", ")), 3)
  end
  for _, h in ipairs(hooks) do
    if h.name == name then
      error(string.format("radium: a hook named `%s` is registered already; unregister it first", name), 3)
    end
  end
end

local function install(h)
  local first_err
  for root, engine in pairs(engines) do
    local ok, err = pcall(add_hook, engine, h)
    if not ok and not first_err then
      first_err = tostring(err) .. " (" .. root .. ")"
    end
  end
  if first_err then
    for _, engine in pairs(engines) do
      pcall(engine.unregister, engine, h.name)
    end
    error(first_err, 3)
  end
  hooks[#hooks + 1] = h
end

function M.register(name, hook_type, fn, opts)
  check_new(name, hook_type)
  if type(fn) ~= "function" then
    error("radium: the hook must be a function, got " .. type(fn), 2)
  end
  install({ kind = "lua", name = name, hook_type = hook_type, fn = reporting(name, hook_type, fn), opts = opts })
end

function M.register_script(name, hook_type, cmd, opts)
  check_new(name, hook_type)
  if type(cmd) ~= "table" or type(cmd[1]) ~= "string" then
    error("radium: the command must be a list with the program first", 2)
  end
  install({ kind = "script", name = name, hook_type = hook_type, cmd = cmd, opts = opts })
end

function M.unregister(name)
  for i, h in ipairs(hooks) do
    if h.name == name then
      table.remove(hooks, i)
      for _, engine in pairs(engines) do
        pcall(engine.unregister, engine, name)
      end
      return
    end
  end
  error(string.format("radium: no hook named `%s` was registered with require(\"radium\")", tostring(name)), 2)
end

--- The hooks registered with require("radium"): { { name, hook_type, kind } }.
function M.hooks()
  local out = {}
  for _, h in ipairs(hooks) do
    out[#out + 1] = { name = h.name, hook_type = h.hook_type, kind = h.kind }
  end
  return out
end

--- The project's dog tag (the latest one a radium answer gave).
function M.tag(root)
  return tags[root or M.root()]
end

function M.set_tag(root, tag)
  if type(tag) == "string" and tag ~= "" then
    tags[root] = tag
  end
end

--- The agents of project `root` (`agents` request): a list of tables, or nil
--- and an error message.
function M.agents(root)
  local engine = M.engine(root)
  local r = engine:request({ command = "agents", cwd = root })
  if not r.ok then
    return nil, r.error
  end
  return r.data
end

return M
