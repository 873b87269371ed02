//! JSON-RPC 2.0 over an agent's stdio, one message a line (ACP's transport):
//! requests to the agent with their answers matched by id, and what the agent
//! sends unasked (notifications, its own requests, lines that are not JSON,
//! the end of its output).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use super::text_chunk::text_chunk;
use super::tool_output::tool_output;
use crate::support::lock::unpoisoned as lock;
use crate::support::log::{Level, Log};

/// The longest line an agent may send: 64 MiB (a whole file in a diff). A
/// longer one is skipped to its end without being kept, and is a `notice`.
pub const MAX_LINE: usize = 64 << 20;

/// The longest line of an agent's stderr the log keeps as one entry.
const STDERR_LINE: usize = 2000;

/// How much of an agent's stderr is kept, from its end, for error messages.
const STDERR_TAIL: usize = 4096;

/// An error answer from the agent, or the connection's end.
#[derive(Debug, Clone)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
    /// The error's `data` (its details), when the agent sent one.
    pub data: Option<Value>,
}

type Answer = std::result::Result<Value, RpcError>;

/// An answer to a request sent with [`Connection::request_raw`]: its
/// `result` as the agent wrote it (JSON text).
pub(crate) type RawAnswer = std::result::Result<String, RpcError>;

/// Who waits for an answer.
enum Waiter {
    Parsed(oneshot::Sender<Answer>),
    Raw(oneshot::Sender<RawAnswer>),
}

/// A line of the agent's as it sent it (its line end `\n`, the spaces
/// around it left out), kept while a tap listens (see
/// [`Connection::keep_lines`]), and when it was read.
#[derive(Debug)]
pub struct Line {
    /// The line's bytes, ending with `\n`.
    pub bytes: Vec<u8>,
    /// When radium read it.
    pub read_at: Instant,
}

/// What the agent sent that was not an answer.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request: answer it with [`Connection::respond`].
    Request {
        id: Value,
        method: String,
        params: Value,
        /// The line as sent, while lines are kept.
        line: Option<Line>,
    },
    /// A text chunk of the answer (a `session/update` notification of
    /// kind `agent_message_chunk` with a text block), read without a JSON
    /// tree.
    Text {
        /// The notification's `sessionId`, when it had one.
        session_id: Option<String>,
        /// The chunk's text.
        text: String,
        /// The line as sent, while lines are kept.
        line: Option<Line>,
    },
    /// A piece of a tool call's terminal output (a `tool_call_update`
    /// with only `_meta.terminal_output`), read without a JSON tree.
    ToolOutput {
        /// What the line held.
        output: super::tool_output::ToolOutput,
        /// The line as sent, while lines are kept.
        line: Option<Line>,
    },
    /// A notification.
    Notification {
        method: String,
        params: Value,
        /// The line as sent, while lines are kept.
        line: Option<Line>,
    },
    /// The answer to one of radium's requests, in the order it came (after
    /// the updates the agent sent before it): give it to
    /// [`Connection::resolve`].
    Answer {
        id: u64,
        answer: Answer,
        /// The text of its `result` as sent, for a request sent with
        /// [`Connection::request_raw`].
        raw: Option<String>,
    },
    /// A line that is not a JSON-RPC message (shown in part).
    Garbage(String),
    /// Something repaired on the way (a line that was not UTF-8).
    Repaired(String),
    /// Its output ended (it exited or closed stdout).
    Closed,
}

/// The client side of one agent's connection.
pub(crate) struct Connection {
    out: mpsc::UnboundedSender<String>,
    pending: Mutex<HashMap<u64, Waiter>>,
    /// The ids of the requests whose `result` the reader keeps as text.
    raw_ids: Arc<Mutex<HashSet<u64>>>,
    next_id: AtomicU64,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Whether the reader keeps each request's and notification's line.
    keep: Arc<AtomicBool>,
}

impl Connection {
    /// Starts the reader and writer tasks on the current runtime; what the
    /// agent sends unasked arrives on the returned receiver, in order.
    /// `stderr` is `None` for an agent that is not a process of its own
    /// (the adapter of a command agent); each of its lines is a `debug`
    /// entry of `log` (source `session`), after `label`.
    pub(crate) fn start(
        stdin: impl AsyncWrite + Send + Unpin + 'static,
        stdout: impl AsyncRead + Send + Unpin + 'static,
        stderr: Option<impl AsyncRead + Send + Unpin + 'static>,
        log: Option<(Arc<Log>, String)>,
    ) -> (Self, mpsc::Receiver<Incoming>) {
        let (out, mut lines) = mpsc::unbounded_channel::<String>();
        let (incoming, received) = mpsc::channel(INCOMING_QUEUE);
        let tail: Arc<Mutex<Vec<u8>>> = Arc::default();
        tokio::spawn(async move {
            let mut stdin = stdin;
            while let Some(line) = lines.recv().await {
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let keep = Arc::clone(&tail);
        tokio::spawn(async move {
            let Some(mut stderr) = stderr else { return };
            let mut chunk = vec![0u8; 4096];
            let mut line = Vec::new();
            while let Ok(n) = stderr.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                {
                    let mut t = lock(&keep);
                    t.extend_from_slice(&chunk[..n]);
                    let over = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..over);
                }
                let Some((log, label)) = &log else { continue };
                for &b in &chunk[..n] {
                    if b == b'\n' || line.len() >= STDERR_LINE {
                        let text = String::from_utf8_lossy(&line);
                        let text = text.trim_end();
                        if !text.is_empty() {
                            log.write(Level::Debug, "session", format!("{label} stderr: {text}"));
                        }
                        line.clear();
                    }
                    if b != b'\n' {
                        line.push(b);
                    }
                }
            }
        });
        let keep = Arc::new(AtomicBool::new(false));
        let raw_ids: Arc<Mutex<HashSet<u64>>> = Arc::default();
        tokio::spawn(read_loop(
            stdout,
            incoming,
            Arc::clone(&keep),
            Arc::clone(&raw_ids),
        ));
        let connection = Connection {
            out,
            pending: Mutex::default(),
            raw_ids,
            next_id: AtomicU64::new(1),
            stderr: tail,
            keep,
        };
        (connection, received)
    }

    fn send(&self, message: &Value) -> bool {
        let mut line = message.to_string();
        line.push('\n');
        self.out.send(line).is_ok()
    }

    /// Keeps (`on`) the line of each request and notification the agent
    /// sends from now on, to pass it on as it came (a tap listens).
    pub(crate) fn keep_lines(&self, on: bool) {
        self.keep.store(on, Ordering::Relaxed);
    }

    /// Sends a request whose params are `params`, a JSON text passed as it
    /// is (an editor's own bytes); its answer's `result` comes back as the
    /// agent wrote it (dropped when the agent's output ends first).
    pub(crate) fn request_raw(&self, method: &str, params: &str) -> oneshot::Receiver<RawAnswer> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.raw_ids).insert(id);
        lock(&self.pending).insert(id, Waiter::Raw(tx));
        let method = Value::String(method.to_owned());
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":{method},\"params\":{params}}}\n"
        );
        if self.out.send(line).is_err() {
            lock(&self.pending).remove(&id);
            lock(&self.raw_ids).remove(&id);
        }
        rx
    }

    /// Sends a line as it is (a message of JSON; a line end is added).
    pub(crate) fn send_line(&self, line: &str) {
        let mut line = line.trim_end().to_owned();
        line.push('\n');
        let _ = self.out.send(line);
    }

    /// Sends a request; the answer comes on the returned receiver (dropped
    /// when the agent's output ends first).
    pub(crate) fn request(&self, method: &str, params: &Value) -> oneshot::Receiver<Answer> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, Waiter::Parsed(tx));
        let sent =
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        if !sent {
            lock(&self.pending).remove(&id);
        }
        rx
    }

    /// Sends a notification.
    pub(crate) fn notify(&self, method: &str, params: &Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Answers one of the agent's requests.
    pub(crate) fn respond(&self, id: &Value, answer: Answer) {
        let message = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
            }
        };
        self.send(&message);
    }

    /// Hands an answer to the request waiting for it (`raw`: its result's
    /// text as sent, see [`Incoming::Answer`]).
    pub(crate) fn resolve(&self, id: u64, answer: Answer, raw: Option<String>) {
        match lock(&self.pending).remove(&id) {
            Some(Waiter::Parsed(tx)) => {
                let _ = tx.send(answer);
            }
            Some(Waiter::Raw(tx)) => {
                let _ = tx.send(answer.map(|v| raw.unwrap_or_else(|| v.to_string())));
            }
            None => {}
        }
    }

    /// Fails every request still waiting (the agent's output has ended).
    pub(crate) fn fail_pending(&self) {
        lock(&self.pending).clear();
        lock(&self.raw_ids).clear();
    }

    /// The end of what the agent wrote on stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        String::from_utf8_lossy(&lock(&self.stderr))
            .trim()
            .to_owned()
    }
}

/// How many unasked messages wait for the session (past it, the reader
/// stops reading and the agent's writes wait: a fast agent cannot fill
/// memory with parsed messages).
const INCOMING_QUEUE: usize = 256;

/// Above this, a line's buffer is given back once the line is read (one
/// long line does not keep its 64 MiB for the session's life).
const KEEP_BUFFER: usize = 1 << 20;

/// Skips what is left of a line too long to read, without keeping it: answers
/// whether the output goes on after it.
async fn skip_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> bool {
    loop {
        let Ok(buf) = reader.fill_buf().await else {
            return false;
        };
        if buf.is_empty() {
            return false;
        }
        if let Some(end) = memchr::memchr(b'\n', buf) {
            reader.consume(end + 1);
            return true;
        }
        let n = buf.len();
        reader.consume(n);
    }
}

/// The text of an answer's `result` as sent (a parse that borrows it).
fn raw_result(text: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Parts<'a> {
        #[serde(borrow)]
        result: Option<&'a serde_json::value::RawValue>,
    }
    let parts: Parts<'_> = serde_json::from_str(text).ok()?;
    parts.result.map(|r| r.get().to_owned())
}

async fn read_loop(
    stdout: impl AsyncRead + Send + Unpin + 'static,
    incoming: mpsc::Sender<Incoming>,
    keep: Arc<AtomicBool>,
    raw_ids: Arc<Mutex<HashSet<u64>>>,
) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut line = Vec::new();
    loop {
        if line.capacity() > KEEP_BUFFER {
            line = Vec::new();
        }
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let read_at = Instant::now();
        if line.len() > MAX_LINE {
            line = Vec::new();
            let sent = incoming
                .send(Incoming::Garbage(format!(
                    "a line over {} MiB (skipped)",
                    MAX_LINE >> 20
                )))
                .await;
            if sent.is_err() || !skip_line(&mut reader).await {
                break;
            }
            continue;
        }
        // UTF-8 checked by the standard library's fast path; only a line
        // that is not UTF-8 goes through the repair.
        let text = match std::str::from_utf8(&line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&line),
        };
        if let std::borrow::Cow::Owned(_) = text {
            let _ = incoming
                .send(Incoming::Repaired(
                    "the agent sent a line that is not UTF-8: its invalid bytes were replaced by U+FFFD".into(),
                ))
                .await;
        }
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        // The line as it came, to pass on unchanged (a copy: the buffer is
        // read into again).
        let kept = || {
            keep.load(Ordering::Relaxed).then(|| {
                let mut bytes = Vec::with_capacity(text.len() + 1);
                bytes.extend_from_slice(text.as_bytes());
                bytes.push(b'\n');
                Line { bytes, read_at }
            })
        };
        // The lines of a flood, read into their fields.
        let read = text_chunk(text)
            .map(|chunk| Incoming::Text {
                session_id: chunk.session_id,
                text: chunk.text,
                line: kept(),
            })
            .or_else(|| {
                tool_output(text).map(|output| Incoming::ToolOutput {
                    output,
                    line: kept(),
                })
            });
        if let Some(message) = read {
            if incoming.send(message).await.is_err() {
                break;
            }
            continue;
        }
        // serde_json's own depth limit is MAX_JSON_DEPTH: a line nested
        // deeper fails to parse (and is garbage) without a walk of its own.
        let message = serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object);
        let Some(mut message) = message else {
            let shown: String = text.chars().take(120).collect();
            let _ = incoming.send(Incoming::Garbage(shown)).await;
            continue;
        };
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let id = message.get_mut("id").map(Value::take);
        let params = message.get_mut("params").map_or(Value::Null, Value::take);
        let sent = match (method, id) {
            (Some(method), Some(id)) => {
                let line = kept();
                incoming
                    .send(Incoming::Request {
                        id,
                        method,
                        params,
                        line,
                    })
                    .await
            }
            (Some(method), None) => {
                let line = kept();
                incoming
                    .send(Incoming::Notification {
                        method,
                        params,
                        line,
                    })
                    .await
            }
            (None, Some(id)) => {
                let answer = match message.get_mut("error").map(Value::take) {
                    Some(mut error) => Err(RpcError {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("error")
                            .to_owned(),
                        data: error
                            .get_mut("data")
                            .map(Value::take)
                            .filter(|d| !d.is_null()),
                    }),
                    None => Ok(message.get_mut("result").map_or(Value::Null, Value::take)),
                };
                match id.as_u64() {
                    Some(id) => {
                        let raw = if lock(&raw_ids).remove(&id) && answer.is_ok() {
                            raw_result(text)
                        } else {
                            None
                        };
                        incoming.send(Incoming::Answer { id, answer, raw }).await
                    }
                    None => Ok(()),
                }
            }
            (None, None) => {
                incoming
                    .send(Incoming::Garbage(text.chars().take(120).collect()))
                    .await
            }
        };
        if sent.is_err() {
            break;
        }
    }
    let _ = incoming.send(Incoming::Closed).await;
}
