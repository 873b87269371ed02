//! Engine handles: the table of live engines, `radium_engine_new` and
//! `radium_engine_free`, and how a handle argument becomes its engine.

use std::collections::BTreeMap;
use std::ffi::c_char;
use std::panic::catch_unwind;
use std::sync::{Arc, Mutex, PoisonError};

use radium_core::{Engine, EngineConfig};

use crate::errors::{guard, Failure, RadiumError, RadiumStatus};
use crate::strings::{json_arg, null_check};

/// An engine: hooks and settings. Create with `radium_engine_new`, free with
/// `radium_engine_free`. The handle is opaque: never dereference it.
pub struct RadiumEngine {
    _opaque: [u8; 0],
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

/// The engine a handle argument names, kept alive for the call.
pub(crate) fn engine_arg(ptr: *const RadiumEngine) -> Result<Arc<Engine>, Failure> {
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

/// Creates an engine. `config_json` is NULL or a JSON object with optional
/// fields: `workspace` (a directory whose `.radium/hooks.toml` is applied).
/// On success `*engine_out` receives the engine. A broken `hooks.toml` does
/// not make this call fail: the engine is created without any of the file's
/// settings, and every chain with a hook to run then fails with the file's
/// error (`radium_hooks_execute` with `RADIUM_STATUS_INVALID_ARGUMENT`, a
/// `radium_request` with `"code": "config"`), whose message names
/// `hooks.toml:LINE:COLUMN`; the `hooks-list` request carries it in its
/// `warnings`. A fixed file is read by a new engine.
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
