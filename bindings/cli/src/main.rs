//! `rad`: the radium engine on the command line (for shells, scripts and
//! editors without an extension). Every command goes through the same
//! request protocol as the other doors (docs/protocol.md).
//!
//! Exit status: 0 success; 1 the engine refused or failed (the message is on
//! stderr as `rad: ...`); 2 bad usage.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

mod acp;
mod agents;
mod agents_catalogue;
mod args;
mod chat;
mod chat_commands;
mod chat_history;
mod chat_hunks;
mod chat_options;
mod chat_restore;
mod chat_tools;
mod clipboard;
mod code;
mod daemon_client;
mod hooks;
mod mcp;

use daemon_client::{radium_home, run_edit};

use args::{Cli, Command, ExtCommand};
use clap::Parser;
use radium_core::{ContextLimits, EditorContext, Engine, EngineConfig, Request};
use serde_json::{json, Value};

/// Examples for the common tasks, shown by `rad --help`.
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
        | Command::Rewind { .. }
        | Command::SolveConflict { .. }
        | Command::Ping
        | Command::Shutdown
        | Command::Chat { .. }
        | Command::Acp { .. }
        | Command::Mcp
        | Command::HookRelay { .. }
        | Command::Clipboard(_)
        | Command::Hooks(_)
        | Command::Completions { .. }
        | Command::Daemon { .. }
        | Command::ReadVar { .. }
        | Command::ModifyVar { .. }
        | Command::RenameFile { .. }
        | Command::Lsp(_)
        | Command::Agents { command: Some(_) } => return Err("internal: handled elsewhere".into()),
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
        Command::Agents { command: None } => Request::new("agents", Value::Null),
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
        Command::Agents {
            command: Some(command),
        } => agents::run(command, &engine),
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
        Command::Rewind { to, dry_run } => Some(("rewind", json!({"tag": to, "dry_run": dry_run}))),
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
        list,
        resume,
        continue_latest,
        prompt,
        json,
        yes,
        mode,
        model,
        effort,
        images,
    } = &cli.command
    {
        if *list {
            return ExitCode::from(chat::list(&workspace, agent.as_deref(), *json));
        }
        let agent = match agent.clone() {
            Some(agent) => agent,
            None => match agents_catalogue::pick(&workspace) {
                Ok(agent) => agent,
                Err(e) => {
                    eprintln!("rad chat: {e}");
                    return ExitCode::from(2);
                }
            },
        };
        let resume = match (resume.as_deref(), continue_latest) {
            (Some(""), _) => Some(chat_history::Continue::Pick),
            (Some(id), _) => Some(chat_history::Continue::Id(id.to_owned())),
            (None, true) => Some(chat_history::Continue::Latest),
            (None, false) => None,
        };
        let options = chat::ChatOptions {
            agent,
            prompt: prompt.clone(),
            json: *json,
            yes: *yes,
            mode: mode.clone(),
            model: model.clone(),
            effort: effort.clone(),
            images: images
                .iter()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
            resume,
        };
        return ExitCode::from(chat::chat(&options, &workspace));
    }
    let call = match &cli.command {
        Command::ReadVar {
            file,
            var,
            at,
            options,
        } => Some(code::CodeCall::read_var(file, var, *at, options)),
        Command::ModifyVar {
            file,
            from,
            to,
            at,
            dry_run,
            options,
        } => Some(code::CodeCall::modify_var(
            file, from, to, *at, *dry_run, options,
        )),
        Command::RenameFile {
            old,
            new,
            dry_run,
            options,
        } => Some(code::CodeCall::rename_file(old, new, *dry_run, options)),
        Command::Lsp(command) => Some(code::CodeCall::lsp(command)),
        _ => None,
    };
    if let Some(call) = call {
        return call.run(cli.tag.clone(), &workspace);
    }
    if let Command::Completions { shell } = &cli.command {
        use clap::CommandFactory as _;
        let mut command = Cli::command();
        clap_complete::generate(*shell, &mut command, "rad", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    if matches!(
        cli.command,
        Command::Clipboard(_) | Command::Hooks(_) | Command::Agents { command: Some(_) }
    ) {
        return text_command(cli, &workspace);
    }
    if let Command::HookRelay { socket } = &cli.command {
        let outcome = radium_core::sessions::relay(
            socket,
            std::io::stdin().lock(),
            radium_core::sessions::RELAY_TIMEOUT,
        );
        if !outcome.stdout.is_empty() {
            let _ = writeln!(std::io::stdout(), "{}", outcome.stdout);
        }
        if !outcome.stderr.is_empty() {
            let _ = writeln!(std::io::stderr(), "{}", outcome.stderr);
        }
        return ExitCode::from(outcome.code);
    }
    if let Command::Acp { agent, list } = &cli.command {
        if *list {
            let rad = std::env::current_exe()
                .map_or_else(|_| "rad".into(), |p| p.to_string_lossy().into_owned());
            let text = acp::list::settings(agent.as_deref().unwrap_or("claude"), &rad);
            let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
            return ExitCode::SUCCESS;
        }
        let Some(agent) = agent else {
            eprintln!("rad acp: name the agent (`rad acp AGENT`; `rad agents` lists them), or pass --list");
            return ExitCode::from(2);
        };
        return ExitCode::from(acp::run(agent, &workspace));
    }
    if let Command::Mcp = &cli.command {
        return mcp::serve(workspace, cli.tag.clone());
    }
    if let Command::Daemon { idle } = &cli.command {
        // Its sessions offer this `rad` to their agents (`rad mcp`, Claude
        // Code's PreToolUse relay), whatever is on PATH.
        let config = EngineConfig {
            rad_program: std::env::current_exe().ok(),
            ..EngineConfig::default()
        };
        let engine = match Engine::new(config) {
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
