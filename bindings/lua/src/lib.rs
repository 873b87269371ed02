//! The native half of the Neovim door: `require("radium_native")`.
//!
//! Tables cross as the engine's JSON values, converted directly on the Lua
//! stack (`convert`) with `vim.json`'s rules, with no JSON text in between.
//! Lua hooks run only on the thread that loaded the module (Neovim's main
//! thread); non-blocking chains are polled there too, woken through a socket
//! that the Lua side watches with `vim.uv`.

use std::cell::RefCell;
use std::future::Future;
use std::io::Write as _;
use std::mem::ManuallyDrop;
use std::os::fd::IntoRawFd as _;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::ThreadId;
use std::time::Duration;

use mlua::{ffi, Function, Lua, Result as LuaResult, Table, UserData, UserDataMethods};
use radium_core::{
    Engine, EngineConfig, ExecuteOptions, Hook, HookCall, HookContext, HookError, HookOptions,
    HookPriority, HookResult, HookType, Request, Response, ScriptHook, ToolMatcher,
};
use serde_json::Value;

mod convert;

use convert::Marks;

fn lua_err(message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(message.to_string())
}

fn parse_json(text: &str, what: &str) -> LuaResult<Value> {
    serde_json::from_str(text).map_err(|e| lua_err(format!("{what} is not valid JSON: {e}")))
}

/// A value usable only on the thread that made it. The registry needs
/// `Send + Sync` hooks; a Lua function is neither, so it is reached only after
/// checking the thread, and leaked rather than dropped on another thread.
struct HostOnly<T> {
    value: ManuallyDrop<T>,
    thread: ThreadId,
}

// SAFETY: the value is only accessed (and dropped) on `thread`; see `get` and `Drop`.
unsafe impl<T> Send for HostOnly<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for HostOnly<T> {}

impl<T> HostOnly<T> {
    fn new(value: T) -> Self {
        HostOnly {
            value: ManuallyDrop::new(value),
            thread: std::thread::current().id(),
        }
    }

    fn get(&self) -> Option<&T> {
        (std::thread::current().id() == self.thread).then(|| &*self.value)
    }
}

impl<T> Drop for HostOnly<T> {
    fn drop(&mut self) {
        if std::thread::current().id() == self.thread {
            // SAFETY: dropped once, on the owning thread.
            unsafe { ManuallyDrop::drop(&mut self.value) };
        }
    }
}

/// `vim.NIL` and `vim.empty_dict()`'s metatable, from `setup`.
fn marks(lua: &Lua) -> LuaResult<Marks> {
    lua.app_data_ref::<Marks>().map(|m| *m).ok_or_else(|| {
        lua_err("radium_native.setup(vim.NIL, getmetatable(vim.empty_dict())) was not called")
    })
}

/// A Lua value as JSON (`what` names it in the error).
fn from_lua(lua: &Lua, value: mlua::Value, what: &str) -> LuaResult<Value> {
    let marks = marks(lua)?;
    let mut out = None;
    // SAFETY: `read` only uses the stack of this protected call, where the
    // value is argument 1.
    unsafe {
        lua.exec_raw::<()>(value, |state| {
            out = Some(convert::read(state, 1, marks, 0));
            ffi::lua_settop(state, 0);
        })?;
    }
    match out {
        Some(Ok(value)) => Ok(value),
        Some(Err(e)) => Err(lua_err(format!("{what} cannot be converted to JSON: {e}"))),
        None => Err(lua_err(format!("{what} cannot be converted to JSON"))),
    }
}

/// A JSON value as a Lua value.
fn to_lua(lua: &Lua, value: &Value) -> LuaResult<mlua::Value> {
    let marks = marks(lua)?;
    let mut ok = true;
    // SAFETY: `push` only pushes onto the stack of this protected call; its
    // one value is the result.
    let result = unsafe {
        lua.exec_raw::<mlua::Value>((), |state| {
            ok = convert::push(state, value, marks);
        })?
    };
    if ok {
        Ok(result)
    } else {
        Err(lua_err("the data is nested too deeply for Lua"))
    }
}

/// Calls a Lua hook's wrapper with the context as `{ hook_type, data,
/// metadata }` (a new table each call) and reads its answer: `None` for
/// `nil`. All in one protected call on the Lua stack.
fn call_with_context(
    lua: &Lua,
    wrapper: &Function,
    context: &HookContext,
) -> Result<Option<Value>, String> {
    let marks = marks(lua).map_err(|e| lua_error_text(&e))?;
    let mut outcome: Option<Result<Option<Value>, String>> = None;
    // SAFETY: the closure only uses the stack of this protected call, where
    // the wrapper is argument 1; it calls the wrapper with lua_pcall, so the
    // wrapper's errors stay inside. `read` and `push` raise no Lua errors
    // but for running out of memory.
    let called = unsafe {
        lua.exec_raw::<()>(wrapper, |state| {
            ffi::lua_pushvalue(state, 1);
            ffi::lua_createtable(state, 0, 3);
            let mut ok = true;
            for (key, value) in [("data", &context.data), ("metadata", &context.metadata)] {
                ffi::lua_pushlstring(state, key.as_ptr().cast(), key.len());
                ok &= convert::push(state, value, marks);
                ffi::lua_rawset(state, -3);
            }
            let kind = context.hook_type.as_str();
            ffi::lua_pushlstring(state, c"hook_type".as_ptr(), 9);
            ffi::lua_pushlstring(state, kind.as_ptr().cast(), kind.len());
            ffi::lua_rawset(state, -3);
            if !ok {
                outcome = Some(Err("the context is nested too deeply for Lua".to_owned()));
            } else if ffi::lua_pcall(state, 1, 1, 0) != 0 {
                outcome = Some(Err(error_at_top(state)));
            } else if ffi::lua_type(state, -1) == ffi::LUA_TNIL {
                outcome = Some(Ok(None));
            } else {
                let top = ffi::lua_gettop(state);
                outcome = Some(
                    convert::read(state, top, marks, 0)
                        .map(Some)
                        .map_err(|e| format!("the result cannot be converted to JSON: {e}")),
                );
            }
            ffi::lua_settop(state, 0);
        })
    };
    match (called, outcome) {
        (Ok(()), Some(outcome)) => outcome,
        (Err(e), _) => Err(lua_error_text(&e)),
        (Ok(()), None) => Err("the hook was not called".to_owned()),
    }
}

/// The message of the Lua error value on top of the stack.
///
/// # Safety
/// `state` is live, with the error value on top.
unsafe fn error_at_top(state: *mut ffi::lua_State) -> String {
    // SAFETY: per the contract; only strings and numbers are read as text
    // (lua_tolstring converts a number in place, which is harmless here).
    unsafe {
        match ffi::lua_type(state, -1) {
            ffi::LUA_TSTRING | ffi::LUA_TNUMBER => {
                let mut len = 0usize;
                let ptr = ffi::lua_tolstring(state, -1, &raw mut len);
                String::from_utf8_lossy(std::slice::from_raw_parts(ptr.cast::<u8>(), len))
                    .into_owned()
            }
            ffi::LUA_TNIL => "nil".to_owned(),
            other => format!(
                "(error object is a {} value)",
                std::ffi::CStr::from_ptr(ffi::lua_typename(state, other)).to_string_lossy()
            ),
        }
    }
}

/// A hook written in Lua: `wrapper(ctx) -> result table | nil`.
struct LuaHook {
    name: String,
    hook_type: HookType,
    priority: HookPriority,
    wrapper: HostOnly<(Function, mlua::WeakLua)>,
}

impl Hook for LuaHook {
    fn name(&self) -> &str {
        &self.name
    }
    fn hook_type(&self) -> HookType {
        self.hook_type
    }
    fn priority(&self) -> HookPriority {
        self.priority
    }
    fn call(&self, context: &HookContext) -> HookCall {
        let Some((wrapper, lua)) = self.wrapper.get() else {
            return HookCall::Ready(Err(HookError::new(format!(
                "Lua hook `{}` was called off Neovim's main thread; it was not run",
                self.name
            ))));
        };
        let Some(lua) = lua.try_upgrade() else {
            return HookCall::Ready(Err(HookError::new(format!(
                "Lua hook `{}` was called after its Lua state closed; it was not run",
                self.name
            ))));
        };
        HookCall::Ready(match call_with_context(&lua, wrapper, context) {
            Ok(None) => Ok(HookResult::Continue),
            Ok(Some(value)) => HookResult::from_json(&value).map_err(HookError::from),
            Err(e) => Err(HookError::new(e)),
        })
    }
}

/// The message of a Lua error without mlua's wrapping.
fn lua_error_text(error: &mlua::Error) -> String {
    match error {
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::CallbackError { cause, .. } => lua_error_text(cause),
        other => other.to_string(),
    }
}

/// Wakes the Lua side: one byte on a socket that `vim.uv` watches.
struct Signal {
    writer: UnixStream,
    notified: AtomicBool,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if !self.notified.swap(true, Ordering::AcqRel) {
            // Non-blocking; a full socket already has a wake-up pending.
            let _ = (&self.writer).write(&[1]);
        }
    }
}

/// A non-blocking piece of work: its result as a JSON value.
type PendingFuture = Pin<Box<dyn Future<Output = Value> + Send>>;

/// The non-blocking chains of one Lua state, polled on its main thread.
struct AsyncState {
    signal: Arc<Signal>,
    reader_fd: RefCell<Option<i32>>,
    pending: RefCell<Vec<(PendingFuture, Function)>>,
}

impl AsyncState {
    fn new() -> LuaResult<Self> {
        let (reader, writer) = UnixStream::pair()
            .map_err(|e| lua_err(format!("cannot create the wake-up socket: {e}")))?;
        writer
            .set_nonblocking(true)
            .and_then(|()| reader.set_nonblocking(true))
            .map_err(|e| lua_err(format!("cannot configure the wake-up socket: {e}")))?;
        Ok(AsyncState {
            signal: Arc::new(Signal {
                writer,
                notified: AtomicBool::new(false),
            }),
            reader_fd: RefCell::new(Some(reader.into_raw_fd())),
            pending: RefCell::new(Vec::new()),
        })
    }
}

fn async_state(lua: &Lua) -> LuaResult<mlua::AppDataRef<'_, AsyncState>> {
    if lua.app_data_ref::<AsyncState>().is_none() {
        lua.set_app_data(AsyncState::new()?);
    }
    lua.app_data_ref::<AsyncState>()
        .ok_or_else(|| lua_err("radium: async state missing"))
}

/// Polls every pending chain once; calls the callbacks of finished ones.
fn poll(lua: &Lua, (): ()) -> LuaResult<usize> {
    let (signal, pending) = {
        let state = async_state(lua)?;
        state.signal.notified.store(false, Ordering::Release);
        let pending = std::mem::take(&mut *state.pending.borrow_mut());
        (Arc::clone(&state.signal), pending)
    };
    let waker = Waker::from(signal);
    let mut cx = Context::from_waker(&waker);
    let mut still = Vec::new();
    let mut first_error = None;
    for (mut future, callback) in pending {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => {
                if let Err(e) = to_lua(lua, &value).and_then(|v| callback.call::<()>(v)) {
                    first_error.get_or_insert(e);
                }
            }
            Poll::Pending => still.push((future, callback)),
        }
    }
    let state = async_state(lua)?;
    let mut queue = state.pending.borrow_mut();
    still.append(&mut queue);
    *queue = still;
    let left = queue.len();
    drop(queue);
    match first_error {
        Some(e) => Err(e),
        None => Ok(left),
    }
}

/// Queues work to be polled on the main loop; nothing runs before the next turn.
fn queue(lua: &Lua, future: PendingFuture, callback: Function) -> LuaResult<()> {
    let state = async_state(lua)?;
    state.pending.borrow_mut().push((future, callback));
    state.signal.wake_by_ref();
    Ok(())
}

/// An engine, as Lua userdata.
struct LuaEngine {
    engine: Engine,
}

/// Options shared by `register` and `register_script` (a JSON object).
fn hook_options(options: &Value) -> LuaResult<(HookPriority, HookOptions)> {
    let map = match options {
        Value::Null => return Ok((HookPriority::DEFAULT, HookOptions::default())),
        Value::Object(map) => map,
        _ => return Err(lua_err("hook options must be a table")),
    };
    let mut priority = HookPriority::DEFAULT;
    let mut hook_options = HookOptions::default();
    for (key, value) in map {
        match (key.as_str(), value) {
            ("priority", Value::Number(n)) => {
                priority = HookPriority(
                    n.as_i64()
                        .and_then(|n| i32::try_from(n).ok())
                        .ok_or_else(|| lua_err("option `priority` must be a whole number"))?,
                );
            }
            ("matcher", Value::String(pattern)) => {
                hook_options.matcher = Some(ToolMatcher::new(pattern).map_err(lua_err)?);
            }
            ("timeout_ms", Value::Number(n)) => {
                let ms = n.as_u64().ok_or_else(|| {
                    lua_err("option `timeout_ms` must be a whole number of milliseconds")
                })?;
                hook_options.timeout = Some(Duration::from_millis(ms));
            }
            ("enabled", Value::Bool(enabled)) => hook_options.disabled = !enabled,
            ("priority" | "matcher" | "timeout_ms" | "enabled", other) => {
                return Err(lua_err(format!(
                    "option `{key}` has the wrong type ({other})"
                )))
            }
            (other, _) => {
                return Err(lua_err(format!(
                "unknown option `{other}`; known options: priority, matcher, timeout_ms, enabled"
            )))
            }
        }
    }
    Ok((priority, hook_options))
}

fn hook_type(name: &str) -> LuaResult<HookType> {
    name.parse().map_err(lua_err)
}

impl UserData for LuaEngine {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method(
            "register_lua",
            |lua, this, (name, kind, wrapper, options): (String, String, Function, String)| {
                let (priority, options) = hook_options(&parse_json(&options, "options")?)?;
                let hook = LuaHook {
                    name,
                    hook_type: hook_type(&kind)?,
                    priority,
                    wrapper: HostOnly::new((wrapper, lua.weak())),
                };
                this.engine
                    .registry()
                    .register_with(hook, options)
                    .map_err(lua_err)
            },
        );
        methods.add_method(
            "register_script",
            |_, this, (name, kind, command, options): (String, String, String, String)| {
                let command: Vec<String> = serde_json::from_str(&command)
                    .map_err(|_| lua_err("the command must be a list of strings, program first"))?;
                let Some((program, args)) = command.split_first() else {
                    return Err(lua_err("the command must not be empty"));
                };
                let mut options_json = parse_json(&options, "options")?;
                let cwd = options_json
                    .as_object_mut()
                    .and_then(|m| m.remove("cwd"))
                    .and_then(|v| v.as_str().map(str::to_owned));
                let (priority, options) = hook_options(&options_json)?;
                let mut hook = ScriptHook::new(name, hook_type(&kind)?, program)
                    .with_args(args.iter().cloned())
                    .with_priority(priority);
                if let Some(cwd) = cwd {
                    hook = hook.with_cwd(cwd);
                }
                this.engine
                    .registry()
                    .register_with(hook, options)
                    .map_err(lua_err)
            },
        );
        methods.add_method("unregister", |_, this, name: String| {
            this.engine.registry().unregister(&name).map_err(lua_err)
        });
        methods.add_method("set_enabled", |_, this, (name, enabled): (String, bool)| {
            this.engine
                .registry()
                .set_enabled(&name, enabled)
                .map_err(lua_err)
        });
        methods.add_method("list", |_, this, ()| {
            Ok(serde_json::to_string(&this.engine.registry().list()).unwrap_or_default())
        });
        methods.add_method(
            "execute",
            |lua, this, (kind, data): (String, mlua::Value)| {
                let context = HookContext::new(hook_type(&kind)?, from_lua(lua, data, "the data")?);
                let outcome = this.engine.registry().execute(context);
                to_lua(lua, &outcome.into_json())
            },
        );
        methods.add_method(
            "execute_async",
            |lua,
             this,
             (kind, data, timeout_ms, callback): (String, mlua::Value, Option<u64>, Function)| {
                let context = HookContext::new(hook_type(&kind)?, from_lua(lua, data, "the data")?);
                let options = timeout_ms.map_or_else(ExecuteOptions::default, |ms| {
                    ExecuteOptions::with_timeout(Duration::from_millis(ms))
                });
                let chain = this.engine.registry().execute_async(context, options);
                let future: PendingFuture = Box::pin(async move { chain.await.into_json() });
                queue(lua, future, callback)
            },
        );
        methods.add_method(
            "request_async",
            |lua, this, (request, callback): (mlua::Value, Function)| {
                let request = from_lua(lua, request, "the request")?;
                let future: PendingFuture = match Request::from_json(request) {
                    Ok(request) => {
                        let response = this.engine.handle_request_async(request);
                        Box::pin(async move { response.await.into_json() })
                    }
                    Err(e) => {
                        let response = Response::failure(&e).into_json();
                        Box::pin(std::future::ready(response))
                    }
                };
                queue(lua, future, callback)
            },
        );
        methods.add_method("request", |lua, this, request: mlua::Value| {
            let request = from_lua(lua, request, "the request")?;
            to_lua(lua, &this.engine.handle_json(request).into_json())
        });
    }
}

/// The module table of `require("radium_native")`.
///
/// # Errors
/// Never in practice; mlua reports table creation failures.
#[cfg_attr(feature = "module", mlua::lua_module)]
pub fn radium_native(lua: &Lua) -> LuaResult<Table> {
    let exports = lua.create_table()?;
    exports.set("version", radium_core::VERSION)?;
    exports.set("abi_version", radium_core::ABI_VERSION)?;
    exports.set(
        "new",
        lua.create_function(|_, config: Option<String>| {
            let config = match config {
                Some(text) => EngineConfig::from_json(&parse_json(&text, "the engine options")?)
                    .map_err(lua_err)?,
                None => EngineConfig::default(),
            };
            Ok(LuaEngine {
                engine: Engine::new(config).map_err(lua_err)?,
            })
        })?,
    )?;
    exports.set(
        "wake_fd",
        lua.create_function(|lua, ()| {
            let state = async_state(lua)?;
            let fd = state.reader_fd.borrow_mut().take();
            fd.ok_or_else(|| lua_err("the wake-up descriptor was already taken"))
        })?,
    )?;
    exports.set("poll", lua.create_function(poll)?)?;
    exports.set(
        "setup",
        lua.create_function(|lua, (nil, dict): (mlua::Value, Table)| {
            // SAFETY: a protected call that only stores the two arguments
            // in the registry.
            let marks = unsafe {
                let mut marks = None;
                lua.exec_raw::<()>((nil, dict), |state| {
                    let dict = ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
                    let nil = ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
                    marks = Some(Marks { nil, dict });
                })?;
                marks
            };
            if let Some(marks) = marks {
                lua.set_app_data(marks);
            }
            Ok(())
        })?,
    )?;
    exports.set(
        "pending",
        lua.create_function(|lua, ()| Ok(async_state(lua)?.pending.borrow().len()))?,
    )?;
    Ok(exports)
}
