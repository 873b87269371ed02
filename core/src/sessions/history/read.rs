//! Reading the conversation history: the list of a project's conversations
//! and one conversation's records and turns. A damaged file (a line cut in
//! the middle by a crash, a line that is not JSON) is named in the warnings
//! and the rest is still read.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::store::{file_of, MAX_RECORD};
use crate::error::{Error, Result};

/// The longest title (the first line of the first prompt), in characters.
const TITLE_CHARS: usize = 80;

/// The most of the first prompt a listing shows, in characters.
const FIRST_PROMPT_CHARS: usize = 500;

/// The most earlier turns' text given as context to an agent that cannot
/// resume its session (the newest turns are kept).
pub const MAX_EARLIER_CONTEXT: usize = 64 << 10;

fn chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The lines of a conversation's file, parsed; `only` skips, unparsed, the
/// lines of other kinds. Damaged lines are said in `warnings`.
fn records(path: &Path, only: Option<&[&str]>, warnings: &mut Vec<String>) -> Result<Vec<Value>> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut reader = BufReader::new(file);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| Error::Io {
                path: path.to_owned(),
                source,
            })?;
        if n == 0 {
            break;
        }
        number += 1;
        if buf.last() != Some(&b'\n') {
            warnings.push(format!(
                "conversation file `{}`: line {number} is cut in the middle (an interrupted write); it is left out",
                path.display()
            ));
            break;
        }
        if let Some(kinds) = only {
            let wanted = kinds.iter().any(|k| {
                let prefix = format!("{{\"kind\":\"{k}\"");
                buf.starts_with(prefix.as_bytes())
            });
            if !wanted && buf.starts_with(b"{\"kind\":\"") {
                continue;
            }
        }
        match serde_json::from_slice::<Value>(&buf) {
            Ok(record) if record.get("kind").is_some_and(Value::is_string) => out.push(record),
            _ => {
                let shown = String::from_utf8_lossy(&buf[..buf.len().min(60)]).into_owned();
                warnings.push(format!(
                    "conversation file `{}`: line {number} is not a history record (not JSON): `{}`; it is left out",
                    path.display(),
                    shown.trim_end()
                ));
            }
        }
    }
    Ok(out)
}

/// What a listing says of a conversation, from its records.
fn summary(id: &str, records: &[Value]) -> Option<Value> {
    let start = records.first().filter(|r| r["kind"] == "start")?;
    let mut acp_session = start["acp_session"].clone();
    let mut updated = start["time"].as_u64().unwrap_or(0);
    let mut turns = 0u64;
    let mut first = None;
    for r in records {
        if let Some(t) = r["time"].as_u64() {
            updated = updated.max(t);
        }
        match r["kind"].as_str() {
            Some("resume") => acp_session = r["acp_session"].clone(),
            Some("prompt") => {
                turns += 1;
                first.get_or_insert_with(|| r["text"].as_str().unwrap_or("").to_owned());
            }
            _ => {}
        }
    }
    let first = first.unwrap_or_default();
    let title = chars(first.lines().next().unwrap_or(""), TITLE_CHARS);
    Some(json!({
        "id": id, "agent": start["agent"], "acp_session": acp_session,
        "title": title, "first_prompt": chars(&first, FIRST_PROMPT_CHARS),
        "started": start["time"], "updated": updated, "turns": turns,
    }))
}

/// The conversations of the project whose history folder is `folder`,
/// newest first, and the warnings about damaged files.
pub fn list(folder: &Path) -> (Vec<Value>, Vec<String>) {
    let mut warnings = Vec::new();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return (Vec::new(), warnings);
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let kinds: &[&str] = &["start", "resume", "prompt"];
        match records(&path, Some(kinds), &mut warnings) {
            Ok(records) => match summary(&id, &records) {
                Some(s) => out.push(s),
                None => warnings.push(format!(
                    "conversation file `{}` is damaged: it does not begin with a conversation start; it is not listed",
                    path.display()
                )),
            },
            Err(e) => warnings.push(format!("conversation file unreadable: {e}")),
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s["updated"].as_u64().unwrap_or(0)));
    (out, warnings)
}

/// One conversation: its summary, its records, its turns (see [`turns`])
/// and the warnings about its file. An unknown id is a clear error.
pub fn read(folder: &Path, id: &str) -> Result<Value> {
    let path = file_of(folder, id)?;
    if !path.is_file() {
        return Err(Error::InvalidArgument(format!(
            "no conversation `{id}` in this project (`history-list` gives the ones kept)"
        )));
    }
    let mut warnings = Vec::new();
    let records = records(&path, None, &mut warnings)?;
    let Some(summary) = summary(id, &records) else {
        return Err(Error::InvalidArgument(format!(
            "conversation file `{}` is damaged: it does not begin with a conversation start",
            path.display()
        )));
    };
    let turns = turns(&records);
    Ok(json!({"conversation": summary, "turns": turns, "records": records, "warnings": warnings}))
}

/// The turns of a conversation: `{turn, prompt, text, thought, tools
/// ([{id, title, kind, status, diffs, output, exit_code}]), permissions
/// ([{tool, allowed, by}]), writes ([path]), stop_reason, error, tag,
/// tag_before}`.
pub fn turns(records: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for r in records {
        match r["kind"].as_str() {
            Some("prompt") => out.push(json!({
                "turn": r["turn"], "prompt": r["text"], "text": "", "thought": "",
                "tools": [], "permissions": [], "writes": [],
                "stop_reason": null, "error": null, "tag": null, "tag_before": null,
            })),
            Some("event") => {
                if let Some(turn) = out.last_mut() {
                    add_event(turn, &r["event"]);
                }
            }
            _ => {}
        }
    }
    out
}

fn add_event(turn: &mut Value, event: &Value) {
    let push_text = |turn: &mut Value, key: &str| {
        let more = event["text"].as_str().unwrap_or("");
        if let Some(Value::String(s)) = turn.get_mut(key) {
            s.push_str(more);
        }
    };
    match event["type"].as_str().unwrap_or("") {
        "text" => push_text(turn, "text"),
        "thought" => push_text(turn, "thought"),
        "tool_call" | "tool_call_update" => {
            let tools = turn["tools"].as_array_mut().expect("tools is a list");
            let id = &event["id"];
            let found = tools.iter_mut().find(|t| &t["id"] == id && !id.is_null());
            let mut fields: Map<String, Value> = event.as_object().cloned().unwrap_or_default();
            fields.remove("type");
            match found {
                Some(tool) => {
                    if let Some(map) = tool.as_object_mut() {
                        map.extend(fields);
                    }
                }
                None => tools.push(Value::Object(fields)),
            }
        }
        "permission_decided" => {
            let title = turn["tools"]
                .as_array()
                .and_then(|t| t.last())
                .map_or(Value::Null, |t| t["title"].clone());
            turn["permissions"]
                .as_array_mut()
                .expect("permissions is a list")
                .push(json!({"id": event["id"], "tool": title, "allowed": event["allowed"], "by": event["by"]}));
        }
        "write" => turn["writes"]
            .as_array_mut()
            .expect("writes is a list")
            .push(event["path"].clone()),
        "turn_end" => {
            turn["stop_reason"] = event["stop_reason"].clone();
            turn["tag"] = event["tag"].clone();
            turn["tag_before"] = event["tag_before"].clone();
        }
        "error" => {
            turn["error"] = event["message"].clone();
            turn["tag"] = event["tag"].clone();
            turn["tag_before"] = event["tag_before"].clone();
        }
        _ => {}
    }
}

/// The earlier turns as one text block for an agent that cannot resume its
/// session: the newest turns within [`MAX_EARLIER_CONTEXT`] bytes.
pub fn earlier_context(turns: &[Value]) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut size = 0;
    for turn in turns.iter().rev() {
        let mut part = String::new();
        let _ = write!(
            part,
            "User: {}\n\nAssistant: {}\n",
            turn["prompt"].as_str().unwrap_or(""),
            turn["text"].as_str().unwrap_or("")
        );
        if size + part.len() > MAX_EARLIER_CONTEXT.min(MAX_RECORD) {
            break;
        }
        size += part.len();
        parts.push(part);
    }
    if parts.is_empty() {
        return None;
    }
    parts.reverse();
    Some(format!(
        "This conversation continues an earlier one, which you cannot reload; its turns were:\n\n{}\nThe new prompt follows.\n\n",
        parts.join("\n")
    ))
}

/// The last tag of a conversation's turns (where its files are now).
pub fn last_tag(turns: &[Value]) -> Option<String> {
    turns
        .iter()
        .rev()
        .find_map(|t| t["tag"].as_str().map(str::to_owned))
}
