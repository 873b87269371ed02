//! Work on an engine: a chain run on the calling thread
//! (`radium_hooks_execute`) and the JSON request door (`radium_request`).

use std::ffi::c_char;

use radium_core::{HookContext, HookType};

use crate::engine::{engine_arg, RadiumEngine};
use crate::errors::{guard, Failure, RadiumError, RadiumStatus};
use crate::strings::{json_arg, null_check, str_arg, write_json};

/// Runs the chain of `hook_type` on `data_json` (the chain's data, any JSON)
/// on the calling thread. On success `*outcome_json_out` receives the
/// outcome JSON (`{"hook_type","status","data","stopped_by","hooks",
/// "duration_ns"}`), freed with `radium_string_free`. A failing hook is not
/// an error of this call: it is listed in the outcome. When the engine's
/// workspace `hooks.toml` is broken and the chain has a hook to run, no hook
/// runs and the call fails with `RADIUM_STATUS_INVALID_ARGUMENT` and the
/// file's error (`.../hooks.toml:LINE:COLUMN: ...`).
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
        let outcome = engine
            .registry()
            .try_execute(HookContext::new(hook_type, data))?;
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
