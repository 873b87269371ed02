//! Extensions and workspace trust: `radium-extension.json` manifests and their
//! hook files, discovery at the user and workspace levels, install and remove,
//! which extensions are active, and the trust store that decides whether a
//! workspace's own code may run.
//!
//! Owns: the extension folders, `trust.json`, the set of active extensions.
//! Uses: `hooks` (an extension's hooks are script hooks), `support` and the
//! shared error type.

pub(crate) mod commands;
pub mod manifest;
pub mod trust;

pub use manifest::{discover, read_extension, Extension, Found, Level, Manifest, MANIFEST};
pub use trust::TrustStore;
