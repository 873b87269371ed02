//! `rad clipboard send|receive`: clipboard mode from the shell.
//!
//! `send` puts code on the clipboard ready to paste into a chat. On X11 a
//! text lives only while the program that set it runs, so `rad` leaves a
//! small process of its own (`rad clipboard hold`, started in its own
//! process group) that keeps the text until another program takes the
//! clipboard, then exits; `rad` returns once the clipboard shows the text.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use clap::Subcommand;
use radium_core::{Engine, Request};
use serde_json::{json, Value};

/// The clipboard commands.
#[derive(Subcommand)]
pub enum ClipboardCommand {
    /// Put a file (or --lines of it, or stdin) on the clipboard as a fenced
    /// block with its language and path, ready to paste into a chat.
    Send {
        /// The file (relative to the workspace); stdin when absent.
        path: Option<String>,
        /// The lines to send, `START-END` or `N` (1-based).
        #[arg(long)]
        lines: Option<String>,
        /// What to ask, written before the code.
        #[arg(long)]
        prompt: Option<String>,
        /// Lines shown around the range as context.
        #[arg(long)]
        context: Option<u64>,
        /// The fence's language (default: from the file name).
        #[arg(long)]
        language: Option<String>,
        /// Print the text instead of copying it.
        #[arg(long)]
        print: bool,
    },
    /// Read an answer copied from a chat: its code blocks, with a diff for
    /// each block that names a file; --apply writes them as one undoable step.
    Receive {
        /// Write the blocks that name a file (one step: `rad undo` takes it back).
        #[arg(long)]
        apply: bool,
        /// Let a block that names a file replace it even when it would
        /// delete most of it (without this, such a block, likely a snippet,
        /// refuses the apply).
        #[arg(long)]
        whole_file: bool,
        /// Read the answer from stdin instead of the clipboard.
        #[arg(long)]
        stdin: bool,
        /// Print the JSON answer.
        #[arg(long)]
        json: bool,
    },
    /// (internal) Keep text read on stdin on the clipboard until another
    /// program takes it.
    #[command(hide = true)]
    Hold,
}

fn lines_arg(text: &str) -> Result<(u64, u64), String> {
    let parse = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("--lines: `{text}` is not START-END or N"))
    };
    match text.split_once(['-', ':']) {
        Some((a, b)) => Ok((parse(a)?, parse(b)?)),
        None => parse(text).map(|n| (n, n)),
    }
}

fn call(
    engine: &Engine,
    mut request: Request,
    workspace: &Path,
    tag: Option<String>,
) -> Result<(Value, Option<String>, Vec<String>), String> {
    request.cwd = Some(workspace.to_string_lossy().into_owned());
    request.tag = tag;
    let response = engine.handle(&request);
    if response.ok {
        Ok((
            response.data.unwrap_or(Value::Null),
            response.tag,
            response.warnings,
        ))
    } else {
        Err(response.error.unwrap_or_else(|| "unknown error".into()))
    }
}

/// Starts `rad clipboard hold` with `text` and waits until the clipboard
/// shows it (at most 5 s).
fn hand_to_holder(text: &str) -> Result<(), String> {
    use std::os::unix::process::CommandExt as _;
    let program = std::env::current_exe().map_err(|e| format!("cannot find rad itself: {e}"))?;
    let mut child = Process::new(program)
        .args(["clipboard", "hold"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the clipboard holder: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot hand the text to the clipboard holder: {e}"))?;
    }
    let board = radium_core::clipboard::SystemClipboard::default();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            let mut why = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut err, &mut why);
            }
            return Err(why.trim().trim_start_matches("rad: ").to_owned());
        }
        if board.get_text().ok().as_deref() == Some(text) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("the clipboard did not show the text within 5 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs a clipboard command; the text to print, or the error.
pub fn run(
    command: ClipboardCommand,
    engine: &Engine,
    workspace: &Path,
    tag: Option<String>,
) -> Result<String, String> {
    match command {
        ClipboardCommand::Hold => {
            let text = crate::read_stdin()?;
            radium_core::clipboard::hold(&text).map_err(|e| e.to_string())?;
            Ok(String::new())
        }
        ClipboardCommand::Send {
            path,
            lines,
            prompt,
            context,
            language,
            print,
        } => {
            let mut args = json!({"prompt": prompt, "language": language, "print": true,
                                  "context_lines": context});
            match &path {
                Some(path) => args["path"] = json!(path),
                None => args["text"] = json!(crate::read_stdin()?),
            }
            if let Some(lines) = &lines {
                let (start, end) = lines_arg(lines)?;
                args["start_line"] = json!(start);
                args["end_line"] = json!(end);
            }
            let args = Value::Object(
                args.as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
            let (data, _, _) = call(
                engine,
                Request::new("clipboard-send", args),
                workspace,
                None,
            )?;
            let text = data["text"].as_str().unwrap_or_default().to_owned();
            if print {
                return Ok(text.trim_end().to_owned());
            }
            hand_to_holder(&text)?;
            let what = match (
                &path,
                data["start_line"].as_u64(),
                data["end_line"].as_u64(),
            ) {
                (Some(p), Some(s), Some(e)) if lines.is_some() => format!("lines {s}-{e} of {p}"),
                (Some(p), ..) => p.clone(),
                (None, ..) => "stdin".into(),
            };
            let _ = writeln!(
                std::io::stderr(),
                "rad: copied {what} ({} bytes) to the clipboard",
                text.len()
            );
            Ok(String::new())
        }
        ClipboardCommand::Receive {
            apply,
            whole_file,
            stdin,
            json,
        } => {
            let mut args = json!({"apply": apply, "whole_file": whole_file});
            if stdin {
                args["text"] = json!(crate::read_stdin()?);
            }
            let (data, tag, warnings) = call(
                engine,
                Request::new("clipboard-receive", args),
                workspace,
                tag,
            )?;
            if json {
                let out = json!({"data": data, "tag": tag, "warnings": warnings});
                return Ok(serde_json::to_string_pretty(&out).unwrap_or_default());
            }
            Ok(layout(&data, tag.as_deref(), &warnings))
        }
    }
}

/// The human layout of a `clipboard-receive` answer.
fn layout(data: &Value, tag: Option<&str>, warnings: &[String]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let blocks = data["blocks"].as_array().cloned().unwrap_or_default();
    if blocks.is_empty() {
        out.push_str("no code blocks on the clipboard\n");
    }
    for block in &blocks {
        let path = block["path"].as_str().unwrap_or("(no path)");
        let language = block["language"]
            .as_str()
            .filter(|l| !l.is_empty())
            .unwrap_or("text");
        let status = block["status"].as_str().unwrap_or("");
        let _ = writeln!(
            out,
            "block {}: {path} ({language}, {} lines): {status}",
            block["index"].as_u64().unwrap_or(0) + 1,
            block["lines"]
        );
        if let Some(error) = block["error"].as_str() {
            let _ = writeln!(out, "  {error}");
        }
        if let Some(diff) = block["diff"].as_str() {
            out.push_str(diff);
        }
    }
    if data["applied"] == true {
        let files = data["files"].as_array().map_or(0, Vec::len);
        let _ = writeln!(
            out,
            "applied: {files} file(s), one step (`rad undo` takes it back)"
        );
    } else if blocks.iter().any(|b| b["diff"].is_string()) {
        out.push_str("not applied (run with --apply to write these files)\n");
    }
    for warning in warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    if let Some(tag) = tag {
        let _ = writeln!(out, "[tag: {tag}]");
    }
    out.trim_end().to_owned()
}
