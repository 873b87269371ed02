//! The C ABI of the radium engine. See `include/radium.h` for the contract
//! (it is generated from this file's doc comments) and the README section
//! "Using radium from C".
//!
//! Every exported function runs its body inside [`guard`], which turns a
//! Rust panic into `RADIUM_STATUS_INTERNAL`: no panic crosses into C.

#![allow(clippy::missing_safety_doc)] // the contract is in each function's doc and the header

use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use radium_core::{
    Engine, EngineConfig, Hook, HookCall, HookContext, HookOptions, HookPriority, HookResult,
    HookType, ToolMatcher,
};
use serde_json::Value;

/// The ABI version of this header. A host checks `radium_abi_version() == RADIUM_ABI_VERSION`.
pub const RADIUM_ABI_VERSION: u32 = 1;

const _: () = assert!(RADIUM_ABI_VERSION == radium_core::ABI_VERSION);

/// The result of a fallible call. 0 is success.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RadiumStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullArgument = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// A JSON argument was not valid JSON.
    InvalidJson = 3,
    /// A hook type name that is not one of the 13.
    UnknownHookType = 4,
    /// A hook with this name is already registered.
    DuplicateHook = 5,
    /// No hook with this name is registered.
    UnknownHook = 6,
    /// An argument with a wrong value (bad name, matcher, configuration...).
    InvalidArgument = 7,
    /// An engine handle that is not live (already destroyed, or never created).
    InvalidHandle = 8,
    /// A file could not be read.
    Io = 9,
    /// An internal failure (a bug in radium); the message says what.
    Internal = 10,
}

/// An error: a status and a message. Free with `radium_error_free`.
pub struct RadiumError {
    status: RadiumStatus,
    message: CString,
}

/// An engine: hooks and settings. Create with `radium_engine_new`, free with
/// `radium_engine_free`. The handle is opaque: never dereference it.
pub struct RadiumEngine {
    _opaque: [u8; 0],
}

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

struct Failure {
    status: RadiumStatus,
    message: String,
}

impl Failure {
    fn new(status: RadiumStatus, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }
}

impl From<radium_core::Error> for Failure {
    fn from(e: radium_core::Error) -> Self {
        let status = match e.code() {
            "unknown_hook_type" => RadiumStatus::UnknownHookType,
            "duplicate_hook" => RadiumStatus::DuplicateHook,
            "unknown_hook" => RadiumStatus::UnknownHook,
            "io" => RadiumStatus::Io,
            "runtime" => RadiumStatus::Internal,
            _ => RadiumStatus::InvalidArgument,
        };
        Failure::new(status, e.to_string())
    }
}

type Outcome = Result<(), Failure>;

/// Runs `body`, turning failures into a status (and an error object) and
/// panics into `RADIUM_STATUS_INTERNAL`.
fn guard(error: *mut *mut RadiumError, body: impl FnOnce() -> Outcome) -> RadiumStatus {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return RadiumStatus::Ok,
        Ok(Err(failure)) => failure,
        Err(_) => Failure::new(
            RadiumStatus::Internal,
            "internal error: radium panicked (please report this bug)",
        ),
    };
    if !error.is_null() {
        let message = CString::new(failure.message.replace('\0', " ")).unwrap_or_default();
        let boxed = Box::new(RadiumError {
            status: failure.status,
            message,
        });
        // SAFETY: the caller passes either NULL (checked) or a valid `RadiumError **`.
        unsafe { *error = Box::into_raw(boxed) };
    }
    failure.status
}

/// Borrows a required string argument.
unsafe fn str_arg<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::new(
            RadiumStatus::NullArgument,
            format!("argument `{name}` is NULL"),
        ));
    }
    // SAFETY: the contract requires a NUL-terminated string.
    unsafe { CStr::from_ptr(ptr) }.to_str().map_err(|e| {
        Failure::new(
            RadiumStatus::InvalidUtf8,
            format!("argument `{name}` is not valid UTF-8 ({e})"),
        )
    })
}

/// Parses a required JSON argument.
unsafe fn json_arg(ptr: *const c_char, name: &str) -> Result<Value, Failure> {
    // SAFETY: forwarded contract.
    let text = unsafe { str_arg(ptr, name) }?;
    serde_json::from_str(text).map_err(|e| {
        Failure::new(
            RadiumStatus::InvalidJson,
            format!("argument `{name}` is not valid JSON: {e}"),
        )
    })
}

fn null_check<T>(ptr: *const T, name: &str) -> Outcome {
    if ptr.is_null() {
        Err(Failure::new(
            RadiumStatus::NullArgument,
            format!("argument `{name}` is NULL"),
        ))
    } else {
        Ok(())
    }
}

/// The live engines, by handle. A handle is an opaque non-NULL number from
/// a counter that never repeats, not an address: a call on a destroyed handle
/// is always detected, even after another engine is created, and a call in
/// flight keeps its engine alive (an `Arc`) if another thread frees it.
struct Handles {
    next: usize,
    live: BTreeMap<usize, Arc<Engine>>,
}

fn handles() -> std::sync::MutexGuard<'static, Handles> {
    static HANDLES: Mutex<Handles> = Mutex::new(Handles {
        next: 1,
        live: BTreeMap::new(),
    });
    HANDLES.lock().unwrap_or_else(PoisonError::into_inner)
}

fn engine_arg(ptr: *const RadiumEngine) -> Result<Arc<Engine>, Failure> {
    null_check(ptr, "engine")?;
    handles()
        .live
        .get(&(ptr as usize))
        .cloned()
        .ok_or_else(|| {
            Failure::new(
                RadiumStatus::InvalidHandle,
                "the engine handle is not live (it was destroyed, or never created by radium_engine_new)",
            )
        })
}

/// Writes JSON text (as a serialiser wrote it) for the caller to free with
/// `radium_string_free`.
unsafe fn write_json(out: *mut *mut c_char, text: String) {
    debug_assert!(!text.as_bytes().contains(&0));
    // SAFETY: serialised JSON never contains a NUL byte: a NUL in a string
    // is escaped as \u0000, and nothing else can hold one. (Not scanning
    // the text again matters for large answers.)
    let c = unsafe { CString::from_vec_unchecked(text.into_bytes()) };
    // SAFETY: `out` was checked non-NULL by the caller.
    unsafe { *out = c.into_raw() };
}

/// The library's version, e.g. "0.1.0". A static string: never free it.
#[no_mangle]
pub extern "C" fn radium_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The ABI version of the loaded library; compare with `RADIUM_ABI_VERSION`.
#[no_mangle]
pub extern "C" fn radium_abi_version() -> u32 {
    RADIUM_ABI_VERSION
}

/// The status of an error (`RADIUM_STATUS_NULL_ARGUMENT` for NULL).
#[no_mangle]
pub unsafe extern "C" fn radium_error_status(error: *const RadiumError) -> RadiumStatus {
    if error.is_null() {
        return RadiumStatus::NullArgument;
    }
    // SAFETY: a non-NULL error comes from this library.
    unsafe { (*error).status }
}

/// The message of an error, owned by the error (valid until it is freed);
/// an empty string for NULL.
#[no_mangle]
pub unsafe extern "C" fn radium_error_message(error: *const RadiumError) -> *const c_char {
    if error.is_null() {
        return c"".as_ptr();
    }
    // SAFETY: a non-NULL error comes from this library.
    unsafe { (*error).message.as_ptr() }
}

/// Frees an error. NULL is harmless.
#[no_mangle]
pub unsafe extern "C" fn radium_error_free(error: *mut RadiumError) {
    if !error.is_null() {
        // SAFETY: a non-NULL error comes from Box::into_raw in this library.
        drop(unsafe { Box::from_raw(error) });
    }
}

/// Frees a string returned by this library. NULL is harmless.
#[no_mangle]
pub unsafe extern "C" fn radium_string_free(string: *mut c_char) {
    if !string.is_null() {
        // SAFETY: a non-NULL string comes from CString::into_raw in this library.
        drop(unsafe { CString::from_raw(string) });
    }
}

/// Creates an engine. `config_json` is NULL or a JSON object with optional
/// fields: `workspace` (a directory whose `.radium/hooks.toml` is applied).
/// On success `*engine_out` receives the engine.
#[no_mangle]
pub unsafe extern "C" fn radium_engine_new(
    config_json: *const c_char,
    engine_out: *mut *mut RadiumEngine,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        null_check(engine_out, "engine_out")?;
        let config = if config_json.is_null() {
            EngineConfig::default()
        } else {
            // SAFETY: forwarded contract.
            EngineConfig::from_json(&unsafe { json_arg(config_json, "config_json") }?)?
        };
        let engine = Arc::new(Engine::new(config)?);
        let handle = {
            let mut handles = handles();
            // Multiples of 16 look like aligned pointers to debuggers; the
            // counter would take centuries to wrap.
            let handle = handles.next << 4;
            handles.next += 1;
            handles.live.insert(handle, engine);
            handle
        };
        // SAFETY: checked non-NULL above.
        unsafe { *engine_out = handle as *mut RadiumEngine };
        Ok(())
    })
}

/// Destroys an engine and its hooks (their destructors run). NULL, and a
/// handle already destroyed, are harmless. If another thread is in a call on
/// this engine, the engine is destroyed when that call returns; calls made
/// after this one fail with `RADIUM_STATUS_INVALID_HANDLE`.
#[no_mangle]
pub extern "C" fn radium_engine_free(engine: *mut RadiumEngine) {
    let _ = catch_unwind(|| {
        let removed = handles().live.remove(&(engine as usize));
        // Dropped outside the lock: hook destructors may call back into radium.
        drop(removed);
    });
}

struct UserData(*mut c_void);
// SAFETY: the contract makes the host responsible for its hook being callable
// from any thread that executes chains, with its user data.
unsafe impl Send for UserData {}
// SAFETY: as above.
unsafe impl Sync for UserData {}

struct CHook {
    name: String,
    hook_type: HookType,
    priority: HookPriority,
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
                .unwrap_or_else(|| format!("C hook `{}` returned status {rc}", self.name));
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
            name: name.to_owned(),
            hook_type,
            priority: HookPriority(priority),
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

/// Runs the chain of `hook_type` on `data_json` (the chain's data, any JSON)
/// on the calling thread. On success `*outcome_json_out` receives the
/// outcome JSON (`{"hook_type","status","data","stopped_by","hooks",
/// "duration_ns"}`), freed with `radium_string_free`. A failing hook is not
/// an error of this call: it is listed in the outcome.
#[no_mangle]
pub unsafe extern "C" fn radium_hooks_execute(
    engine: *const RadiumEngine,
    hook_type: *const c_char,
    data_json: *const c_char,
    outcome_json_out: *mut *mut c_char,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        null_check(outcome_json_out, "outcome_json_out")?;
        // SAFETY: forwarded contract.
        let engine = engine_arg(engine)?;
        let hook_type: HookType = unsafe { str_arg(hook_type, "hook_type") }?.parse()?;
        let data = unsafe { json_arg(data_json, "data_json") }?;
        let outcome = engine.registry().execute(HookContext::new(hook_type, data));
        // Compact JSON with sorted keys, like every door.
        let text = outcome.to_json().to_string();
        // SAFETY: checked non-NULL above.
        unsafe { write_json(outcome_json_out, text) };
        Ok(())
    })
}

/// The JSON request door: `request_json` is `{"command", "args"?, "tag"?,
/// "cwd"?}`; on success `*response_json_out` receives `{"ok", "data"?,
/// "error"?, "code"?, "tag"?, "warnings"?}` (freed with `radium_string_free`).
/// A command that fails is still a successful call: the response says
/// `"ok": false`. Only misuse (NULL, invalid UTF-8, text that is not JSON, a
/// dead engine) makes this call fail. The commands and their arguments are
/// listed in docs/protocol.md; a `step` blocks the calling thread until the
/// agent answers.
#[no_mangle]
pub unsafe extern "C" fn radium_request(
    engine: *const RadiumEngine,
    request_json: *const c_char,
    response_json_out: *mut *mut c_char,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        null_check(response_json_out, "response_json_out")?;
        // SAFETY: forwarded contract.
        let engine = engine_arg(engine)?;
        let request = unsafe { str_arg(request_json, "request_json") }?;
        let text = engine.handle_json_text(request).map_err(|e| {
            Failure::new(
                RadiumStatus::InvalidJson,
                format!("argument `request_json` is not valid JSON: {e}"),
            )
        })?;
        // SAFETY: checked non-NULL above.
        unsafe { write_json(response_json_out, text) };
        Ok(())
    })
}
