//! `rad read-var`, `rad modify-var`, `rad rename-file` and `rad lsp list`:
//! through the daemon, so the language servers stay warm between calls;
//! printed in the text layout (or JSON with `--json`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use radium_core::code::report;
use serde_json::{json, Value};

use crate::daemon_client::send;

/// The options every code command shares.
#[derive(Args, Clone)]
pub(crate) struct CodeOptions {
    /// Print the answer as JSON.
    #[arg(long)]
    json: bool,
    /// Who answers: auto (a language server, else the syntax tree), lsp
    /// (a server or an error) or syntax.
    #[arg(long, default_value = "auto")]
    engine: String,
}

/// Which occurrence of a name is meant.
#[derive(Args, Clone, Copy)]
pub(crate) struct At {
    /// The line (1-based) of the occurrence meant (default: its definition
    /// in the file).
    #[arg(long)]
    line: Option<u64>,
    /// With --line: its column (1-based, in characters), when the name is on
    /// that line more than once.
    #[arg(long, requires = "line")]
    column: Option<u64>,
}

/// `rad lsp ...`.
#[derive(Subcommand)]
pub(crate) enum LspCommand {
    /// Each language's server: its command, where it came from, whether it
    /// is installed and running for this workspace.
    List {
        /// Print the answer as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// One code command, ready to send.
pub(crate) struct CodeCall {
    pub command: &'static str,
    pub args: Value,
    pub json: bool,
    pub dry_run: bool,
}

impl CodeCall {
    /// `read-var`.
    pub(crate) fn read_var(file: &str, var: &str, at: At, o: &CodeOptions) -> Self {
        CodeCall {
            command: "read-var",
            args: json!({"file": file, "var": var, "line": at.line, "column": at.column,
                "engine": o.engine}),
            json: o.json,
            dry_run: false,
        }
    }

    /// `modify-var`.
    pub(crate) fn modify_var(
        file: &str,
        from: &str,
        to: &str,
        at: At,
        dry_run: bool,
        o: &CodeOptions,
    ) -> Self {
        CodeCall {
            command: "modify-var",
            args: json!({"file": file, "from": from, "to": to, "line": at.line,
                "column": at.column, "engine": o.engine, "apply": !dry_run}),
            json: o.json,
            dry_run,
        }
    }

    /// `rename-file`.
    pub(crate) fn rename_file(from: &str, to: &str, dry_run: bool, o: &CodeOptions) -> Self {
        CodeCall {
            command: "rename-file",
            args: json!({"from": from, "to": to, "engine": o.engine, "apply": !dry_run}),
            json: o.json,
            dry_run,
        }
    }

    /// `lsp-list`.
    pub(crate) fn lsp(command: &LspCommand) -> Self {
        let LspCommand::List { json } = command;
        CodeCall {
            command: "lsp-list",
            args: json!({}),
            json: *json,
            dry_run: false,
        }
    }

    /// Sends it through the daemon and prints the answer.
    pub(crate) fn run(self, tag: Option<String>, workspace: &Path) -> ExitCode {
        let args = match self.args {
            Value::Object(map) => {
                Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
            }
            other => other,
        };
        let response = match send(self.command, args, tag, workspace) {
            Ok(response) => response,
            Err(code) => return code,
        };
        let data = response.data.unwrap_or(Value::Null);
        let mut text = if self.json {
            format!(
                "{}\n",
                serde_json::to_string_pretty(&data).unwrap_or_default()
            )
        } else {
            match self.command {
                "read-var" => report::read_var_text(&data),
                "lsp-list" => report::lsp_list_text(&data),
                _ => report::edit_text(&data),
            }
        };
        if self.dry_run && !self.json {
            for file in data["preview"].as_array().into_iter().flatten() {
                text.push_str(file["diff"].as_str().unwrap_or(""));
            }
        }
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{text}");
        if let Some(tag) = response.tag {
            let _ = writeln!(out, "[tag: {tag}]");
        }
        ExitCode::SUCCESS
    }
}
