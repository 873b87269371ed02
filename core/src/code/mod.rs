//! Code intelligence (seed 001): `read-var` (a name's definition and every
//! reference), `modify-var` (rename it across the workspace), `rename-file`
//! (move a file and update what imports it) and `lsp-list`.
//!
//! Owns the language-server client (`lsp/`: framing, one server's
//! connection, the servers an engine keeps warm), the server table
//! (`servers.rs`, `lsp.toml`), position encodings, the syntax-tree fallback
//! (`syntax.rs`, tree-sitter) and the import rewrites without a server
//! (`imports.rs`). It prepares edits; the protocol writes them as one step
//! of the edit history. May use `edit` (projects, reading files), `support`.

pub mod commands;
pub mod edits;
pub mod imports;
pub mod lookup;
pub mod lsp;
pub mod position;
pub mod rename;
pub mod report;
pub mod servers;
pub mod syntax;
mod untrusted;
pub mod walk;

pub use commands::{lsp_list, modify_var, read_var, CodeContext, Prepared};
pub use rename::rename_file;
pub use servers::{server_table, ServerSpec, LSP_FILE};
