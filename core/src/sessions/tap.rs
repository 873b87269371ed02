//! The agent's messages as it sent them, for a front end that speaks ACP
//! itself (`rad acp`, radium between an ACP editor and the agent): a tap
//! that gets every notification of the agent unchanged (alongside the
//! events radium makes of them), the agent's `initialize` and `session/new`
//! answers, the agent's requests radium does not serve (handed to the tap's
//! owner to answer), and raw requests and notifications to the agent.

use std::time::Instant;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use super::rpc::{Line, RpcError};
use super::session::{lock, AgentSession};
use super::tool_output::ToolOutput;
use crate::support::json::at;

/// A request of the agent radium does not serve, handed to the tap's owner:
/// its method, its params, and where its answer goes (`Err`: a JSON-RPC
/// error object, `{code, message, data?}`).
pub type Unserved = (String, Value, oneshot::Sender<Result<Value, Value>>);

/// One of the agent's messages as a tap gets it: the line it sent, byte for
/// byte, with what routing it needs (its method, a request's id, the
/// session it names, an update's kind), so that passing it on costs no
/// parse and no serialisation of its own.
#[derive(Debug)]
pub struct Tapped {
    /// Its method.
    pub method: String,
    /// A request's id (`None`: a notification).
    pub id: Option<Value>,
    /// Its `params.sessionId`, when a string.
    pub session_id: Option<String>,
    /// Its `params.update.sessionUpdate` (a `session/update`'s kind).
    pub update: Option<String>,
    /// The line as the agent sent it, ending with `\n` (made from the
    /// parsed message only for one read before the tap listened).
    pub line: Vec<u8>,
    /// When radium read the line.
    pub read_at: Instant,
}

/// How many of the agent's messages wait in a tap for its owner. Past it,
/// the session stops reading the agent (whose writes then wait in its
/// pipe): an owner that cannot pass messages on as fast as the agent sends
/// them (a slow editor behind `rad acp`) holds a bounded amount, and none
/// is dropped or reordered.
pub const TAP_QUEUE: usize = 64;

/// The sending ends of a tap, made before the session opens (see
/// [`EditorSide::tap`]).
pub type TapSenders = (mpsc::Sender<Tapped>, mpsc::UnboundedSender<Unserved>);

/// The receiving ends of a tap, as [`AgentSession::tap`] answers them: the
/// first holds at most [`TAP_QUEUE`] messages.
pub type TapReceivers = (mpsc::Receiver<Tapped>, mpsc::UnboundedReceiver<Unserved>);

/// A new tap's two ends.
pub fn tap_channels() -> (TapSenders, TapReceivers) {
    let (tx, rx) = mpsc::channel(TAP_QUEUE);
    let (utx, urx) = mpsc::unbounded_channel();
    ((tx, utx), (rx, urx))
}

/// An ACP editor in front of the session (`rad acp`): what it brings.
#[derive(Default)]
pub struct EditorSide {
    /// Its MCP servers (ACP `McpServer` objects), passed as they are.
    pub mcp: Vec<Value>,
    /// Whether an earlier session of the agent's is taken up with
    /// `session/load` (its replay) rather than `session/resume`, when the
    /// agent offers both (the editor asked to load it).
    pub load: bool,
    /// The tap, listening from the start: the replay of a loaded session
    /// comes on it.
    pub tap: Option<TapSenders>,
}

/// What a tap holds while its owner listens.
#[derive(Default)]
pub(crate) struct Tap {
    /// Every message the agent sent unasked, as it sent it.
    pub messages: Option<mpsc::Sender<Tapped>>,
    /// The agent's requests radium does not serve.
    pub unserved: Option<mpsc::UnboundedSender<Unserved>>,
    /// Whether the agent's file reads are asked of the tap's owner first.
    pub reads: bool,
    /// The agent's answers to `initialize` and `session/new` (or the
    /// resume that stood for it): `{initialize, session}`.
    pub opened: Value,
    /// The `_meta` the next `session/prompt` carries (an editor's own, as
    /// it sent it).
    pub prompt_meta: Option<Value>,
    /// Whether the agent refused `session/new` as needing a sign-in.
    pub auth_refused: bool,
    /// An ACP editor in front (`None`: none): a refusal for a sign-in
    /// then leaves the session open, waiting for it (the editor signs in
    /// with `authenticate`); `Some(true)`: an earlier session is taken up
    /// with `session/load` first.
    pub front: Option<bool>,
    /// What `session/new` takes once the agent is signed in (its
    /// `initialize` answer, `rad`, the MCP servers), while it waits.
    pub awaiting_sign_in: Option<(Value, Option<std::path::PathBuf>, Value)>,
}

/// A JSON-RPC error object from an [`RpcError`].
fn error_json(e: &RpcError) -> Value {
    let mut error = json!({"code": e.code, "message": e.message});
    if let Some(data) = &e.data {
        error["data"] = data.clone();
    }
    error
}

impl AgentSession {
    /// Starts listening to the agent's messages as it sends them: each
    /// notification (`session/update`s included, also the ones radium turns
    /// into events) and each request (permission requests and file reads
    /// too, before radium serves them) comes as a [`Tapped`], its line as
    /// the agent sent it, on the first receiver; the requests radium does not serve come on the second
    /// for the caller to answer (instead of radium's method-not-found). A
    /// later call replaces the earlier listener. The first receiver holds at
    /// most [`TAP_QUEUE`] messages: while it is full the session waits,
    /// reading nothing more from the agent.
    pub fn tap(&self) -> TapReceivers {
        let ((tx, utx), receivers) = tap_channels();
        self.conn.keep_lines(true);
        let mut state = lock(&self.state);
        state.tap.messages = Some(tx);
        state.tap.unserved = Some(utx);
        receivers
    }

    /// Takes in what an ACP editor in front brings (see [`EditorSide`]).
    pub(crate) fn install_editor_side(&self, editor: Option<EditorSide>) {
        let Some(editor) = editor else {
            return;
        };
        let mut state = lock(&self.state);
        state.tap.front = Some(editor.load);
        if let Some((tx, utx)) = editor.tap {
            self.conn.keep_lines(true);
            state.tap.messages = Some(tx);
            state.tap.unserved = Some(utx);
        }
    }

    /// The agent's answers when the session opened: `{initialize, session}`
    /// (its `initialize` answer; its `session/new` answer, or the
    /// `session/load`/`session/resume` answer of a continued conversation).
    pub fn opened(&self) -> Value {
        lock(&self.state).tap.opened.clone()
    }

    /// Sends the agent request `method` as it is; answers its result, or its
    /// JSON-RPC error object (`{code, message, data?}`; code -32603 when the
    /// agent ended before answering).
    pub async fn agent_request(&self, method: &str, params: &Value) -> Result<Value, Value> {
        match self.conn.request(method, params).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(error_json(&e)),
            Err(_) => Err(json!({
                "code": -32603,
                "message": self.ended(&format!("before answering `{method}`")).to_string(),
            })),
        }
    }

    /// Whether the agent's `fs/read_text_file` requests go to the tap's
    /// owner (an editor that offered `fs.readTextFile`: its unsaved
    /// buffers) before the disk. The path is confined first, as for a read
    /// from disk; an error of the owner's, or no owner, reads the disk.
    pub fn read_through_tap(&self, on: bool) {
        lock(&self.state).tap.reads = on;
    }

    /// The agent's read asked of the tap's owner (see
    /// [`read_through_tap`](Self::read_through_tap)); `None`: read the disk.
    pub(crate) async fn read_from_owner(&self, params: &Value) -> Option<Result<Value, RpcError>> {
        if !lock(&self.state).tap.reads {
            return None;
        }
        let path = params.get("path").and_then(Value::as_str)?;
        let confined = self.project().and_then(|p| p.confine(path));
        if let Err(e) = confined {
            return Some(Err(RpcError {
                code: -32000,
                message: e.to_string(),
                data: None,
            }));
        }
        match self.unserved("fs/read_text_file", params.clone()).await? {
            Ok(answer) if answer.get("content").is_some_and(Value::is_string) => Some(Ok(answer)),
            _ => None,
        }
    }

    /// The `_meta` the agent's `session/prompt`s carry from now on (an ACP
    /// editor's own, passed as it sent it); `None`: none.
    pub fn set_prompt_meta(&self, meta: Option<Value>) {
        lock(&self.state).tap.prompt_meta = meta;
    }

    /// Sends the agent notification `method` as it is.
    pub fn agent_notify(&self, method: &str, params: &Value) {
        self.conn.notify(method, params);
    }

    /// Sends the agent request `method` whose params are `params`, a JSON
    /// text passed byte for byte (only the envelope and the id are
    /// radium's); answers its result's text as the agent wrote it, or its
    /// error as [`agent_request`](Self::agent_request) does.
    pub async fn agent_request_raw(&self, method: &str, params: &str) -> Result<String, Value> {
        match self.conn.request_raw(method, params).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(error_json(&e)),
            Err(_) => Err(json!({
                "code": -32603,
                "message": self.ended(&format!("before answering `{method}`")).to_string(),
            })),
        }
    }

    /// Sends the agent a line as it is (a notification of an editor's, its
    /// bytes unchanged).
    pub fn agent_send_line(&self, line: &str) {
        self.conn.send_line(line);
    }

    /// Passes a message of the agent to the tap, if one listens, with its
    /// line as the agent sent it (`line`; `None`: read before lines were
    /// kept, made from the message); waits while the tap is full (see
    /// [`TAP_QUEUE`]).
    pub(crate) async fn tapped(
        &self,
        method: &str,
        params: &Value,
        id: Option<&Value>,
        line: Option<Line>,
    ) {
        let Some(tx) = self.tap_sender() else {
            return;
        };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let tapped = Tapped {
            method: method.to_owned(),
            id: id.cloned(),
            session_id: text(params.get("sessionId")),
            update: text(at(params, &["update", "sessionUpdate"])),
            line: Vec::new(),
            read_at: Instant::now(),
        };
        send_tapped(&tx, tapped, line, || {
            let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
            if let Some(id) = id {
                message["id"] = id.clone();
            }
            message
        })
        .await;
    }

    /// [`tapped`](Self::tapped) for a text chunk of the answer (read
    /// without a JSON tree: one is made only when its line was not kept).
    pub(crate) async fn tapped_chunk(
        &self,
        session_id: Option<&str>,
        text: &str,
        line: Option<Line>,
    ) {
        let Some(tx) = self.tap_sender() else {
            return;
        };
        let tapped = Tapped {
            method: "session/update".to_owned(),
            id: None,
            session_id: session_id.map(str::to_owned),
            update: Some("agent_message_chunk".to_owned()),
            line: Vec::new(),
            read_at: Instant::now(),
        };
        send_tapped(&tx, tapped, line, || {
            json!({"jsonrpc": "2.0", "method": "session/update", "params": {
                "sessionId": session_id,
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": text},
                },
            }})
        })
        .await;
    }

    /// [`tapped`](Self::tapped) for a piece of a tool call's terminal output
    /// (read without a JSON tree: one is made only when its line was not
    /// kept).
    pub(crate) async fn tapped_output(&self, output: &ToolOutput, line: Option<Line>) {
        let Some(tx) = self.tap_sender() else {
            return;
        };
        let tapped = Tapped {
            method: "session/update".to_owned(),
            id: None,
            session_id: output.session_id.clone(),
            update: Some("tool_call_update".to_owned()),
            line: Vec::new(),
            read_at: Instant::now(),
        };
        send_tapped(&tx, tapped, line, || {
            let mut params = json!({"update": output.update()});
            if let Some(s) = &output.session_id {
                params["sessionId"] = s.as_str().into();
            }
            json!({"jsonrpc": "2.0", "method": "session/update", "params": params})
        })
        .await;
    }

    /// The tap's sender, when a tap listens.
    fn tap_sender(&self) -> Option<mpsc::Sender<Tapped>> {
        lock(&self.state).tap.messages.clone()
    }

    /// Keeps one of the agent's answers of the start (`initialize` or `session`).
    pub(crate) fn keep_opened(&self, key: &str, answer: &Value) {
        lock(&self.state).tap.opened[key] = answer.clone();
    }

    /// Hands a request radium does not serve to the tap's owner; `None`
    /// when no one listens.
    pub(crate) async fn unserved(
        &self,
        method: &str,
        params: Value,
    ) -> Option<Result<Value, RpcError>> {
        let (tx, rx) = oneshot::channel();
        let sent = {
            let state = lock(&self.state);
            let listener = state.tap.unserved.as_ref()?;
            listener.send((method.to_owned(), params, tx)).is_ok()
        };
        if !sent {
            return None;
        }
        Some(match rx.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(RpcError {
                code: e.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                message: e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the request failed")
                    .to_owned(),
                data: e.get("data").cloned(),
            }),
            Err(_) => Err(RpcError {
                code: -32603,
                message: format!("`{method}` got no answer"),
                data: None,
            }),
        })
    }
}

/// Sends `tapped` to the tap with `line` (or the line of `message()`, when
/// none was kept) and when it was read; waits while the tap is full.
async fn send_tapped(
    tx: &mpsc::Sender<Tapped>,
    mut tapped: Tapped,
    line: Option<Line>,
    message: impl FnOnce() -> Value,
) {
    if let Some(Line { bytes, read_at }) = line {
        (tapped.line, tapped.read_at) = (bytes, read_at);
    } else {
        tapped.line = message().to_string().into_bytes();
        tapped.line.push(b'\n');
    }
    let _ = tx.send(tapped).await;
}
