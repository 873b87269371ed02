//! What a turn streams to the door: one JSON object an event, with `type`.
//!
//! | `type` | fields |
//! |---|---|
//! | `text` | `text`: a chunk of the agent's answer |
//! | `thought` | `text`: a chunk of its reasoning |
//! | `tool_call` | `id`, `title`, `kind`, `status`, `diffs` (`[{path, old_text, new_text}]`), `locations`, `raw_input`, `raw_output`; `command`, `cwd`, `output` (with `output_dropped`), `exit_code` when the agent sent them (see [`super::output`]) |
//! | `tool_call_update` | `id` and the fields that changed (as `tool_call`) |
//! | `plan` | `entries`: the whole plan (`[{content, priority, status}]`) |
//! | `permission` | `id` (answer it with it), `tool_call` (its diffs with their `hunks`, see [`super::hunks`]), `options` (`[{id, name, kind}]`; the chosen one's `kind` decides) |
//! | `permission_decided` | `id`, `allowed`, `by` (`hook:<name>`, `radium`, `door`, `timeout`, `cancel`), `reason`; `hunks_rejected` (`{path: [index]}`) when the door kept only some hunks |
//! | `write` | `path`, `tag`, `seq`: a file the agent wrote, recorded as an edit (`by: "agent"` when it wrote it to disk itself); `hunks_taken_back` (and `hunks_not_taken_back`) after a review of its hunks |
//! | `write_refused` | `path`, `code`, `error`: a write refused (a `before_tool` hook's stop, outside the workspace, protected) |
//! | `commands` | `commands`: the agent's slash commands, the whole list (`[{name, description, hint}]`, see [`super::commands`]) |
//! | `usage` | what the agent reported (`used`, `size`, `cost` of a `usage_update`; token counts of a prompt's answer) |
//! | `options` | `options`, `mode`, `model`: the agent's modes and config options changed (see [`super::options`]) |
//! | `notice` | `message`: something the agent did that radium ignored or repaired |
//! | `turn_end` | `stop_reason`, `text` (the answer, its first 32 MiB), `code_blocks`, `tag`, `tag_before` (the files before the prompt), `text_dropped` (bytes past those, when any) |
//! | `error` | `code`, `message`, `tag`, `tag_before`: the turn failed (the last event of the turn) |

use serde_json::{json, Map, Value};

/// One event of a turn, as JSON (see the table above).
pub type SessionEvent = Value;

/// The diffs of a tool call's `content`, in radium's shape.
fn diffs(content: Option<&Value>) -> Value {
    let list = content
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter(|c| c.get("type").and_then(Value::as_str) == Some("diff"))
                .map(|c| {
                    json!({
                        "path": c.get("path").cloned().unwrap_or(Value::Null),
                        "old_text": c.get("oldText").cloned().unwrap_or(Value::Null),
                        "new_text": c.get("newText").cloned().unwrap_or(Value::Null),
                    })
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    Value::Array(list)
}

/// A tool call (or its update) in radium's shape: only the fields present.
pub(crate) fn tool_call(kind: &str, update: &Value) -> SessionEvent {
    let mut event = Map::new();
    event.insert("type".into(), kind.into());
    let copy = [
        ("toolCallId", "id"),
        ("title", "title"),
        ("kind", "kind"),
        ("status", "status"),
        ("locations", "locations"),
        ("rawInput", "raw_input"),
        ("rawOutput", "raw_output"),
    ];
    for (from, to) in copy {
        if let Some(v) = update.get(from) {
            event.insert(to.into(), v.clone());
        }
    }
    if update.get("content").is_some() {
        event.insert("diffs".into(), diffs(update.get("content")));
    }
    super::output::add_output(&mut event, update);
    Value::Object(event)
}

/// The text of a content block (text chunks; other blocks are shown by kind).
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(c) if c.get("type").and_then(Value::as_str) == Some("text") => c
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        Some(c) => format!(
            "[{}]",
            c.get("type").and_then(Value::as_str).unwrap_or("content")
        ),
        None => String::new(),
    }
}

/// A `session/update` in radium's shape; `None` for updates a door does not
/// need (modes, the user's own message echoed).
pub(crate) fn from_update(update: &Value) -> Option<SessionEvent> {
    let kind = update.get("sessionUpdate").and_then(Value::as_str)?;
    Some(match kind {
        "agent_message_chunk" => {
            json!({"type": "text", "text": content_text(update.get("content"))})
        }
        "agent_thought_chunk" => {
            json!({"type": "thought", "text": content_text(update.get("content"))})
        }
        "tool_call" | "tool_call_update" => tool_call(kind, update),
        "plan" => {
            json!({"type": "plan", "entries": update.get("entries").cloned().unwrap_or_default()})
        }
        "available_commands_update" => super::commands::commands_event(update),
        "usage_update" => {
            let mut usage = update.clone();
            if let Some(map) = usage.as_object_mut() {
                map.remove("sessionUpdate");
                map.insert("type".into(), "usage".into());
            }
            usage
        }
        _ => return None,
    })
}

/// The most text one event waiting for the door holds when the text events
/// behind it are joined to it.
const QUEUED_JOIN_UP_TO: usize = 1 << 20;

/// Joins `event` to `last` when both are `text` (or both `thought`) events
/// and `last` holds less than 1 MiB: a door that takes its events late gets
/// the same text in fewer events. Answers whether it did.
pub(crate) fn join_text(last: Option<&mut SessionEvent>, event: &SessionEvent) -> bool {
    let Some(last) = last else {
        return false;
    };
    let kind = event.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("text" | "thought")) || last.get("type").and_then(Value::as_str) != kind
    {
        return false;
    }
    let (Some(Value::String(more)), Some(Value::String(text))) =
        (event.get("text"), last.get_mut("text"))
    else {
        return false;
    };
    if text.len() >= QUEUED_JOIN_UP_TO {
        return false;
    }
    if text.capacity() - text.len() < more.len() {
        // Doubling, but not past the join's cap: a joined event holds
        // about its own text.
        let want = (text.len() * 2)
            .min(QUEUED_JOIN_UP_TO)
            .max(text.len() + more.len());
        text.reserve_exact(want - text.len());
    }
    text.push_str(more);
    true
}
