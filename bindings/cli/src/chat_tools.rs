//! What `rad chat` prints under a tool call: the command it runs (`$ ...`,
//! with its folder when that is not the workspace) and its output, folded
//! when long (the first and last lines around `… N more lines`), with the
//! exit code when it is not 0.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

/// An output of more lines than this is folded.
const FOLD_OVER: usize = 20;
/// The lines shown before and after the fold.
const FOLD_KEEP: usize = 8;
/// The most calls remembered at once (a call is forgotten when it ends).
const MAX_CALLS: usize = 1024;
/// The most characters of one output line printed.
const MAX_LINE_CHARS: usize = 500;

/// What was printed of one tool call.
#[derive(Default)]
struct Call {
    command: Option<String>,
    output: Option<String>,
    exit_code: Option<i64>,
}

/// What was printed of the turn's tool calls.
#[derive(Default)]
pub struct ToolCalls {
    calls: HashMap<String, Call>,
}

/// `text` folded for the terminal: each line indented, at most
/// [`MAX_LINE_CHARS`] of a line, the middle lines of a long text left out.
pub fn fold(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut line = |l: &str| {
        out.push_str("    ");
        match l.char_indices().nth(MAX_LINE_CHARS) {
            Some((at, _)) => {
                out.push_str(&l[..at]);
                out.push('…');
            }
            None => out.push_str(l),
        }
        out.push('\n');
    };
    if lines.len() > FOLD_OVER {
        for l in &lines[..FOLD_KEEP] {
            line(l);
        }
        let hidden = lines.len() - 2 * FOLD_KEEP;
        line(&format!("… {hidden} more lines"));
        for l in &lines[lines.len() - FOLD_KEEP..] {
            line(l);
        }
    } else {
        for l in &lines {
            line(l);
        }
    }
    out
}

/// `cwd` as the user reads it: relative to `workspace` when inside it;
/// `None` for the workspace itself.
fn folder(cwd: &str, workspace: &Path) -> Option<String> {
    match Path::new(cwd).strip_prefix(workspace) {
        Ok(rel) if rel.as_os_str().is_empty() => None,
        Ok(rel) => Some(rel.to_string_lossy().into_owned()),
        Err(_) => Some(cwd.to_owned()),
    }
}

impl ToolCalls {
    /// Prints what `event` adds to a tool call's command and output: for a
    /// `tool_call`, call it after the call's header is printed; for an
    /// update, before its status is (the output comes above the status).
    pub fn show(&mut self, event: &Value, workspace: &Path) {
        let kind = event["type"].as_str().unwrap_or_default();
        if !matches!(kind, "tool_call" | "tool_call_update") {
            return;
        }
        let Some(id) = event["id"].as_str() else {
            return;
        };
        if !self.calls.contains_key(id) && self.calls.len() >= MAX_CALLS {
            self.calls.clear();
        }
        let call = self.calls.entry(id.to_owned()).or_default();
        let mut text = String::new();
        if let Some(command) = event["command"].as_str() {
            if call.command.as_deref() != Some(command) {
                let _ = write!(text, "  $ {command}");
                if let Some(dir) = event["cwd"].as_str().and_then(|c| folder(c, workspace)) {
                    let _ = write!(text, "   (in {dir})");
                }
                text.push('\n');
                call.command = Some(command.to_owned());
            }
        }
        if let Some(output) = event["output"].as_str() {
            call.output = Some(output.to_owned());
        }
        if let Some(code) = event["exit_code"].as_i64() {
            call.exit_code = Some(code);
        }
        // The output is printed once, when the call ends (an agent may send
        // it more than once on the way).
        let ended = matches!(event["status"].as_str(), Some("completed" | "failed"));
        if ended {
            if let Some(call) = self.calls.remove(id) {
                if let Some(output) = call.output.filter(|o| !o.trim().is_empty()) {
                    text.push_str(&fold(&output));
                }
                if let Some(code) = call.exit_code.filter(|c| *c != 0) {
                    let _ = writeln!(text, "    [exit {code}]");
                }
            }
        }
        if !text.is_empty() {
            let mut out = std::io::stdout().lock();
            let _ = std::io::Write::write_all(&mut out, text.as_bytes());
            let _ = std::io::Write::flush(&mut out);
        }
    }
}
