//! Editor integration (seed 000): the editor context, language detection,
//! code-block extraction from agent answers, and applying a block with a
//! diff preview.

pub mod apply;
pub(crate) mod commands;
pub mod context;
pub mod extract;
pub mod hooks;
pub mod language;
