//! `rad chat <agent>`: a conversation with an ACP agent in the terminal.
//!
//! Interactive: each line read is a prompt; the answer streams as it comes,
//! tool calls show their diffs, commands and output (see `chat_tools`),
//! each permission request asks y/n, or `h` to review the call's hunks one
//! by one (see `chat_hunks`), Ctrl-C cancels the turn and a second Ctrl-C
//! exits; `/restore [n]` lists the prompts, or puts the files back to before
//! prompt n (see `chat_restore`); `/mode [M]`, `/model [M]` and `/effort [E]`
//! list or switch the agent's mode, model and reasoning effort (see
//! `chat_options`, also `--mode`, `--model`, `--effort`); `/help` lists radium's commands and the agent's, and a usage
//! line follows each turn (see `chat_commands`). Read from a pipe, stdin's lines are the
//! prompts and the answers alike. With `--prompt TEXT`: one
//! turn, printed as it streams, exit 0 when it ends (Ctrl-C cancels the turn,
//! ends the agent and exits 130). `--resume [ID]` and `--continue` continue
//! a conversation of the history (see `chat_history`). `--json` prints one JSON event a line;
//! `--yes` allows every permission request, which a run that cannot ask
//! (`--prompt`) otherwise rejects, saying so.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;
use std::time::{Duration, Instant};

use radium_core::sessions::{AgentSession, PermissionAnswer};
use radium_core::{Engine, EngineConfig};
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// What `rad chat` was asked.
pub struct ChatOptions {
    /// The agent id.
    pub agent: String,
    /// One prompt, then exit.
    pub prompt: Option<String>,
    /// One JSON event a line.
    pub json: bool,
    /// Allow every permission request.
    pub yes: bool,
    /// The agent's mode to set at the start.
    pub mode: Option<String>,
    /// The agent's model to set at the start.
    pub model: Option<String>,
    /// The agent's reasoning effort to set at the start.
    pub effort: Option<String>,
    /// Image files (absolute) for the first prompt; `/image PATH` adds one
    /// to the next prompt.
    pub images: Vec<String>,
    /// The conversation of the history to continue.
    pub resume: Option<crate::chat_history::Continue>,
}

/// How a turn ended for the terminal.
enum TurnEnd {
    Done,
    Failed,
    Interrupted,
}

/// The most lines a side of a tool call's diff may have to be shown as a
/// diff; a larger one is summarized in a line.
const MAX_DIFF_LINES: usize = 20_000;

/// How long a diff may take before a coarser one is shown: a diff of two
/// texts that share little is quadratic.
const DIFF_DEADLINE: Duration = Duration::from_secs(1);

fn diff_text(old: &str, new: &str, path: &str) -> String {
    let (a, b) = (old.lines().count(), new.lines().count());
    if a.max(b) > MAX_DIFF_LINES {
        return format!(
            "[diff of {path} not shown: {a} lines before, {b} after (more than {MAX_DIFF_LINES})]\n"
        );
    }
    similar::TextDiff::configure()
        .deadline(Instant::now() + DIFF_DEADLINE)
        .diff_lines(old, new)
        .unified_diff()
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// Shows one event (text mode) on stdout and stderr; diffs are drawn by
/// [`DrawnDiffs`], commands and output by `chat_tools`.
fn show(event: &Value) {
    let mut out = std::io::stdout().lock();
    let s = |k: &str| event[k].as_str().unwrap_or_default().to_owned();
    let _ = match event["type"].as_str().unwrap_or_default() {
        "text" => write!(out, "{}", s("text")),
        "thought" => writeln!(std::io::stderr(), "(thinking) {}", s("text")),
        "tool_call" => {
            writeln!(
                out,
                "\n[tool] {} ({}, {})",
                s("title"),
                s("kind"),
                s("status")
            )
        }
        "tool_call_update" if event.get("status").is_some() => {
            writeln!(out, "[tool] {}", s("status"))
        }
        "plan" => {
            let _ = writeln!(out, "\n[plan]");
            for e in event["entries"].as_array().into_iter().flatten() {
                let _ = writeln!(
                    out,
                    "  - [{}] {}",
                    e["status"].as_str().unwrap_or(""),
                    e["content"].as_str().unwrap_or("")
                );
            }
            Ok(())
        }
        "permission_decided" => {
            let verdict = if event["allowed"] == true {
                "allowed"
            } else {
                "rejected"
            };
            match s("by").as_str() {
                "door" => writeln!(out, "[permission] {verdict}"),
                by => writeln!(out, "[permission] {verdict} by {by}: {}", s("reason")),
            }
        }
        "write" => match event["hunks_taken_back"]
            .as_array()
            .filter(|h| !h.is_empty())
        {
            Some(back) => {
                let shown: Vec<String> = back
                    .iter()
                    .filter_map(Value::as_u64)
                    .map(|i| (i + 1).to_string())
                    .collect();
                writeln!(
                    out,
                    "[wrote {}; rejected hunks left out: {}]",
                    s("path"),
                    shown.join(", ")
                )
            }
            None => writeln!(out, "[wrote {}]", s("path")),
        },
        "write_refused" => writeln!(out, "[write refused: {}]", s("error")),
        "notice" => writeln!(std::io::stderr(), "rad: notice: {}", s("message")),
        _ => Ok(()),
    };
    let _ = out.flush();
}

/// The diffs a turn has drawn (tool call, path and texts), so that each is
/// drawn once, whether it came in the tool call, in an update, or only in
/// the permission request.
#[derive(Default)]
struct DrawnDiffs(std::collections::HashSet<u64>);

impl DrawnDiffs {
    /// Draws the diffs of `call` (a tool call, its update, or a permission
    /// request's tool call) not drawn yet.
    fn draw(&mut self, call: &Value, workspace: &Path) {
        use std::hash::{Hash as _, Hasher as _};
        let mut out = std::io::stdout().lock();
        for d in call["diffs"].as_array().into_iter().flatten() {
            let full = d["path"].as_str().unwrap_or_default();
            let old = d["old_text"].as_str().unwrap_or_default();
            let new = d["new_text"].as_str().unwrap_or_default();
            let mut hash = std::collections::hash_map::DefaultHasher::new();
            (call["id"].as_str(), full, old, new).hash(&mut hash);
            if !self.0.insert(hash.finish()) {
                continue;
            }
            let path = Path::new(full)
                .strip_prefix(workspace)
                .map_or(full.into(), |p| p.to_string_lossy());
            let _ = write!(out, "{}", diff_text(old, new, &path));
        }
        let _ = out.flush();
    }
}

/// Writes `text` to stdout at once.
pub(crate) fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Runs `rad chat`; answers the exit code.
pub fn chat(options: &ChatOptions, workspace: &Path) -> u8 {
    match run(options, workspace) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "rad chat: {message}");
            1
        }
    }
}

/// `rad chat [AGENT] --list`: the project's conversations (and the agent's
/// own sessions); answers the exit code.
pub fn list(workspace: &Path, agent: Option<&str>, as_json: bool) -> u8 {
    let listed = start(workspace).and_then(|(engine, local)| {
        local.block_on(crate::chat_history::list(&engine, agent, as_json))
    });
    listed.unwrap_or_else(|message| {
        let _ = writeln!(std::io::stderr(), "rad chat: {message}");
        1
    })
}

/// The engine of `rad chat` and the runtime its loop runs on.
fn start(workspace: &Path) -> Result<(Engine, tokio::runtime::Runtime), String> {
    let engine = Engine::new(EngineConfig {
        workspace: Some(workspace.to_owned()),
        // The agent gets this very `rad` as radium's MCP server.
        rad_program: std::env::current_exe().ok(),
        ..EngineConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let local = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start: {e}"))?;
    Ok((engine, local))
}

fn run(options: &ChatOptions, workspace: &Path) -> Result<u8, String> {
    let (engine, local) = start(workspace)?;
    let interactive = options.prompt.is_none() && std::io::stdin().is_terminal();
    local.block_on(async {
        let (lines_tx, mut lines) = mpsc::unbounded_channel::<String>();
        let picks = matches!(options.resume, Some(crate::chat_history::Continue::Pick));
        if options.prompt.is_none() || picks {
            std::thread::spawn(move || {
                for line in std::io::stdin().lock().lines().map_while(Result::ok) {
                    if lines_tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let conversation = match &options.resume {
            Some(which) => {
                Some(crate::chat_history::choose(&engine, which, &options.agent, &mut lines).await?)
            }
            None => None,
        };
        let entry = engine
            .resume_session(&options.agent, None, None, conversation.clone())
            .await
            .map_err(|e| e.to_string())?;
        let session = entry.session;
        if let Err(e) = crate::chat_options::start(
            &session,
            options.mode.as_deref(),
            options.model.as_deref(),
            options.effort.as_deref(),
            options.json,
        )
        .await
        {
            session.close();
            return Err(e);
        }
        if !options.json {
            let _ = writeln!(
                std::io::stderr(),
                "{}",
                crate::chat_options::header(&session)
            );
        }
        let mut prompts = match &conversation {
            Some(id) => {
                crate::chat_history::show(
                    &engine,
                    id,
                    session.resumed(),
                    session.resume_refused(),
                    options.json,
                )
                .await
            }
            None => Vec::new(),
        };
        let mut images = options.images.clone();
        let mut shown = Value::Null;
        let mut waited = false;
        let code = match &options.prompt {
            Some(prompt) => {
                let first = (prompt.as_str(), images.as_slice());
                match turn(
                    &session,
                    first,
                    options,
                    &mut lines,
                    false,
                    &mut prompts,
                    &mut shown,
                )
                .await
                {
                    TurnEnd::Done => 0,
                    TurnEnd::Failed => 1,
                    TurnEnd::Interrupted => 130,
                }
            }
            None => loop {
                if interactive {
                    let _ = write!(std::io::stderr(), "{}> ", options.agent);
                    let _ = std::io::stderr().flush();
                }
                let line = tokio::select! {
                    line = lines.recv() => line,
                    _ = tokio::signal::ctrl_c() => None,
                };
                let Some(line) = line else { break 0 };
                if line.trim().is_empty() {
                    continue;
                }
                if crate::chat_options::command(&session, &line).await {
                    continue;
                }
                if crate::chat_commands::radium_command(&line, "/help").is_some() {
                    crate::chat_commands::wait_for_commands(&session, &mut waited).await;
                    say(&crate::chat_commands::help(&session));
                    continue;
                }
                if let Some(arg) = crate::chat_commands::radium_command(&line, "/restore") {
                    crate::chat_restore::restore(&engine, &prompts, arg, &mut lines).await;
                    continue;
                }
                if let Some(path) = line.trim().strip_prefix("/image ") {
                    let path =
                        std::path::absolute(path.trim()).unwrap_or_else(|_| path.trim().into());
                    eprintln!("rad chat: {} goes with the next prompt", path.display());
                    images.push(path.to_string_lossy().into_owned());
                    continue;
                }
                if let TurnEnd::Interrupted = turn(
                    &session,
                    (&line, std::mem::take(&mut images).as_slice()),
                    options,
                    &mut lines,
                    interactive,
                    &mut prompts,
                    &mut shown,
                )
                .await
                {
                    break 130;
                }
            },
        };
        // Ended gently: an agent that keeps its sessions saves this one.
        session.finish().await;
        Ok(code)
    })
}

/// One turn: prompt, stream, permissions, end. A first Ctrl-C cancels the
/// turn (in interactive mode; with `--prompt` it also ends the run).
async fn turn(
    session: &std::sync::Arc<AgentSession>,
    (prompt, images): (&str, &[String]),
    options: &ChatOptions,
    lines: &mut mpsc::UnboundedReceiver<String>,
    interactive: bool,
    prompts: &mut Vec<crate::chat_restore::Prompt>,
    shown: &mut Value,
) -> TurnEnd {
    // The agent's commands, as `--json` shows them: the list it sent
    // between turns first, then each new one as it comes.
    crate::chat_commands::show_commands(session, options.json, shown);
    let blocks = vec![json!({"type": "text", "text": prompt})];
    // Checked now, read and encoded on the engine's runtime.
    let images: Vec<Value> = images.iter().map(|p| json!(p)).collect();
    let images = match session.check_images(&images) {
        Ok(images) => images,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "rad chat: {e}");
            return TurnEnd::Failed;
        }
    };
    let mut events = match session.prompt_joined(blocks, images) {
        Ok(rx) => rx,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "rad chat: {e}");
            return TurnEnd::Failed;
        }
    };
    let mut interrupted = false;
    // The tag is printed after a turn that changed files.
    let mut wrote = false;
    // The commands and outputs of the turn's tool calls.
    let mut calls = crate::chat_tools::ToolCalls::default();
    let mut diffs = DrawnDiffs::default();
    let mut first = true;
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            _ = tokio::signal::ctrl_c() => {
                if interrupted || !interactive {
                    session.close();
                    let _ = writeln!(std::io::stderr(), "\nrad chat: interrupted");
                    return TurnEnd::Interrupted;
                }
                interrupted = true;
                session.cancel();
                let _ = writeln!(std::io::stderr(), "\nrad chat: cancelling the turn (Ctrl-C again to exit)");
                continue;
            }
        };
        let Some(event) = event else {
            return TurnEnd::Failed;
        };
        if options.json {
            crate::chat_commands::say_json(session, &event, &mut first, shown);
        } else if event["type"] == "tool_call" {
            show(&event);
            diffs.draw(&event, session.workspace.as_path());
            calls.show(&event, session.workspace.as_path());
        } else if event["type"] == "tool_call_update" {
            // A diff that comes with an update is drawn under the call.
            diffs.draw(&event, session.workspace.as_path());
            calls.show(&event, session.workspace.as_path());
            show(&event);
        } else if crate::chat_options::is_options(&event) {
            if let Some(line) = crate::chat_options::changed(&event, session) {
                let _ = writeln!(std::io::stderr(), "\n{line}");
            }
        } else {
            calls.show(&event, session.workspace.as_path());
            show(&event);
        }
        if matches!(event["type"].as_str(), Some("turn_end" | "error")) {
            prompts.push(crate::chat_restore::Prompt {
                text: prompt.to_owned(),
                tag_before: event["tag_before"].as_str().map(str::to_owned),
            });
        }
        match event["type"].as_str().unwrap_or_default() {
            "write" => wrote = true,
            "commands" => *shown = event["commands"].clone(),
            "permission" => {
                // What the call will change is on screen before the question
                // (an agent may announce the call first and send its diff
                // only with the request).
                if !options.json {
                    diffs.draw(&event["tool_call"], session.workspace.as_path());
                }
                let id = event["id"].as_str().unwrap_or_default();
                let title = event["tool_call"]["title"].as_str().unwrap_or("a tool");
                if options.yes {
                    session.answer_permission(id, PermissionAnswer::Allow);
                } else if options.prompt.is_none() {
                    // The lines of stdin answer (a terminal, or a script).
                    let workspace = session.workspace.as_path();
                    crate::chat_hunks::ask_permission(session, &event, lines, workspace).await;
                } else {
                    let _ = writeln!(
                        std::io::stderr(),
                        "rad chat: rejected {title}: nobody can answer here (pass --yes to allow every request)"
                    );
                    session.answer_permission(id, PermissionAnswer::Reject);
                }
            }
            "turn_end" => {
                if !options.json {
                    say("\n");
                    match event["stop_reason"].as_str() {
                        Some("end_turn") | None => {}
                        Some(other) => say(&format!("[stopped: {other}]\n")),
                    }
                    if let Some(tag) = event["tag"].as_str().filter(|_| wrote) {
                        say(&format!("[tag: {tag}]\n"));
                    }
                    if let Some(line) = crate::chat_commands::usage_line(&event["usage"]) {
                        say(&format!("{line}\n"));
                    }
                }
                return TurnEnd::Done;
            }
            "error" => {
                if !options.json {
                    say("\n");
                    let _ = writeln!(
                        std::io::stderr(),
                        "rad chat: {}",
                        event["message"].as_str().unwrap_or("")
                    );
                }
                return TurnEnd::Failed;
            }
            _ => {}
        }
    }
}
