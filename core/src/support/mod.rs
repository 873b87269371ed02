//! Small helpers every part may use: atomic writes, file locks, path resolution,
//! request arguments, child processes, the engine's log and the shared names. This module uses no part
//! (only the shared error type), so it can sit under all of them.

pub(crate) mod atomic;
pub(crate) mod json;
pub(crate) mod lock;
pub mod log;
pub mod names;
pub(crate) mod paths;
pub(crate) mod process;
pub(crate) mod text;
