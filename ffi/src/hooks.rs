//! Hooks implemented in C: the callback and destructor types, the reply a
//! callback answers through, the `Hook` that calls it, and the functions that
//! register, remove, enable and answer them.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use radium_core::{
    Hook, HookCall, HookContext, HookMeta, HookOptions, HookResult, HookType, ToolMatcher,
};
use serde_json::Value;

use crate::engine::{engine_arg, RadiumEngine};
use crate::errors::{guard, Failure, RadiumError, RadiumStatus};
use crate::strings::{json_arg, null_check, str_arg};

/// Where a C hook puts its answer; valid only during the callback.
pub struct RadiumHookReply {
    result: Option<Value>,
    error: Option<String>,
}

/// A hook implemented in C.
///
/// Called with the hook's `user_data`, the context as JSON
/// (`{"hook_type", "data", "metadata"}`, NUL-terminated, `context_len` bytes
/// without the NUL, valid only during the call) and a reply object. Return 0
/// for success, after optionally setting a result with
/// `radium_hook_reply_set_result` (no result means "continue"); return any
/// other value for failure, after optionally setting a message with
/// `radium_hook_reply_set_error`. A failure is recorded as this hook's error
/// and the chain goes on.
pub type RadiumHookFn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        context_json: *const c_char,
        context_len: usize,
        reply: *mut RadiumHookReply,
    ) -> i32,
>;

/// Frees a hook's `user_data`; called once, when the hook is gone (unregistered
/// or its engine freed, and no chain is running it).
pub type RadiumDestroyFn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

struct UserData(*mut c_void);
// SAFETY: the contract makes the host responsible for its hook being callable
// from any thread that executes chains, with its user data.
unsafe impl Send for UserData {}
// SAFETY: as above.
unsafe impl Sync for UserData {}

struct CHook {
    meta: HookMeta,
    callback: unsafe extern "C" fn(*mut c_void, *const c_char, usize, *mut RadiumHookReply) -> i32,
    user_data: UserData,
    destroy: RadiumDestroyFn,
    /// Set once registration succeeded: only then does the hook own `user_data`.
    armed: AtomicBool,
}

impl Drop for CHook {
    fn drop(&mut self) {
        if let (true, Some(destroy)) = (self.armed.load(Ordering::Acquire), self.destroy) {
            // SAFETY: the host gave this destructor for this user data.
            unsafe { destroy(self.user_data.0) };
        }
    }
}

impl Hook for CHook {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        // Serialised once per chain and shared by every C hook until the data changes.
        let text = context.to_json_cstr();
        let len = text.to_bytes().len();
        let mut reply = RadiumHookReply {
            result: None,
            error: None,
        };
        // SAFETY: the callback was given by the host for this hook; the
        // pointers are valid for the duration of the call.
        let rc = unsafe { (self.callback)(self.user_data.0, text.as_ptr(), len, &raw mut reply) };
        if rc != 0 {
            let message = reply
                .error
                .unwrap_or_else(|| format!("C hook `{}` returned status {rc}", self.meta.name));
            return HookCall::Ready(Err(message.into()));
        }
        HookCall::Ready(match reply.result {
            None => Ok(HookResult::Continue),
            Some(value) => HookResult::from_json(&value).map_err(Into::into),
        })
    }
}

/// Registers a hook implemented in C.
///
/// `name` must be unique in the engine; `hook_type` is a type name such as
/// `"before_tool"`; `priority` orders hooks (higher first; 100 is the usual
/// default); `matcher` is NULL or a tool pattern (tool hooks only);
/// `timeout_ms` is the hook's time limit (0 for none: a C hook cannot be
/// interrupted, so one that returns late is recorded as timed out and its
/// answer discarded). On success the engine owns `user_data` and calls
/// `destroy` (if not NULL) once the hook is gone; on failure `destroy` is not
/// called and the caller keeps `user_data`.
#[no_mangle]
pub unsafe extern "C" fn radium_hook_register(
    engine: *const RadiumEngine,
    name: *const c_char,
    hook_type: *const c_char,
    priority: i32,
    matcher: *const c_char,
    timeout_ms: u64,
    callback: RadiumHookFn,
    user_data: *mut c_void,
    destroy: RadiumDestroyFn,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        // SAFETY: forwarded contract for every pointer argument.
        let engine = engine_arg(engine)?;
        let name = unsafe { str_arg(name, "name") }?;
        let hook_type: HookType = unsafe { str_arg(hook_type, "hook_type") }?.parse()?;
        let matcher = if matcher.is_null() {
            None
        } else {
            Some(ToolMatcher::new(unsafe { str_arg(matcher, "matcher") }?)?)
        };
        let callback = callback.ok_or_else(|| {
            Failure::new(RadiumStatus::NullArgument, "argument `callback` is NULL")
        })?;
        let hook = Arc::new(CHook {
            meta: HookMeta::new(name, hook_type).with_priority(priority),
            callback,
            user_data: UserData(user_data),
            destroy,
            armed: AtomicBool::new(false),
        });
        let options = HookOptions {
            matcher,
            timeout: (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms)),
            ..HookOptions::default()
        };
        engine
            .registry()
            .register_arc(Arc::clone(&hook) as Arc<dyn Hook>, options)?;
        hook.armed.store(true, Ordering::Release);
        Ok(())
    })
}

/// Removes the hook named `name`; its destructor runs once no chain uses it.
#[no_mangle]
pub unsafe extern "C" fn radium_hook_unregister(
    engine: *const RadiumEngine,
    name: *const c_char,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        // SAFETY: forwarded contract.
        let engine = engine_arg(engine)?;
        let name = unsafe { str_arg(name, "name") }?;
        Ok(engine.registry().unregister(name)?)
    })
}

/// Enables (`enabled` true) or disables the hook named `name`.
#[no_mangle]
pub unsafe extern "C" fn radium_hook_set_enabled(
    engine: *const RadiumEngine,
    name: *const c_char,
    enabled: bool,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        // SAFETY: forwarded contract.
        let engine = engine_arg(engine)?;
        let name = unsafe { str_arg(name, "name") }?;
        Ok(engine.registry().set_enabled(name, enabled)?)
    })
}

/// Sets a C hook's result, as the JSON documented for hook results (e.g.
/// `{"action":"modify","data":{...}}`, `{"action":"stop","reason":"..."}`).
/// Only valid inside the hook's callback, on the reply it was given.
#[no_mangle]
pub unsafe extern "C" fn radium_hook_reply_set_result(
    reply: *mut RadiumHookReply,
    result_json: *const c_char,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        null_check(reply, "reply")?;
        // SAFETY: forwarded contract.
        let value = unsafe { json_arg(result_json, "result_json") }?;
        HookResult::from_json(&value)?;
        // SAFETY: a non-NULL reply is the one passed to the running callback.
        unsafe { (*reply).result = Some(value) };
        Ok(())
    })
}

/// Sets a C hook's failure message (used when the callback returns non-zero).
/// Only valid inside the hook's callback, on the reply it was given.
#[no_mangle]
pub unsafe extern "C" fn radium_hook_reply_set_error(
    reply: *mut RadiumHookReply,
    message: *const c_char,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        null_check(reply, "reply")?;
        // SAFETY: forwarded contract.
        let message = unsafe { str_arg(message, "message") }?;
        // SAFETY: a non-NULL reply is the one passed to the running callback.
        unsafe { (*reply).error = Some(message.to_owned()) };
        Ok(())
    })
}
