//! `rad agents list` and `rad agents install ID`: see `agents_catalogue`.
//! `rad agents check [ID...]`: each configured agent really started
//! (`initialize`, `session/new` in the workspace) and closed again, through
//! the engine's `agents-check`. One line an agent (`OK`, or `FAILED` with the
//! agent's reason under it); the exit code is non-zero when any failed.
//! `rad agents login AGENT [METHOD]`: signs in (the engine's `agents-login`).
//! `rad agents mcp`: the user's own MCP servers a session would pass to its
//! agent (the engine's `mcp-servers`), and the `mcp.toml` files that could
//! not be read.

use std::fmt::Write as _;
use std::io::Write as _;

use clap::Subcommand;
use radium_core::{Engine, Request};
use serde_json::{json, Value};

/// The agent commands besides the listing.
#[derive(Subcommand)]
pub enum AgentsCommand {
    /// List the agents: radium's catalogue and agents.toml, with their
    /// status (configured, installed, not installed), where each is and how
    /// to sign in.
    List {
        /// Print the engine's JSON answer instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Install a catalogue agent: its pinned npm package, into radium's
    /// cache (${XDG_CACHE_HOME:-~/.cache}/radium/agents).
    Install {
        /// The agent (`rad agents list` names them).
        agent: String,
    },
    /// Start each agent (initialize, session/new, close) and say which failed and why.
    Check {
        /// The agents to check (default: every configured one).
        ids: Vec<String>,
        /// Print the engine's JSON answer instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Sign in to an agent with one of its methods (ACP `authenticate`).
    Login {
        /// The agent.
        agent: String,
        /// The method's id (default: the agent's only one radium can run).
        method: Option<String>,
    },
    /// List your MCP servers (mcp.toml) that sessions pass to the agents.
    Mcp {
        /// Print the engine's JSON answer instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// `rad agents mcp`: one line a server (name, type, command or address,
/// file); a broken file is a warning on stderr and the others are listed.
fn list_mcp(engine: &Engine, json: bool) -> Result<String, String> {
    let response = engine.handle(&Request::new("mcp-servers", Value::Null));
    if !response.ok {
        return Err(response.error.unwrap_or_else(|| "unknown error".into()));
    }
    for warning in &response.warnings {
        eprintln!("warning: {warning}");
    }
    let data = response.data.unwrap_or(Value::Null);
    if json {
        return Ok(data.to_string());
    }
    let servers = data["servers"].as_array().cloned().unwrap_or_default();
    if servers.is_empty() {
        return Ok(
            "no MCP servers are configured (.radium/mcp.toml of a trusted workspace, $RADIUM_HOME/mcp.toml)"
                .into(),
        );
    }
    let mut out = String::new();
    for s in &servers {
        let kind = s["type"].as_str().unwrap_or("stdio");
        let target = if kind == "stdio" {
            s["command"]
                .as_array()
                .map(|c| {
                    c.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default()
        } else {
            s["url"].as_str().unwrap_or("").to_owned()
        };
        let _ = writeln!(
            out,
            "{} ({kind}): {target}  [{}]",
            s["name"].as_str().unwrap_or("?"),
            s["source"].as_str().unwrap_or("?")
        );
    }
    out.truncate(out.trim_end().len());
    Ok(out)
}

/// Runs `command`: the report goes to stdout; the error names how many failed.
pub fn run(command: AgentsCommand, engine: &Engine) -> Result<String, String> {
    let (ids, json) = match command {
        AgentsCommand::Check { ids, json } => (ids, json),
        AgentsCommand::Mcp { json } => return list_mcp(engine, json),
        AgentsCommand::List { json } => return crate::agents_catalogue::list(engine, json),
        AgentsCommand::Install { agent } => {
            return crate::agents_catalogue::install(engine, &agent)
        }
        AgentsCommand::Login { agent, method } => {
            let r = engine.handle(&Request::new(
                "agents-login",
                json!({"agent": agent, "method": method}),
            ));
            return if r.ok {
                Ok(format!("signed in to `{agent}`; it starts sessions now"))
            } else {
                Err(r.error.unwrap_or_else(|| "unknown error".into()))
            };
        }
    };
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
