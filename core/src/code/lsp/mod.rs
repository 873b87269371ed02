//! The language-server client: framing, one server's connection, and the
//! servers an engine keeps running.

pub mod client;
pub mod framing;
pub mod pool;
pub mod replies;
mod stderr;
pub mod uri;

pub use client::{Client, LspError, OpenDoc};
pub use pool::Servers;
