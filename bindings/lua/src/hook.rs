//! Hooks written in Lua: `LuaHook`, kept to the thread that made it
//! (`HostOnly`), and the protected call that runs its wrapper with a
//! context and reads the answer.

use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::thread::ThreadId;

use mlua::{ffi, Function, Lua};
use radium_core::{Hook, HookCall, HookContext, HookError, HookMeta, HookOutput, HookResult};
use serde_json::Value;

use crate::context;
use crate::convert;
use crate::poll::HostCalls;
use crate::values::marks;

/// A value usable only on the thread that made it. The registry needs
/// `Send + Sync` hooks; a Lua function is neither, so it is reached only after
/// checking the thread, and leaked rather than dropped on another thread.
pub(crate) struct HostOnly<T> {
    value: ManuallyDrop<T>,
    thread: ThreadId,
}

// SAFETY: the value is only accessed (and dropped) on `thread`; see `get` and `Drop`.
unsafe impl<T> Send for HostOnly<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for HostOnly<T> {}

impl<T> HostOnly<T> {
    pub(crate) fn new(value: T) -> Self {
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

/// Calls a Lua hook's wrapper with the context as `{ hook_type, data,
/// metadata }` (a new table each call, its strings made once per revision:
/// `context`) and reads its answer: `None` for
/// `nil`. All in one protected call on the Lua stack.
fn call_with_context(
    lua: &Lua,
    wrapper: &Function,
    context: &HookContext,
) -> Result<Option<Value>, String> {
    let marks = marks(lua).map_err(|e| lua_error_text(&e))?;
    let pool = context::pool(lua).map_err(|e| lua_error_text(&e))?;
    let mut outcome: Option<Result<Option<Value>, String>> = None;
    // SAFETY: the closure only uses the stack of this protected call, where
    // the wrapper is argument 1; it calls the wrapper with lua_pcall, so the
    // wrapper's errors stay inside. `read` and `push` raise no Lua errors
    // but for running out of memory.
    let called = unsafe {
        lua.exec_raw::<()>(wrapper, |state| {
            ffi::lua_pushvalue(state, 1);
            let ok = context::push(state, context, marks, &pool);
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
pub(crate) struct LuaHook {
    pub(crate) meta: HookMeta,
    pub(crate) wrapper: Arc<HostOnly<(Function, mlua::WeakLua)>>,
    /// Where a call from another thread is sent, to run on the main thread.
    pub(crate) host: Arc<HostCalls>,
}

/// Runs the hook's wrapper; on the thread that made it (checked).
fn run(
    wrapper: &HostOnly<(Function, mlua::WeakLua)>,
    name: &str,
    context: &HookContext,
) -> HookOutput {
    let Some((wrapper, lua)) = wrapper.get() else {
        return Err(HookError::new(format!(
            "Lua hook `{name}` was called off Neovim's main thread; it was not run"
        )));
    };
    let Some(lua) = lua.try_upgrade() else {
        return Err(HookError::new(format!(
            "Lua hook `{name}` was called after its Lua state closed; it was not run"
        )));
    };
    match call_with_context(&lua, wrapper, context) {
        Ok(None) => Ok(HookResult::Continue),
        Ok(Some(value)) => HookResult::from_json(&value).map_err(HookError::from),
        Err(e) => Err(HookError::new(e)),
    }
}

impl Hook for LuaHook {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        if self.wrapper.get().is_some() {
            return HookCall::Ready(run(&self.wrapper, &self.meta.name, context));
        }
        // A chain on the engine's threads (a session's permission check):
        // the call waits for the main loop's next poll, under the hook's
        // time limit, and never blocks the thread it came from.
        let (tx, rx) = tokio::sync::oneshot::channel();
        let wrapper = Arc::clone(&self.wrapper);
        let name = self.meta.name.clone();
        let context = context.clone();
        self.host.send(Box::new(move |_lua| {
            let _ = tx.send(run(&wrapper, &name, &context));
        }));
        let name = self.meta.name.clone();
        HookCall::pending(async move {
            rx.await.unwrap_or_else(|_| {
                Err(HookError::new(format!(
                    "Lua hook `{name}` was not run: Neovim's Lua state closed first"
                )))
            })
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
