//! The line a command's streamed output comes in: a `session/update`
//! notification of kind `tool_call_update` whose only news is one piece of
//! the terminal's output (`_meta.terminal_output`, as codex-acp streams a
//! terminal and Claude's adapter sends a command's output). A flood of
//! them is thousands of lines a turn; each is read straight into its few
//! fields and made into its event without a JSON tree. A line of any other
//! shape (a status, content, another `_meta` field) is read as before (see
//! `rpc::read_loop`), and makes the same event.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::events::SessionEvent;
use super::output::cap_output;
use super::text_chunk::session_update;

/// A piece of a tool call's terminal output, as the agent sent it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ToolOutput {
    /// The session it belongs to, when the line named one.
    pub session_id: Option<String>,
    /// The tool call's id.
    pub id: String,
    /// The terminal's id, when the line named one.
    pub terminal_id: Option<String>,
    /// The output.
    pub data: String,
}

/// The update's fields. It and its `_meta` take no other field: a line
/// that says more goes the JSON tree's way, which reads all of it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Update<'a> {
    #[serde(rename = "sessionUpdate")]
    _kind: UpdateKind,
    #[serde(rename = "toolCallId", borrow)]
    id: Cow<'a, str>,
    #[serde(rename = "_meta", borrow)]
    meta: Meta<'a>,
}

#[derive(Deserialize)]
enum UpdateKind {
    #[serde(rename = "tool_call_update")]
    ToolCallUpdate,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta<'a> {
    #[serde(borrow)]
    terminal_output: Terminal<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Terminal<'a> {
    #[serde(borrow, default)]
    terminal_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    data: Cow<'a, str>,
}

/// The output in `line` when it is a tool call update carrying only a
/// piece of its terminal's output; `None` for anything else.
pub(crate) fn tool_output(line: &str) -> Option<ToolOutput> {
    // Other lines are turned away by one scan, before serde is asked.
    static NEEDLE: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"\"terminal_output\""));
    NEEDLE.find(line.as_bytes())?;
    let (session_id, update) = session_update::<Update<'_>>(line)?;
    Some(ToolOutput {
        session_id,
        id: update.id.into_owned(),
        terminal_id: update.meta.terminal_output.terminal_id.map(Cow::into_owned),
        data: update.meta.terminal_output.data.into_owned(),
    })
}

impl ToolOutput {
    /// The update as the agent sent it (for a tap, when the line itself was
    /// not kept).
    pub(crate) fn update(&self) -> Value {
        let mut terminal = json!({"data": self.data});
        if let Some(t) = &self.terminal_id {
            terminal["terminal_id"] = t.as_str().into();
        }
        json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": self.id,
            "_meta": {"terminal_output": terminal},
        })
    }

    /// Its event: what `events::from_update` makes of the update, the
    /// output moved into it.
    pub(crate) fn into_event(self) -> SessionEvent {
        let mut event = Map::new();
        event.insert("type".into(), "tool_call_update".into());
        event.insert("id".into(), Value::String(self.id));
        let (text, dropped) = cap_output(self.data);
        event.insert("output".into(), Value::String(text));
        if dropped > 0 {
            event.insert("output_dropped".into(), dropped.into());
        }
        Value::Object(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::events::from_update;

    fn read(line: &str) -> ToolOutput {
        tool_output(line).unwrap_or_else(|| panic!("not read: {line}"))
    }

    #[test]
    fn a_piece_of_output_makes_the_event_the_json_tree_makes() {
        let big = "x\n".repeat(40_000);
        for line in [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call-1","_meta":{"terminal_output":{"terminal_id":"call-1","data":"3 lll\n"}}}}}"#.to_owned(),
            // Another order, escapes, no terminal id, no session id.
            r#"{"params":{"update":{"_meta":{"terminal_output":{"data":"a\tb \"c\" \u00e9\n"}},"toolCallId":"c","sessionUpdate":"tool_call_update"}},"method":"session/update"}"#.to_owned(),
            // Output past the cap: its halves, and how much was left out.
            format!(r#"{{"method":"session/update","params":{{"update":{{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{{"terminal_output":{{"data":{}}}}}}}}}}}"#, serde_json::to_string(&big).expect("text")),
        ] {
            let tree: Value = serde_json::from_str(&line).expect("JSON");
            let output = read(&line);
            assert_eq!(output.update(), tree["params"]["update"], "{line}");
            assert_eq!(
                Some(output.into_event()),
                from_update(&tree["params"]["update"]),
                "{line}"
            );
        }
        let output = read(
            r#"{"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"terminal_output":{"data":"x"}}}}}"#,
        );
        assert_eq!(output.session_id.as_deref(), Some("s1"));
        assert_eq!(output.terminal_id, None);
    }

    #[test]
    fn any_other_line_is_left_to_the_json_tree() {
        for line in [
            // A status, content, another _meta field, a field of its own in
            // the terminal's output: the tree reads them all.
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","_meta":{"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","content":[],"_meta":{"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"claudeCode":{},"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"terminal_output":{"data":"x","more":1}}}}}"#,
            // A request, another kind or method, data or id not text,
            // fields twice, no output at all.
            r#"{"id":3,"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c","_meta":{"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/other","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"terminal_output":{"data":7}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":7,"_meta":{"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","toolCallId":"d","_meta":{"terminal_output":{"data":"x"}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"terminal_exit":{"exit_code":0}}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\"terminal_output\""}}}}"#,
            "this is not json",
        ] {
            assert_eq!(tool_output(line), None, "{line}");
        }
    }
}
