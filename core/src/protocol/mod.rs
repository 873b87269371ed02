//! The protocol layer: the request/response envelope every door speaks, the
//! [`Engine`] that answers requests by handing each command to the part that
//! owns it, and the daemon that serves the same requests over a Unix socket.
//!
//! Owns: the envelope, the command table, requests in flight (cancel), the
//! daemon socket. Uses: every part; no part uses this one.

mod agent_history;
mod agents_catalogue;
mod agents_check;
mod clipboard;
mod code;
pub(crate) mod config;
pub mod daemon;
mod dispatch;
mod editor_sessions;
pub(crate) mod engine;
pub(crate) mod envelope;
pub(crate) mod inflight;
mod logged;
mod reply;
mod sessions;

pub use agents_check::MAX_CHECKED_AGENTS;
pub use config::EngineConfig;
pub use engine::{Engine, ABI_VERSION, COMMANDS};
pub use envelope::{Request, Response, MAX_ERROR_MESSAGE};
