//! What the agent sends unasked, read for as long as the session lives: its
//! updates become the turn's events, its requests are served, its answers
//! handed to the requests waiting for them. Text chunks of an agent that
//! sends faster than radium reads are joined into fewer `text` events, and a
//! turn keeps at most [`MAX_TURN_TEXT`] of its answer, so a flood of small
//! chunks costs about its own size.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::client::fill_old_texts;
use super::events::from_update;
use super::rpc::Incoming;
use super::session::{lock, AgentSession};
use super::tool_output::ToolOutput;
use crate::support::json::at;
use crate::support::log::Level;

/// The most text one event carries when chunks waiting together are joined.
const JOIN_UP_TO: usize = 64 << 10;

/// How many messages must be waiting behind a text chunk for the chunks
/// among them to be joined: an agent that outpaces radium. One that does
/// not has each chunk streamed as it came.
const JOIN_BACKLOG: usize = 16;

/// The most of a turn's answer a session keeps (the `text` of `turn_end`,
/// which the `after_model` hooks and the code blocks read): 32 MiB. The door
/// still gets every chunk as it comes; what was past the cap is a `notice`
/// and `turn_end`'s `text_dropped`.
pub const MAX_TURN_TEXT: usize = 32 << 20;

/// Makes room in a turn's text for `more` bytes, by an eighth of what it
/// holds (at least 64 KiB) rather than doubling: a long answer holds at most
/// about 1.125 times its bytes, and growing stays linear overall.
fn grow(text: &mut String, more: usize) {
    if text.capacity() - text.len() >= more {
        return;
    }
    let step = (text.len() / 8).max(64 << 10).max(more);
    text.reserve_exact(step.min(MAX_TURN_TEXT.saturating_sub(text.len()).max(more)));
}

/// The text of an `agent_message_chunk` update with a text block.
fn message_chunk(message: &Incoming) -> Option<&str> {
    let (method, params) = match message {
        Incoming::Text { text, .. } => return Some(text),
        Incoming::Notification { method, params, .. } => (method, params),
        _ => return None,
    };
    if method != "session/update" {
        return None;
    }
    let update = params.get("update")?;
    if update.get("sessionUpdate")?.as_str()? != "agent_message_chunk" {
        return None;
    }
    let content = update.get("content")?;
    if content.get("type")?.as_str()? != "text" {
        return None;
    }
    content.get("text")?.as_str()
}

impl AgentSession {
    /// A chunk of the answer: kept in the turn's text up to the cap, and
    /// sent to the door (the event takes the chunk's own buffer).
    fn answer_chunk(&self, chunk: String) {
        if chunk.is_empty() {
            // Some agents open each block with an empty chunk.
            return;
        }
        let first_drop = {
            let mut state = lock(&self.state);
            state.first_chunk.get_or_insert_with(Instant::now);
            // Text after a tool call is a new paragraph of the answer.
            if std::mem::take(&mut state.tool_since_text)
                && !state.text.is_empty()
                && !state.text.ends_with('\n')
                && state.text.len() + 2 <= MAX_TURN_TEXT
            {
                state.text.push_str("\n\n");
            }
            let room = MAX_TURN_TEXT.saturating_sub(state.text.len());
            let kept = crate::support::text::floor_char_boundary(&chunk, room);
            grow(&mut state.text, kept);
            state.text.push_str(&chunk[..kept]);
            let first_drop = state.text_dropped == 0 && kept < chunk.len();
            state.text_dropped += chunk.len() - kept;
            first_drop
        };
        // Built by hand: `json!` would copy the chunk.
        let mut event = serde_json::Map::new();
        event.insert("type".into(), "text".into());
        event.insert("text".into(), Value::String(chunk));
        self.emit(Value::Object(event));
        if first_drop {
            self.emit(json!({
                "type": "notice",
                "message": format!(
                    "the answer is over {} MiB: radium keeps its first {} MiB for the turn's end (its text, the hooks, the code blocks); the rest is only streamed",
                    MAX_TURN_TEXT >> 20, MAX_TURN_TEXT >> 20
                ),
            }));
        }
    }

    /// A piece of a tool call's terminal output read into its fields: what
    /// [`update`](Self::update) does with such an update (watch the call,
    /// pass its event on), without a JSON tree of it.
    fn tool_output(&self, output: ToolOutput) {
        self.watch(&json!({"toolCallId": output.id}), false);
        self.emit(output.into_event());
    }

    /// Any other `session/update`.
    async fn update(self: &Arc<Self>, update: &Value) {
        if self.controls_update(update) {
            return;
        }
        let Some(mut event) = from_update(update) else {
            return;
        };
        if matches!(event["type"].as_str(), Some("commands" | "usage")) {
            self.control(event);
            return;
        }
        let status = update.get("status").and_then(Value::as_str);
        let announced = update.get("sessionUpdate").and_then(Value::as_str) == Some("tool_call");
        if announced && !matches!(status, Some("completed" | "failed")) {
            // The file as it is before the call runs: the same diff the
            // permission request will show (drawn once), not a new file.
            fill_old_texts(self, &mut event);
        }
        if event["type"] == "thought" {
            if event["text"].as_str().unwrap_or_default().is_empty() {
                return;
            }
            lock(&self.state)
                .first_chunk
                .get_or_insert_with(Instant::now);
        }
        match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("tool_call") => {
                lock(&self.state).tool_since_text = true;
                self.watch(update, false);
            }
            // An update may name paths the call did not (radium's rule
            // checks every path a call announced).
            Some("tool_call_update") => self.watch(update, false),
            _ => {}
        }
        self.emit(event);
        if matches!(status, Some("completed" | "failed")) {
            self.tool_finished(update).await;
        }
    }
}

/// Whether `message` is an update a `session/load` replays (a turn's
/// content: the prompts, the answers, the tool calls): the history already
/// holds those turns, so they are not passed on. Other updates (the
/// agent's commands, its mode) are.
fn replayed(session: &AgentSession, message: &Incoming) -> bool {
    let (method, params) = match message {
        Incoming::Text { .. } | Incoming::ToolOutput { .. } => {
            return lock(&session.state).history.replaying
        }
        Incoming::Notification { method, params, .. } => (method, params),
        _ => return false,
    };
    let kind = at(params, &["update", "sessionUpdate"]).and_then(Value::as_str);
    method == "session/update"
        && kind.is_some_and(|k| {
            k == "user_message_chunk" || super::resync::CONTENT_UPDATES.contains(&k)
        })
        && lock(&session.state).history.replaying
}

/// Passes what the agent sent to the session's tap (see `tap`), its line
/// moved there; waits while the tap is full.
async fn tap(session: &AgentSession, message: &mut Incoming) {
    match message {
        Incoming::Notification {
            method,
            params,
            line,
        } => session.tapped(method, params, None, line.take()).await,
        Incoming::Request {
            id,
            method,
            params,
            line,
        } => {
            session.tapped(method, params, Some(id), line.take()).await;
        }
        Incoming::Text {
            session_id,
            text,
            line,
        } => {
            session
                .tapped_chunk(session_id.as_deref(), text, line.take())
                .await;
        }
        Incoming::ToolOutput { output, line } => session.tapped_output(output, line.take()).await,
        _ => {}
    }
}

/// Reads what the agent sends unasked, for as long as the session lives.
pub(crate) async fn drive(session: Weak<AgentSession>, mut incoming: mpsc::Receiver<Incoming>) {
    let mut next = None;
    loop {
        let message = match next.take() {
            Some(message) => message,
            None => match incoming.recv().await {
                Some(mut message) => {
                    if let Some(session) = session.upgrade() {
                        tap(&session, &mut message).await;
                    }
                    message
                }
                None => return,
            },
        };
        let Some(session) = session.upgrade() else {
            return;
        };
        lock(&session.state).last_heard = Some(Instant::now());
        if replayed(&session, &message) {
            continue;
        }
        // A chunk's text (moved out of a chunk read into its fields), then
        // the chunks already waiting behind it, when many are.
        let chunk = match message {
            Incoming::Text { text, .. } => Ok(text),
            other => match message_chunk(&other) {
                Some(text) => Ok(text.to_owned()),
                None => Err(other),
            },
        };
        let message = match chunk {
            Err(message) => message,
            Ok(mut text) => {
                while text.len() < JOIN_UP_TO && incoming.len() >= JOIN_BACKLOG {
                    let Ok(mut more) = incoming.try_recv() else {
                        break;
                    };
                    tap(&session, &mut more).await;
                    if let Some(chunk) = message_chunk(&more) {
                        text.push_str(chunk);
                    } else {
                        next = Some(more);
                        break;
                    }
                }
                lock(&session.state).stale.content = true;
                session.answer_chunk(text);
                continue;
            }
        };
        match message {
            Incoming::ToolOutput { output, .. } => {
                lock(&session.state).stale.content = true;
                session.tool_output(output);
            }
            Incoming::Notification { method, params, .. } => {
                if method == "session/update" {
                    let kind = at(&params, &["update", "sessionUpdate"]).and_then(Value::as_str);
                    if kind.is_some_and(|k| super::resync::CONTENT_UPDATES.contains(&k)) {
                        lock(&session.state).stale.content = true;
                    }
                    session
                        .update(params.get("update").unwrap_or(&Value::Null))
                        .await;
                }
                // Other notifications are ignored, as ACP asks.
            }
            Incoming::Request {
                id, method, params, ..
            } => {
                let s = Arc::clone(&session);
                tokio::spawn(async move {
                    let answer = super::client::serve(&s, &method, params).await;
                    s.conn.respond(&id, answer);
                });
            }
            Incoming::Answer { id, answer, raw } => session.conn.resolve(id, answer, raw),
            // Read above as a chunk of the answer.
            Incoming::Text { .. } => {}
            Incoming::Repaired(message) => {
                session.emit(json!({"type": "notice", "message": message}));
            }
            Incoming::Garbage(line) => {
                let message =
                    format!("the agent sent a line that is not JSON-RPC (ignored): {line}");
                session
                    .log
                    .write(Level::Warn, "session", format!("{}: {message}", session.id));
                session.emit(json!({"type": "notice", "message": message}));
            }
            Incoming::Closed => {
                // Its output ended: give the process a moment to exit, so
                // the error can say how it ended.
                for _ in 0..100 {
                    let exited = lock(&session.guard)
                        .as_mut()
                        .is_none_or(|g| g.exited().is_some());
                    if exited {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                // Requests still waiting get no answer: their senders drop.
                session.conn.fail_pending();
                let why = session.ended("");
                let mut state = lock(&session.state);
                if state.closed.is_none() {
                    session
                        .log
                        .write(Level::Warn, "session", format!("{}: {why}", session.id));
                }
                state.closed.get_or_insert_with(|| why.to_string());
                return;
            }
        }
    }
}
