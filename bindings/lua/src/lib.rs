//! The native half of the Neovim door: `require("radium_native")`.
//!
//! Only JSON text crosses between Lua and Rust; `lua/radium/init.lua` turns
//! it into tables with `vim.json`, so the conversion rules are Neovim's own.
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

use mlua::{Function, Lua, Result as LuaResult, Table, UserData, UserDataMethods};
use radium_core::{
    Engine, EngineConfig, ExecuteOptions, Hook, HookCall, HookContext, HookError, HookOptions,
    HookPriority, HookResult, HookType, ScriptHook, ToolMatcher,
};
use serde_json::Value;

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

/// A hook written in Lua: `wrapper(context_json) -> result_json | nil`.
struct LuaHook {
    name: String,
    hook_type: HookType,
    priority: HookPriority,
    wrapper: HostOnly<Function>,
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
        let Some(wrapper) = self.wrapper.get() else {
            return HookCall::Ready(Err(HookError::new(format!(
                "Lua hook `{}` was called off Neovim's main thread; it was not run",
                self.name
            ))));
        };
        let answer = match wrapper
            .call::<Option<mlua::String>>((context.hook_type.as_str(), context.to_json_text()))
        {
            Ok(answer) => answer,
            Err(e) => return HookCall::Ready(Err(HookError::new(lua_error_text(&e)))),
        };
        HookCall::Ready(match answer {
            None => Ok(HookResult::Continue),
            Some(text) => serde_json::from_slice::<Value>(&text.as_bytes())
                .map_err(|e| {
                    HookError::new(format!(
                        "Lua hook `{}` answered invalid JSON: {e}",
                        self.name
                    ))
                })
                .and_then(|v| HookResult::from_json(&v).map_err(HookError::from)),
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

/// A non-blocking piece of work: its result as JSON text.
type PendingFuture = Pin<Box<dyn Future<Output = String> + Send>>;

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
            Poll::Ready(text) => {
                if let Err(e) = callback.call::<()>(text) {
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
            |_, this, (name, kind, wrapper, options): (String, String, Function, String)| {
                let (priority, options) = hook_options(&parse_json(&options, "options")?)?;
                let hook = LuaHook {
                    name,
                    hook_type: hook_type(&kind)?,
                    priority,
                    wrapper: HostOnly::new(wrapper),
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
        methods.add_method("execute", |_, this, (kind, data): (String, String)| {
            let context = HookContext::new(hook_type(&kind)?, parse_json(&data, "data")?);
            let outcome = this.engine.registry().execute(context);
            Ok(serde_json::to_string(&outcome).unwrap_or_default())
        });
        methods.add_method(
            "execute_async",
            |lua, this, (kind, data, timeout_ms, callback): (String, String, Option<u64>, Function)| {
                let context = HookContext::new(hook_type(&kind)?, parse_json(&data, "data")?);
                let options = timeout_ms.map_or_else(ExecuteOptions::default, |ms| {
                    ExecuteOptions::with_timeout(Duration::from_millis(ms))
                });
                let chain = this.engine.registry().execute_async(context, options);
                let future: PendingFuture = Box::pin(async move {
                    serde_json::to_string(&chain.await).unwrap_or_default()
                });
                queue(lua, future, callback)
            },
        );
        methods.add_method(
            "request_async",
            |lua, this, (request, callback): (String, Function)| {
                let future: PendingFuture = this
                    .engine
                    .handle_json_text_async(&request)
                    .map_err(|e| lua_err(format!("the request is not valid JSON: {e}")))?;
                queue(lua, future, callback)
            },
        );
        methods.add_method("request", |_, this, request: String| {
            this.engine
                .handle_json_text(&request)
                .map_err(|e| lua_err(format!("the request is not valid JSON: {e}")))
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
        "pending",
        lua.create_function(|lua, ()| Ok(async_state(lua)?.pending.borrow().len()))?,
    )?;
    Ok(exports)
}
