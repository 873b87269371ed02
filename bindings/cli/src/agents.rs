//! `rad agents check [ID...]`: each configured agent really started
//! (`initialize`, `session/new` in the workspace) and closed again, through
//! the engine's `agents-check`. One line an agent (`OK`, or `FAILED` with the
//! agent's reason under it); the exit code is non-zero when any failed.

use std::fmt::Write as _;
use std::io::Write as _;

use clap::Subcommand;
use radium_core::{Engine, Request};
use serde_json::{json, Value};

/// The agent commands besides the listing.
#[derive(Subcommand)]
pub enum AgentsCommand {
    /// Start each agent (initialize, session/new, close) and say which failed and why.
    Check {
        /// The agents to check (default: every configured one).
        ids: Vec<String>,
        /// Print the engine's JSON answer instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `command`: the report goes to stdout; the error names how many failed.
pub fn run(command: AgentsCommand, engine: &Engine) -> Result<String, String> {
    let AgentsCommand::Check { ids, json } = command;
    let args = if ids.is_empty() {
        Value::Null
    } else {
        json!({ "agents": ids })
    };
    let response = engine.handle(&Request::new("agents-check", args));
    if !response.ok {
        return Err(response.error.unwrap_or_else(|| "unknown error".into()));
    }
    let data = response.data.unwrap_or(Value::Null);
    let agents = data["agents"].as_array().cloned().unwrap_or_default();
    let failed = agents.iter().filter(|a| a["ok"] != true).count();
    let mut out = String::new();
    if json {
        out = data.to_string();
    } else if agents.is_empty() {
        out.push_str("no agents are configured (.radium/agents.toml, $RADIUM_HOME/agents.toml)");
    } else {
        for agent in &agents {
            let id = agent["id"].as_str().unwrap_or("?");
            if agent["ok"] == true {
                let _ = writeln!(out, "{id}: OK");
            } else {
                let error = agent["error"].as_str().unwrap_or("failed");
                let _ = writeln!(out, "{id}: FAILED");
                for line in error.lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
        }
        out.truncate(out.trim_end().len());
    }
    if failed == 0 {
        return Ok(out);
    }
    let _ = writeln!(std::io::stdout(), "{out}");
    Err(format!("{failed} of {} agents did not start", agents.len()))
}
