//! `rad`: the radium engine on the command line (for shells, scripts and
//! editors without an extension). Every command goes through the same
//! request protocol as the other doors (docs/protocol.md).
//!
//! Exit status: 0 success; 1 the engine refused or failed (the message is on
//! stderr as `rad: ...`); 2 bad usage.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use radium_core::{ContextLimits, EditorContext, Engine, EngineConfig, Request};
use serde_json::{json, Value};

#[derive(Parser)]
#[command(name = "rad", version, about = "The radium engine on the command line")]
struct Cli {
    /// The workspace (default: the current directory): its .radium/ holds hooks.toml and agents.toml.
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Print compact JSON instead of indented JSON.
    #[arg(long, global = true)]
    compact: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one agent step: the editor context comes as JSON on stdin, or from
    /// the RADIUM_EDITOR_* variables; prints the code blocks as JSON.
    Step {
        /// The agent id (from .radium/agents.toml or $RADIUM_HOME/agents.toml).
        agent: String,
        /// The instruction for the agent.
        #[arg(long, short, default_value = "")]
        prompt: String,
    },
    /// Extract the code blocks of an agent's answer read on stdin.
    Extract,
    /// Validate an editor context (JSON on stdin, or RADIUM_EDITOR_*) and print it.
    Context,
    /// List the configured agents.
    Agents,
    /// Send one raw request (JSON argument, or stdin) and print the response.
    Request {
        /// The request, e.g. '{"command":"ping"}'; read from stdin when absent.
        json: Option<String>,
    },
    /// Install, list or remove extensions.
    #[command(subcommand)]
    Ext(ExtCommand),
    /// Trust a workspace (default: the current one) so its extensions and agents may run.
    Trust {
        /// The workspace folder.
        path: Option<PathBuf>,
        /// Withdraw trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// Print the version and ABI version.
    Version,
}

#[derive(Subcommand)]
enum ExtCommand {
    /// Install an extension from a local folder (copied after validation).
    Install {
        /// The extension's folder (holding radium-extension.json).
        path: PathBuf,
        /// Install for the workspace instead of the user.
        #[arg(long)]
        workspace_level: bool,
        /// Replace an installed extension of the same name.
        #[arg(long)]
        force: bool,
    },
    /// List extensions: name, version, level, hooks, status (active, blocked and why).
    List,
    /// Remove an installed extension.
    Remove {
        /// The extension's name.
        name: String,
    },
}

fn read_stdin() -> Result<String, String> {
    let mut text = String::new();
    if std::io::stdin().is_terminal() {
        return Ok(text);
    }
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    Ok(text)
}

/// The editor context: JSON on stdin if any, else the RADIUM_EDITOR_* variables, else none.
fn editor_context(stdin: &str) -> Result<Value, String> {
    if !stdin.trim().is_empty() {
        return serde_json::from_str(stdin)
            .map_err(|e| format!("the context on stdin is not JSON: {e}"));
    }
    if std::env::var_os("RADIUM_EDITOR_FILE_PATH").is_some() {
        return EditorContext::from_env(|k| std::env::var(k).ok(), &ContextLimits::default())
            .map(|c| c.to_json())
            .map_err(|e| e.to_string());
    }
    Ok(Value::Null)
}

fn run(cli: Cli) -> Result<Value, String> {
    let workspace = match cli.workspace {
        Some(ws) => ws,
        None => std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?,
    };
    let engine = Engine::new(EngineConfig {
        workspace: Some(workspace.clone()),
        ..EngineConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let request = match cli.command {
        Command::Version => Request::new("version", Value::Null),
        Command::Ext(ExtCommand::List) => Request::new("ext-list", Value::Null),
        Command::Ext(ExtCommand::Install {
            path,
            workspace_level,
            force,
        }) => {
            let path = std::path::absolute(&path).unwrap_or(path);
            let level = if workspace_level { "workspace" } else { "user" };
            Request::new(
                "ext-install",
                json!({"path": path, "level": level, "force": force}),
            )
        }
        Command::Ext(ExtCommand::Remove { name }) => {
            Request::new("ext-remove", json!({"name": name}))
        }
        Command::Trust { path, revoke } => {
            let path = path.map(|p| std::path::absolute(&p).unwrap_or(p));
            Request::new("trust", json!({"path": path, "revoke": revoke}))
        }
        Command::Agents => Request::new("agents", Value::Null),
        Command::Extract => Request::new("extract", json!({"text": read_stdin()?})),
        Command::Context => {
            let context = editor_context(&read_stdin()?)?;
            if context.is_null() {
                return Err(
                    "no context: pipe the context JSON on stdin or set RADIUM_EDITOR_FILE_PATH"
                        .into(),
                );
            }
            Request::new("context", context)
        }
        Command::Step { agent, prompt } => {
            let context = editor_context(&read_stdin()?)?;
            Request::new(
                "step",
                json!({"agent": agent, "prompt": prompt, "context": context}),
            )
        }
        Command::Request { json } => {
            let text = match json {
                Some(text) => text,
                None => read_stdin()?,
            };
            let value: Value =
                serde_json::from_str(&text).map_err(|e| format!("the request is not JSON: {e}"))?;
            // The whole response is the output, failures included.
            let response = engine.handle_json(value);
            let ok = response.ok;
            let out = response.to_json();
            return if ok { Ok(out) } else { Err(out.to_string()) };
        }
    };
    let response = engine.handle(&request);
    if response.ok {
        Ok(response.data.unwrap_or(Value::Null))
    } else {
        Err(response.error.unwrap_or_else(|| "unknown error".into()))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let compact = cli.compact;
    let raw_request = matches!(cli.command, Command::Request { .. });
    match run(cli) {
        Ok(value) => {
            let text = if compact || raw_request {
                value.to_string()
            } else {
                serde_json::to_string_pretty(&value).unwrap_or_default()
            };
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{text}").is_err() {
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            if raw_request {
                // `rad request` prints the failed response on stdout too.
                let _ = writeln!(std::io::stdout(), "{message}");
            } else {
                let _ = writeln!(std::io::stderr(), "rad: {message}");
            }
            ExitCode::from(1)
        }
    }
}
