//! The C ABI of the radium engine. See `include/radium.h` for the contract
//! (it is generated from this crate's doc comments) and the README section
//! "Using radium from C".
//!
//! Every exported function runs its body inside `guard` (in `errors`), which
//! turns a Rust panic into `RADIUM_STATUS_INTERNAL`: no panic crosses into C.

#![allow(clippy::missing_safety_doc)] // the contract is in each function's doc and the header

use std::ffi::c_char;

// The header lists the functions in the order cbindgen reads them: this
// file's, then each module's, in the order the modules are declared here
// (each `mod` line has its own comment, so rustfmt keeps that order).

// Statuses, error objects, and `guard`.
mod errors;
// String arguments and returned strings.
mod strings;
// Engine handles.
mod engine;
// Hooks implemented in C.
mod hooks;
// Running chains, and the JSON request door.
mod requests;
// Events of agent sessions pushed to C.
mod sessions;

pub use crate::engine::{radium_engine_free, radium_engine_new, RadiumEngine};
pub use crate::errors::{
    radium_error_free, radium_error_message, radium_error_status, RadiumError, RadiumStatus,
};
pub use crate::hooks::{
    radium_hook_register, radium_hook_reply_set_error, radium_hook_reply_set_result,
    radium_hook_set_enabled, radium_hook_unregister, RadiumDestroyFn, RadiumHookFn,
    RadiumHookReply,
};
pub use crate::requests::{radium_hooks_execute, radium_request};
pub use crate::sessions::{radium_session_subscribe, RadiumSessionEventFn};
pub use crate::strings::radium_string_free;

/// The ABI version of this header. A host checks `radium_abi_version() == RADIUM_ABI_VERSION`.
pub const RADIUM_ABI_VERSION: u32 = 1;

const _: () = assert!(RADIUM_ABI_VERSION == radium_core::ABI_VERSION);

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
