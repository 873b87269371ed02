//! The line an agent sends most while it answers: a `session/update`
//! notification carrying an `agent_message_chunk` of text. It is read
//! straight into its few fields, borrowing from the line where its strings
//! have no escapes, instead of into a JSON tree that is built and dropped
//! for every chunk (about a fifth of the reading thread's time on a flood
//! of small chunks). Any other line, or one of another shape, is read as
//! before (see `rpc::read_loop`).

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem;

use serde::{Deserialize, Deserializer};

/// A chunk of the answer, as the agent sent it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TextChunk {
    /// The session it belongs to, when the line named one.
    pub session_id: Option<String>,
    /// The chunk's text.
    pub text: String,
}

/// A `session/update` notification whose update reads as `U` (unknown
/// fields are ignored, as the JSON tree's reader ignores them). The method
/// and the kinds in `U` are one-variant enums, so a line of another kind
/// stops the read at that field, before the rest of it is parsed.
#[derive(Deserialize)]
#[serde(bound(deserialize = "U: Deserialize<'de>"))]
struct Notification<'a, U> {
    #[serde(rename = "method")]
    _method: Method,
    /// Whether the line has an `id` (even `null`): it is then a request,
    /// not a notification.
    #[serde(default, deserialize_with = "present")]
    id: bool,
    #[serde(borrow)]
    params: Params<'a, U>,
}

#[derive(Deserialize)]
enum Method {
    #[serde(rename = "session/update")]
    SessionUpdate,
}

#[derive(Deserialize)]
#[serde(bound(deserialize = "U: Deserialize<'de>"))]
struct Params<'a, U> {
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    update: U,
}

/// The session id and the update of `line` when it is a `session/update`
/// notification whose update reads as `U`.
pub(crate) fn session_update<'a, U: Deserialize<'a>>(line: &'a str) -> Option<(Option<String>, U)> {
    let notification: Notification<'a, U> = serde_json::from_str(line).ok()?;
    if notification.id {
        return None;
    }
    let Params { session_id, update } = notification.params;
    Some((session_id.map(Cow::into_owned), update))
}

#[derive(Deserialize)]
struct Update<'a> {
    #[serde(rename = "sessionUpdate")]
    _kind: UpdateKind,
    #[serde(borrow)]
    content: Content<'a>,
}

#[derive(Deserialize)]
enum UpdateKind {
    #[serde(rename = "agent_message_chunk")]
    AgentMessageChunk,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(rename = "type")]
    _kind: ContentKind,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

#[derive(Deserialize)]
enum ContentKind {
    #[serde(rename = "text")]
    Text,
}

/// `true` for a field that is there, whatever its value.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| true)
}

/// The chunk in `line` when it is a text chunk of the answer; `None` for
/// anything else (read then as any other line).
pub(crate) fn text_chunk(line: &str) -> Option<TextChunk> {
    // Most other lines are turned away by one scan for the kind's name,
    // before serde makes an error (a message, allocated) for them. A line
    // that spells it with escapes goes the old way, read the same.
    static KIND: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"\"agent_message_chunk\""));
    KIND.find(line.as_bytes())?;
    let (session_id, update) = session_update::<Update<'_>>(line)?;
    Some(TextChunk {
        session_id,
        text: update.content.text.into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(session_id: Option<&str>, text: &str) -> TextChunk {
        TextChunk {
            session_id: session_id.map(str::to_owned),
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_text_chunk_is_read_with_its_escapes() {
        let line = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a\nb \"c\" \u00e9"}}}}"#;
        assert_eq!(text_chunk(line), Some(chunk(Some("s1"), "a\nb \"c\" é")));
        // Other key orders, unknown fields, no session id.
        let line = r#"{"params":{"update":{"content":{"annotations":null,"text":"x","type":"text"},"sessionUpdate":"agent_message_chunk","_meta":{}}},"method":"session/update","jsonrpc":"2.0"}"#;
        assert_eq!(text_chunk(line), Some(chunk(None, "x")));
    }

    #[test]
    fn anything_else_is_left_to_the_json_tree() {
        for line in [
            // A request (an id, even null), another method or update kind,
            // content that is not text, a text that is not a string.
            r#"{"id":1,"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}"#,
            r#"{"id":null,"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}"#,
            r#"{"method":"session/other","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"x"}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"x"}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":7}}}}"#,
            // The kind spelled with an escape (read by the JSON tree, as
            // a text chunk all the same).
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent\u005fmessage_chunk","content":{"type":"text","text":"x"}}}}"#,
            // Duplicate fields (the tree keeps the last), not JSON, not an object.
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","text":"y"}}}}"#,
            "this is not json",
            "[1,2]",
        ] {
            assert_eq!(text_chunk(line), None, "{line}");
        }
    }
}
