//! Hooks written in JavaScript.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::thread::ThreadId;

use napi::bindgen_prelude::{Env, Function, Unknown};
use napi::{sys, JsValue as _};
use radium_core::{
    Hook, HookCall, HookContext, HookError, HookMeta, HookOutput, HookPriority, HookResult,
    HookType,
};

use crate::convert;
use crate::host::{self, Host, Mode, Remote};
use crate::js::{Js, JsResult, Kind, Raw};

/// A strong reference to a JS function, usable only on the thread (and in
/// the environment) that made it. The registry wants `Send + Sync` hooks;
/// the reference is never touched elsewhere, and if it is dropped elsewhere
/// (or after the environment's teardown) it is leaked, not deleted.
struct FunctionRef {
    raw: sys::napi_ref,
    env: sys::napi_env,
    thread: ThreadId,
}

// SAFETY: the raw pointers are only used on `thread` in `env` (checked in
// `get` and `Drop`); elsewhere the value is inert.
unsafe impl Send for FunctionRef {}
// SAFETY: as above.
unsafe impl Sync for FunctionRef {}

impl FunctionRef {
    fn new(js: Js, function: Raw) -> JsResult<Self> {
        Ok(FunctionRef {
            raw: js.reference(function)?,
            env: js.env(),
            thread: std::thread::current().id(),
        })
    }

    /// The function, when called on its own thread inside a native call of its environment.
    fn get(&self) -> Option<(Js, Mode, Raw)> {
        if std::thread::current().id() != self.thread {
            return None;
        }
        let (env, mode) = host::current()?;
        if env != self.env {
            return None;
        }
        // SAFETY: `env` is the environment of the native call now running
        // on this thread (`host::current`), and `js` does not outlive it.
        let js = unsafe { Js::new(env) };
        js.reference_value(self.raw).ok().map(|f| (js, mode, f))
    }
}

impl Drop for FunctionRef {
    fn drop(&mut self) {
        if std::thread::current().id() == self.thread && host::is_live(self.env) {
            // SAFETY: our thread, and the environment is still live (not torn down).
            unsafe { sys::napi_delete_reference(self.env, self.raw) };
        }
    }
}

/// A hook whose body is a JS function `(ctx) => result | undefined | Promise`.
pub(crate) struct JsHook {
    meta: HookMeta,
    function: Arc<FunctionRef>,
    /// Where a call from another thread is sent, to run on the JS thread.
    remote: Remote,
}

impl JsHook {
    pub(crate) fn new(
        js: Js,
        name: String,
        hook_type: HookType,
        priority: HookPriority,
        function: Raw,
    ) -> JsResult<Self> {
        Ok(JsHook {
            meta: HookMeta::new(name, hook_type).with_priority(priority),
            function: Arc::new(FunctionRef::new(js, function)?),
            remote: Host::get(js)?.remote(),
        })
    }
}

impl Hook for JsHook {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }

    fn call(&self, context: &HookContext) -> HookCall {
        if std::thread::current().id() == self.function.thread {
            return call_here(&self.function, &self.meta.name, context);
        }
        // A chain on the engine's threads (a session's permission check):
        // the call is sent to the JS thread and answered there, under the
        // hook's time limit; the event loop never waits for the chain.
        let (tx, rx) = tokio::sync::oneshot::channel::<HookCall>();
        let function = Arc::clone(&self.function);
        let name = self.meta.name.clone();
        let context = context.clone();
        self.remote.send(Box::new(move |_js| {
            let _ = tx.send(call_here(&function, &name, &context));
        }));
        let name = self.meta.name.clone();
        HookCall::pending(async move {
            match rx.await {
                Ok(HookCall::Ready(output)) => output,
                Ok(HookCall::Pending(later) | HookCall::OnHost(later)) => later.await,
                Ok(_) => Err(HookError::new(format!(
                    "JS hook `{name}` answered in a way this door does not know"
                ))),
                Err(_) => Err(HookError::new(format!(
                    "JS hook `{name}` was not run: its JavaScript environment closed first"
                ))),
            }
        })
    }
}

/// Calls a JS hook on its own thread, inside a native call.
fn call_here(function: &FunctionRef, name: &str, context: &HookContext) -> HookCall {
    let Some((js, mode, function)) = function.get() else {
        return HookCall::Ready(Err(HookError::new(format!(
            "JS hook `{name}` was called outside its JavaScript thread; it was not run"
        ))));
    };
    let _scope = js.scope();
    let answer = crate::tape::call_hook(js, function, context);
    match answer {
        Ok(value) => answer_from_js(js, mode, value, name),
        Err(message) => HookCall::Ready(Err(HookError::new(message))),
    }
}

/// What a JS hook's return value means.
fn answer_from_js(js: Js, mode: Mode, value: Raw, name: &str) -> HookCall {
    if js.kind(value) == Kind::Object {
        match then_function(js, value) {
            Ok(Some(then)) => return settle_later(js, mode, value, then, name),
            Ok(None) => {}
            Err(message) => return HookCall::Ready(Err(HookError::new(message))),
        }
    }
    HookCall::Ready(result_from_js(js, value, name))
}

/// The `then` method of a Promise or thenable, if `value` is one.
fn then_function(js: Js, value: Raw) -> JsResult<Option<Raw>> {
    let then = js.get_named(value, c"then")?;
    if js.kind(then) == Kind::Function {
        Ok(Some(then))
    } else if js.is_promise(value) {
        Err("the hook returned a Promise whose `then` is not a function".to_owned())
    } else {
        Ok(None)
    }
}

/// A hook's result value (not a Promise) as a result.
fn result_from_js(js: Js, value: Raw, name: &str) -> HookOutput {
    match js.kind(value) {
        Kind::Undefined | Kind::Null => Ok(HookResult::Continue),
        Kind::Object => {
            let json = convert::from_js(js, value).map_err(|e| {
                HookError::new(format!(
                    "hook `{name}` returned a result that cannot be converted to JSON: {e}"
                ))
            })?;
            HookResult::from_json(&json).map_err(HookError::from)
        }
        other => Err(HookError::new(format!(
            "hook `{name}` returned {}; expected undefined or a result object such as {{ action: \"modify\", data }}",
            other.describe()
        ))),
    }
}

fn closure<'a>(
    env: &'a Env,
    name: &str,
    body: impl Fn(Js, Raw) + 'static,
) -> JsResult<Function<'a, Unknown<'a>, ()>> {
    env.create_function_from_closure(name, move |ctx| {
        let value = ctx.get::<Unknown>(0).map(|v| v.raw()).ok();
        // SAFETY: N-API calls this closure on the JS thread with the live
        // environment of this call; `js` does not outlive it.
        let js = unsafe { Js::new(ctx.env.raw()) };
        let value = match value {
            Some(v) => v,
            None => match js.undefined() {
                Ok(v) => v,
                Err(_) => return Ok(()),
            },
        };
        body(js, value);
        Ok(())
    })
    .map_err(|e| format!("cannot create a callback: {}", e.reason))
}

/// A JS hook answered a Promise (or thenable).
///
/// In a synchronous chain that is the hook's error (and a rejection handler
/// is attached so the Promise never counts as unhandled). In a non-blocking
/// chain, the hook's answer is a future that a pair of `then` callbacks
/// completes on the JS thread; the chain's waker then schedules the next poll.
fn settle_later(js: Js, mode: Mode, promise: Raw, then: Raw, name: &str) -> HookCall {
    let env = Env::from_raw(js.env());
    if mode == Mode::Sync {
        let ignore = closure(&env, "radiumIgnore", |_, _| {});
        if let Ok(ignore) = ignore {
            let attached = js
                .undefined()
                .and_then(|undefined| js.call(then, promise, &[undefined, ignore.raw()]));
            drop(attached);
        }
        return HookCall::Ready(Err(HookError::new(format!(
            "hook `{name}` returned a Promise, but execute() runs the chain synchronously; use executeAsync() for hooks that return Promises (async functions)"
        ))));
    }
    let (sender, receiver) = tokio::sync::oneshot::channel::<HookOutput>();
    let slot = Rc::new(RefCell::new(Some(sender)));
    let fulfilled = {
        let slot = Rc::clone(&slot);
        let name = name.to_owned();
        closure(&env, "radiumHookFulfilled", move |js, value| {
            if let Some(sender) = slot.borrow_mut().take() {
                let _ = sender.send(result_from_js(js, value, &name));
            }
        })
    };
    let rejected = {
        let slot = Rc::clone(&slot);
        closure(&env, "radiumHookRejected", move |js, reason| {
            if let Some(sender) = slot.borrow_mut().take() {
                let _ = sender.send(Err(HookError::new(js.describe(reason))));
            }
        })
    };
    let attached = fulfilled
        .and_then(|f| rejected.map(|r| (f, r)))
        .and_then(|(f, r)| js.call(then, promise, &[f.raw(), r.raw()]));
    if let Err(message) = attached {
        return HookCall::Ready(Err(HookError::new(format!(
            "cannot wait for the Promise of hook `{name}`: {message}"
        ))));
    }
    HookCall::pending_on_host(async move {
        receiver.await.unwrap_or_else(|_| {
            Err(HookError::new(
                "the hook's Promise was dropped without settling",
            ))
        })
    })
}
