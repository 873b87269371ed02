//! `rad chat`'s permission question: `y` allows, `h` reviews the call's
//! hunks one by one (each drawn, then kept with `y` or left out with `n`)
//! and allows the call with the hunks kept; radium takes the others back.
//! Anything else rejects.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;

use radium_core::sessions::{AgentSession, PermissionAnswer};
use serde_json::Value;
use tokio::sync::mpsc;

/// Whether the request's diffs have hunks to review.
fn has_hunks(call: &Value) -> bool {
    call["diffs"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|d| d["hunks"].as_array().is_some_and(|h| !h.is_empty()))
}

/// One hunk as a unified diff: a header naming it, then its lines.
fn hunk_text(hunk: &Value, n: usize, of: usize, path: &str) -> String {
    let count = |k: &str| hunk[k].as_u64().unwrap_or(0);
    let start = |k: &str, c: u64| hunk[k].as_u64().unwrap_or(0) + u64::from(c > 0);
    let (old_n, new_n) = (count("old_count"), count("new_count"));
    let mut text = format!(
        "[hunk {n} of {of}, {path}] @@ -{},{old_n} +{},{new_n} @@\n",
        start("old_start", old_n),
        start("new_start", new_n)
    );
    for (sign, key) in [('-', "old_lines"), ('+', "new_lines")] {
        for line in hunk[key].as_array().into_iter().flatten() {
            let line = line.as_str().unwrap_or_default();
            text.push(sign);
            text.push_str(line);
            if !line.ends_with('\n') {
                text.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    text
}

/// Asks `question` on stderr; answers the next line read (None: input ended).
async fn ask(question: &str, lines: &mut mpsc::UnboundedReceiver<String>) -> Option<String> {
    let _ = write!(std::io::stderr(), "{question}");
    let _ = std::io::stderr().flush();
    lines.recv().await.map(|l| l.trim().to_owned())
}

/// Asks about permission request `event` and answers it: `y` allows, `h`
/// reviews its hunks first, anything else (or the end of input) rejects.
pub(crate) async fn ask_permission(
    session: &AgentSession,
    event: &Value,
    lines: &mut mpsc::UnboundedReceiver<String>,
    workspace: &Path,
) {
    let id = event["id"].as_str().unwrap_or_default();
    let call = &event["tool_call"];
    let title = call["title"].as_str().unwrap_or("a tool");
    let review = has_hunks(call);
    let choices = if review {
        "[y/N/h: review hunks]"
    } else {
        "[y/N]"
    };
    let answer = ask(&format!("Allow {title}? {choices} "), lines).await;
    match answer.as_deref() {
        Some("y" | "Y" | "yes") => {
            session.answer_permission(id, PermissionAnswer::Allow);
        }
        Some("h" | "H") if review => {
            let kept = review_hunks(call, lines, workspace).await;
            let shown: usize = kept.values().map(Vec::len).sum();
            let _ = writeln!(
                std::io::stderr(),
                "rad chat: allowing {title} with {shown} hunk(s) kept"
            );
            if let Err(e) = session.answer_permission_with_hunks(id, PermissionAnswer::Allow, &kept)
            {
                let _ = writeln!(std::io::stderr(), "rad chat: {e}; rejected {title}");
                session.answer_permission(id, PermissionAnswer::Reject);
            }
        }
        _ => {
            session.answer_permission(id, PermissionAnswer::Reject);
        }
    }
}

/// Draws each hunk of the call's diffs and asks whether to keep it (`y`;
/// anything else leaves it out); answers the kept ones by path.
async fn review_hunks(
    call: &Value,
    lines: &mut mpsc::UnboundedReceiver<String>,
    workspace: &Path,
) -> HashMap<String, Vec<usize>> {
    let mut kept = HashMap::new();
    for diff in call["diffs"].as_array().into_iter().flatten() {
        let (Some(full), Some(hunks)) = (diff["path"].as_str(), diff["hunks"].as_array()) else {
            continue;
        };
        if kept.contains_key(full) {
            continue;
        }
        let path = Path::new(full)
            .strip_prefix(workspace)
            .map_or(full.into(), |p| p.to_string_lossy());
        let mut keep = Vec::new();
        for (i, hunk) in hunks.iter().enumerate() {
            {
                let mut out = std::io::stdout().lock();
                let _ = write!(out, "{}", hunk_text(hunk, i + 1, hunks.len(), &path));
                let _ = out.flush();
            }
            let question = format!("Keep hunk {} of {} of {path}? [y/n] ", i + 1, hunks.len());
            if matches!(
                ask(&question, lines).await.as_deref(),
                Some("y" | "Y" | "yes")
            ) {
                keep.push(i);
            }
        }
        kept.insert(full.to_owned(), keep);
    }
    kept
}
