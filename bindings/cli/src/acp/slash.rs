//! radium's slash commands in `rad acp`: merged into the agent's command
//! list and answered by radium, never sent to the agent. Their answers
//! stream to the editor as the agent's message.

use std::fmt::Write as _;

use radium_core::{Engine, Request};
use serde_json::{json, Value};

use super::conversation::Conversation;

/// radium's commands: name, input hint (empty: none), what it does.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "undo",
        "",
        "radium: takes back the files the agent's last turn wrote",
    ),
    ("redo", "", "radium: writes again what /undo took back"),
    (
        "rewind",
        "N",
        "radium: puts the files back to how they were before prompt N of this conversation",
    ),
    ("changes", "", "radium: the diff of the last turn"),
    (
        "hooks",
        "",
        "radium: what radium's rules and hooks decided in the last turn",
    ),
];

/// The command and its argument when `text` is one of radium's commands.
pub fn parse(text: &str) -> Option<(&'static str, &str)> {
    let rest = text.trim().strip_prefix('/')?;
    let (name, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let (name, _, _) = COMMANDS.iter().find(|(n, _, _)| *n == name)?;
    Some((name, arg.trim()))
}

/// The files an answer of `undo`, `redo` or `rewind` names.
fn files(data: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect(data, &mut found);
    found
}

fn collect(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("file" | "path", Value::String(s)) if !found.contains(s) => {
                        found.push(s.clone());
                    }
                    _ => collect(v, found),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if let Value::String(s) = item {
                    if !found.contains(s) {
                        found.push(s.clone());
                    }
                } else {
                    collect(item, found);
                }
            }
        }
        _ => {}
    }
}

/// Runs an edit command of the engine; its answer as a sentence.
async fn edit(engine: &Engine, command: &str, args: Value, done: &str) -> String {
    let response = engine.handle_async(&Request::new(command, args)).await;
    let mut out = if response.ok {
        let data = response.data.unwrap_or(Value::Null);
        let list = files(&data);
        if list.is_empty() {
            format!("radium: {done}: no file changed.\n")
        } else {
            format!("radium: {done}: {}\n", list.join(", "))
        }
    } else {
        format!(
            "radium: {command} failed: {}\n",
            response.error.unwrap_or_default()
        )
    };
    for w in &response.warnings {
        let _ = writeln!(out, "radium: warning: {w}");
    }
    out
}

/// Appends a unified diff of `old` to `new` in a fenced block; `None`: the
/// file is missing on that side (`/dev/null`).
fn diff_block(out: &mut String, path: &str, old: Option<&str>, new: Option<&str>) {
    let side = |text: Option<&str>, prefix: &str| {
        text.map_or_else(|| "/dev/null".to_owned(), |_| format!("{prefix}/{path}"))
    };
    let diff = similar::TextDiff::from_lines(old.unwrap_or_default(), new.unwrap_or_default())
        .unified_diff()
        .header(&side(old, "a"), &side(new, "b"))
        .to_string();
    let _ = write!(out, "```diff\n{diff}```\n");
}

/// The last turn's diff as radium recorded it: every write of the turn
/// (the editor's `fs/write_text_file`, files the agent wrote itself, its
/// `rad mcp` edits), from the history, the files as they are now against
/// before the turn. `None` when radium kept no history for the turn (then
/// the tool calls' own diffs are shown); `Some(None)` when the files show
/// nothing of the turn.
async fn recorded_changes(engine: &Engine, conversation: &Conversation) -> Option<Option<String>> {
    let tag = super::lock(&conversation.prompts)
        .last()?
        .tag_before
        .clone()?;
    let args = json!({"tag": tag, "dry_run": true, "diffs": true});
    let response = engine.handle_async(&Request::new("rewind", args)).await;
    let data = response.data.filter(|_| response.ok)?;
    let Some(diffs) = data["diffs"].as_array().filter(|d| !d.is_empty()) else {
        return Some(None);
    };
    let mut out = String::from("radium: the last turn's changes:\n");
    for d in diffs {
        let path = d["file"].as_str().unwrap_or("?");
        diff_block(
            &mut out,
            path,
            d["old_text"].as_str(),
            d["new_text"].as_str(),
        );
    }
    for w in &response.warnings {
        let _ = writeln!(out, "radium: warning: {w}");
    }
    Some(Some(out))
}

/// Answers radium's command `name` with `arg` in `conversation`.
pub async fn answer(engine: &Engine, conversation: &Conversation, name: &str, arg: &str) -> String {
    let session = &conversation.session;
    match name {
        "undo" | "redo" => match session.tag() {
            Some(tag) => {
                let done = if name == "undo" { "undone" } else { "redone" };
                edit(engine, name, json!({"tag": tag}), done).await
            }
            None => format!(
                "radium: nothing to {name}: the agent wrote no file in this conversation.\n"
            ),
        },
        "rewind" => {
            let prompts = super::lock(&conversation.prompts).clone();
            let Some(prompt) = arg
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| prompts.get(i))
            else {
                return format!(
                    "radium: /rewind N takes a prompt's number, 1 to {} (`{arg}` is not one).\n",
                    prompts.len()
                );
            };
            match &prompt.tag_before {
                Some(tag) => {
                    let first = prompt.text.lines().next().unwrap_or_default();
                    let done = format!("files back to before prompt {arg} (`{first}`)");
                    edit(engine, "rewind", json!({"tag": tag}), &done).await
                }
                None => "radium: radium kept no history for that prompt; nothing rewound.\n".into(),
            }
        }
        "changes" => {
            let recorded = recorded_changes(engine, conversation).await;
            if let Some(Some(out)) = recorded {
                return out;
            }
            let last = super::lock(&conversation.last).clone();
            if last.diffs.is_empty() && last.writes.is_empty() {
                return "radium: the last turn changed no file.\n".into();
            }
            if recorded.is_some() {
                // Proposed or written, but nothing of it is in the files.
                return "radium: the files show nothing of the last turn: its changes were refused, or taken back (/undo, /rewind).\n".into();
            }
            let mut out = String::from("radium: the last turn's changes:\n");
            let workspace = format!("{}/", session.workspace.display());
            for (path, old, new) in &last.diffs {
                let path = path.strip_prefix(&workspace).unwrap_or(path);
                diff_block(&mut out, path, Some(old), Some(new));
            }
            for path in &last.writes {
                if !last.diffs.iter().any(|(p, _, _)| p == path) {
                    let _ = writeln!(out, "written: {path}");
                }
            }
            out
        }
        _ => {
            let last = super::lock(&conversation.last).clone();
            let mut out = if last.decisions.is_empty() {
                String::from("radium: no rule or hook decided anything in the last turn.\n")
            } else {
                String::from("radium: in the last turn:\n")
            };
            for line in &last.decisions {
                let _ = writeln!(out, "- {line}");
            }
            let hooks = engine
                .handle_async(&Request::new("hooks-list", Value::Null))
                .await;
            let names: Vec<String> = hooks
                .data
                .as_ref()
                .and_then(|d| d.as_array().cloned())
                .unwrap_or_default()
                .iter()
                .map(|h| {
                    format!(
                        "{} ({})",
                        h["name"].as_str().unwrap_or("?"),
                        h["hook_type"].as_str().unwrap_or("?")
                    )
                })
                .collect();
            if !names.is_empty() {
                let _ = writeln!(out, "radium: hooks registered: {}", names.join(", "));
            }
            out
        }
    }
}
