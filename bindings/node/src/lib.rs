//! The Node.js door of radium: a napi-rs addon loaded by `require("radium-node")`
//! (VS Code's extension host included).
//!
//! - [`Engine`] wraps a `radium_core::Engine`: JS hooks (functions, sync or
//!   returning Promises), script hooks, enable/disable/list, `execute`
//!   (synchronous), `executeAsync` (a Promise; never blocks the event loop)
//!   and the JSON `request` door.
//! - JavaScript is only touched on the thread that loaded the addon, inside
//!   native calls JavaScript makes or callbacks N-API runs there
//!   (see `host.rs`). Errors are JS `Error`s with a stable `code`.
//! - No panic crosses into Node: every entry point runs under `guard`
//!   (see `errors.rs`).

mod args;
mod convert;
mod engine;
mod errors;
mod hook;
mod host;
mod js;
mod later;
mod sessions;
mod tape;

use napi::bindgen_prelude::Env;
use napi_derive::napi;
use radium_core::HookType;

pub use crate::engine::{Engine, Out};
pub use crate::errors::ErrorCode;

use crate::args::js_of;
use crate::errors::{guard, internal, Throw};
use crate::host::Host;

/// The version of radium, e.g. `"0.1.0"`.
#[napi]
pub fn version() -> String {
    radium_core::VERSION.to_owned()
}

/// The ABI version (the same number as the C header's `RADIUM_ABI_VERSION`).
#[napi]
pub fn abi_version() -> u32 {
    radium_core::ABI_VERSION
}

/// The 13 hook types, in order.
#[napi(ts_return_type = "HookType[]")]
pub fn hook_types() -> Vec<&'static str> {
    HookType::ALL.iter().map(|t| t.as_str()).collect()
}

/// How many `executeAsync` chains are in flight on this thread.
#[napi]
pub fn pending_chains(env: Env) -> Result<u32, Throw> {
    guard(|| {
        let host = Host::get(js_of(&env)).map_err(internal)?;
        Ok(u32::try_from(host.pending()).unwrap_or(u32::MAX))
    })
}
