//! What a tool call ran and printed, in one shape for every agent and door:
//! `command` and `cwd` (from its `rawInput`), `output` (the text it showed:
//! Claude's `_meta.terminal_output`, its `rawOutput`, or the text of its
//! `content`) and `exit_code` (Claude's `_meta.terminal_exit`).
//!
//! The output kept is at most [`MAX_TOOL_OUTPUT`] bytes: its first and last
//! halves, with a line saying how much was left out between them, and
//! `output_dropped` giving that number.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::support::json::at;
use crate::support::text::{ceil_char_boundary, floor_char_boundary};

/// The most bytes of a tool call's output an event carries (its first and
/// last halves when it is longer).
pub const MAX_TOOL_OUTPUT: usize = 64 << 10;

/// The most text blocks of one update read for its output.
const MAX_BLOCKS: usize = 256;

/// The keys of a tool call's `rawInput` that hold the folder its command
/// runs in.
const CWD_KEYS: [&str; 5] = [
    "cwd",
    "dir_path",
    "directory",
    "workdir",
    "working_directory",
];

/// The command of a tool call's `rawInput`: its `command` (or `cmd`), text,
/// or a list of words joined with spaces.
fn command(input: &Value) -> Option<String> {
    let value = input.get("command").or_else(|| input.get("cmd"))?;
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Array(words) if !words.is_empty() => {
            let words: Option<Vec<&str>> = words.iter().map(Value::as_str).collect();
            words.map(|w| w.join(" "))
        }
        _ => None,
    }
}

/// The text of a list of text blocks (`[{type: "text", text}]`), or of
/// `content` items holding them (`[{type: "content", content: {...}}]`).
fn blocks_text(items: &[Value]) -> Option<String> {
    let texts: Vec<&str> = items
        .iter()
        .take(MAX_BLOCKS)
        .filter_map(|item| {
            let block = if item.get("type").and_then(Value::as_str) == Some("content") {
                item.get("content")?
            } else {
                item
            };
            if block.get("type").and_then(Value::as_str) != Some("text") {
                return None;
            }
            block.get("text").and_then(Value::as_str)
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The text of a `rawOutput`: text, text blocks, or an object's `output`
/// (or its `stdout` and `stderr`).
fn raw_output_text(raw: &Value) -> Option<String> {
    match raw {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => blocks_text(items),
        Value::Object(map) => {
            if let Some(s) = map.get("output").and_then(Value::as_str) {
                return Some(s.to_owned());
            }
            let parts: Vec<&str> = ["stdout", "stderr"]
                .iter()
                .filter_map(|k| map.get(*k).and_then(Value::as_str))
                .filter(|s| !s.is_empty())
                .collect();
            (!parts.is_empty()).then(|| parts.join("\n"))
        }
        _ => None,
    }
}

/// The output an update carries, whole: Claude's `_meta.terminal_output`,
/// else its `rawOutput`, else the text of its `content`.
fn output(update: &Value) -> Option<String> {
    if let Some(data) = at(update, &["_meta", "terminal_output", "data"]).and_then(Value::as_str) {
        return Some(data.to_owned());
    }
    if let Some(text) = update.get("rawOutput").and_then(raw_output_text) {
        return Some(text);
    }
    update
        .get("content")
        .and_then(Value::as_array)
        .and_then(|items| blocks_text(items))
}

/// `text` within [`MAX_TOOL_OUTPUT`] bytes: its first and last halves
/// around a line saying how many bytes were left out; and that number.
pub fn cap_output(text: String) -> (String, usize) {
    if text.len() <= MAX_TOOL_OUTPUT {
        return (text, 0);
    }
    let half = MAX_TOOL_OUTPUT / 2;
    let head = floor_char_boundary(&text, half);
    let tail = ceil_char_boundary(&text, text.len() - half);
    let dropped = tail - head;
    let mut kept = String::with_capacity(MAX_TOOL_OUTPUT + 64);
    kept.push_str(&text[..head]);
    let _ = write!(kept, "\n[… {dropped} bytes of output not kept …]\n");
    kept.push_str(&text[tail..]);
    (kept, dropped)
}

/// Adds `command`, `cwd`, `output` (with `output_dropped`) and `exit_code`
/// to a tool call event, from the update it came from, when it carries them.
pub(crate) fn add_output(event: &mut Map<String, Value>, update: &Value) {
    if let Some(input) = update.get("rawInput") {
        if let Some(command) = command(input) {
            event.insert("command".into(), command.into());
        }
        if let Some(cwd) = CWD_KEYS
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
        {
            event.insert("cwd".into(), cwd.into());
        }
    }
    if let Some(text) = output(update) {
        let (text, dropped) = cap_output(text);
        event.insert("output".into(), text.into());
        if dropped > 0 {
            event.insert("output_dropped".into(), dropped.into());
        }
    }
    if let Some(code) =
        at(update, &["_meta", "terminal_exit", "exit_code"]).filter(|c| c.is_i64() || c.is_u64())
    {
        event.insert("exit_code".into(), code.clone());
    }
}
