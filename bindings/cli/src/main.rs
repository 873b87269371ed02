//! `rad`: the radium engine on the command line (for shells, scripts and
//! editors without an extension). Every command goes through the same
//! request protocol as the other doors (docs/protocol.md).
//!
//! Exit status: 0 success; 1 the engine refused or failed (the message is on
//! stderr as `rad: ...`); 2 bad usage.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod chat;
mod clipboard;
mod daemon_client;
mod hooks;
mod mcp;

use daemon_client::{radium_home, run_edit};

use clap::{Parser, Subcommand};
use radium_core::{ContextLimits, EditorContext, Engine, EngineConfig, Request};
use serde_json::{json, Value};

/// Examples for the common tasks, shown by `rad --help`.
const EXAMPLES: &str = "\
Examples:
  rad chat claude                          talk with an agent (ACP) in this workspace
  rad chat claude --prompt 'fix the bug'   one turn, streamed, then exit
  rad view src/main.rs --start 10 --end 20 show lines with numbers
  rad str-replace src/main.rs --old a --new b
  rad undo                                 take back the last edit (any conversation)
  rad clipboard send src/main.rs --lines 10-20 --prompt 'explain this'
  rad clipboard receive --apply            apply an answer copied from a chat
  rad hooks list                           the hooks by type
  rad hooks test audit --context ctx.json  run one hook alone
  rad trust                                let this workspace's hooks and agents run
  rad completions bash > ~/.local/share/bash-completion/completions/rad";

#[derive(Parser)]
#[command(
    name = "rad",
    version,
    about = "The radium engine on the command line",
    after_help = EXAMPLES
)]
struct Cli {
    /// The workspace (default: the current directory): its .radium/ holds hooks.toml and agents.toml.
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Print compact JSON instead of indented JSON.
    #[arg(long, global = true)]
    compact: bool,
    /// The dog tag of the conversation state (edit commands): an older tag
    /// undoes the edits made after it.
    #[arg(long, global = true)]
    tag: Option<String>,
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
    /// Talk with an ACP agent: interactive, or one turn with --prompt.
    Chat {
        /// The agent id (an agent with `protocol = "acp"`).
        agent: String,
        /// One prompt: print the answer as it streams and exit when the turn ends.
        #[arg(long, short)]
        prompt: Option<String>,
        /// Print one JSON event a line.
        #[arg(long)]
        json: bool,
        /// Allow every permission request the agent makes.
        #[arg(long)]
        yes: bool,
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
    /// Install, list or remove extensions (also `rad extension ...`).
    #[command(subcommand, alias = "extension")]
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
    /// Show a file with numbered lines, or list a folder (through the daemon).
    View {
        /// The file or folder, relative to the project (the current directory).
        path: String,
        /// First line to show.
        #[arg(long)]
        start: Option<u64>,
        /// Last line to show.
        #[arg(long)]
        end: Option<u64>,
    },
    /// Create a file (content from --content or stdin).
    Create {
        /// The new file.
        path: String,
        /// Its content (default: stdin).
        #[arg(long)]
        content: Option<String>,
        /// Replace an existing file.
        #[arg(long)]
        overwrite: bool,
    },
    /// Replace text that occurs exactly once in a file.
    StrReplace {
        /// The file.
        path: String,
        /// The text to find (must occur exactly once).
        #[arg(long)]
        old: String,
        /// Its replacement.
        #[arg(long)]
        new: String,
    },
    /// Insert text after a line (0 = top).
    Insert {
        /// The file.
        path: String,
        /// The line to insert after.
        #[arg(long)]
        line: u64,
        /// The text.
        #[arg(long)]
        text: String,
    },
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// List a file's conflicts, or resolve one (--id with --resolution ours|theirs|both|text).
    SolveConflict {
        /// The file with conflict markers.
        path: String,
        /// The conflict to resolve.
        #[arg(long)]
        id: Option<u64>,
        /// ours, theirs, both or text.
        #[arg(long)]
        resolution: Option<String>,
        /// The text for --resolution text.
        #[arg(long)]
        text: Option<String>,
    },
    /// Serve radium's edit tools to an agent over MCP on stdio (--tag
    /// continues a conversation); see docs/mcp.md.
    Mcp,
    /// Clipboard mode: send code to a chat, receive its answer.
    #[command(subcommand)]
    Clipboard(clipboard::ClipboardCommand),
    /// The workspace's hooks: list, info, enable, disable, validate, test.
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Check that the daemon answers.
    Ping,
    /// Stop the daemon.
    Shutdown,
    /// Run the daemon in the foreground (normally started on first use).
    Daemon {
        /// Seconds without requests before it exits.
        #[arg(long, default_value_t = 900)]
        idle: u64,
    },
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

pub(crate) fn read_stdin() -> Result<String, String> {
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
        return radium_core::parse_json(stdin)
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
        Command::View { .. }
        | Command::Create { .. }
        | Command::StrReplace { .. }
        | Command::Insert { .. }
        | Command::Undo
        | Command::Redo
        | Command::SolveConflict { .. }
        | Command::Ping
        | Command::Shutdown
        | Command::Chat { .. }
        | Command::Mcp
        | Command::Clipboard(_)
        | Command::Hooks(_)
        | Command::Completions { .. }
        | Command::Daemon { .. } => return Err("internal: handled elsewhere".into()),
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
            // The whole response is the output, failures included: text
            // that is not JSON gets a JSON answer too.
            let response = match radium_core::parse_json(&text) {
                Ok(value) => engine.handle_json(value),
                Err(e) => radium_core::Response::failure(&radium_core::Error::InvalidRequest(
                    format!("the request is not JSON: {e}"),
                )),
            };
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

/// The commands that print text (clipboard, hooks), in-process.
fn text_command(cli: Cli, workspace: &Path) -> ExitCode {
    let result = Engine::new(EngineConfig {
        workspace: Some(workspace.to_path_buf()),
        ..EngineConfig::default()
    })
    .map_err(|e| e.to_string())
    .and_then(|engine| match cli.command {
        Command::Clipboard(command) => clipboard::run(command, &engine, workspace, cli.tag),
        Command::Hooks(command) => hooks::run(command, &engine, workspace),
        _ => Err("internal: not a text command".into()),
    });
    match result {
        Ok(text) => {
            if !text.is_empty() && writeln!(std::io::stdout(), "{text}").is_err() {
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "rad: {message}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let workspace = cli
        .workspace
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let edit = match &cli.command {
        Command::View { path, start, end } => Some((
            "view",
            json!({"path": path, "start_line": start, "end_line": end}),
        )),
        Command::Create {
            path,
            content,
            overwrite,
        } => {
            let content = match content {
                Some(c) => c.clone(),
                None => match read_stdin() {
                    Ok(c) => c,
                    Err(e) => {
                        let _ = writeln!(std::io::stderr(), "rad: {e}");
                        return ExitCode::from(1);
                    }
                },
            };
            Some((
                "create",
                json!({"path": path, "content": content, "overwrite": overwrite}),
            ))
        }
        Command::StrReplace { path, old, new } => {
            Some(("str-replace", json!({"path": path, "old": old, "new": new})))
        }
        Command::Insert { path, line, text } => {
            Some(("insert", json!({"path": path, "line": line, "text": text})))
        }
        Command::Undo => Some(("undo", Value::Null)),
        Command::Redo => Some(("redo", Value::Null)),
        Command::SolveConflict {
            path,
            id,
            resolution,
            text,
        } => Some((
            "solve-conflict",
            json!({"path": path, "id": id, "resolution": resolution, "text": text}),
        )),
        Command::Ping => Some(("ping", Value::Null)),
        Command::Shutdown => Some(("shutdown", Value::Null)),
        _ => None,
    };
    if let Some((command, args)) = edit {
        // Drop null arguments so the engine sees them as absent.
        let args = match args {
            Value::Object(map) => {
                Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
            }
            other => other,
        };
        return run_edit(command, args, cli.tag.clone(), &workspace);
    }
    if let Command::Chat {
        agent,
        prompt,
        json,
        yes,
    } = &cli.command
    {
        let options = chat::ChatOptions {
            agent: agent.clone(),
            prompt: prompt.clone(),
            json: *json,
            yes: *yes,
        };
        return ExitCode::from(chat::chat(&options, &workspace));
    }
    if let Command::Completions { shell } = &cli.command {
        use clap::CommandFactory as _;
        let mut command = Cli::command();
        clap_complete::generate(*shell, &mut command, "rad", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    if matches!(cli.command, Command::Clipboard(_) | Command::Hooks(_)) {
        return text_command(cli, &workspace);
    }
    if let Command::Mcp = &cli.command {
        return mcp::serve(workspace, cli.tag.clone());
    }
    if let Command::Daemon { idle } = &cli.command {
        let engine = match Engine::new(EngineConfig::default()) {
            Ok(e) => e,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "rad: {e}");
                return ExitCode::from(1);
            }
        };
        return match radium_core::daemon::serve(
            &engine,
            &radium_home(),
            std::time::Duration::from_secs(*idle),
        ) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "rad: {e}");
                ExitCode::from(1)
            }
        };
    }
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
