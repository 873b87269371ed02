//! The editor's side of `rad acp`: JSON-RPC lines on stdin and stdout. A
//! thread reads stdin a line at a time, each line at most [`MAX_LINE`]
//! (a longer one is skipped as it streams, never held, and answered with an
//! error); one writer writes stdout (see `stdout`), the agent's messages taking at most
//! [`ROOM`] bytes while they wait for it; requests radium sends the editor
//! wait for their answers by id.

use std::collections::HashMap;
use std::io::BufRead as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};

/// The longest line radium reads from the editor: 64 MiB (an editor's
/// prompt with a whole file attached fits many times).
pub const MAX_LINE: usize = 64 << 20;

/// What the editor sent: a line of JSON, or a line past [`MAX_LINE`].
pub enum FromEditor {
    /// A parsed line with its text as sent (to pass on unchanged), or
    /// `Err`: the text was not JSON, with the parser's reason.
    Message(Result<(Value, String), String>),
    /// A line longer than [`MAX_LINE`] (its length, as far as it was read).
    TooLong(usize),
}

/// Reads stdin's lines on a thread of their own until its end.
pub fn read_stdin() -> mpsc::UnboundedReceiver<FromEditor> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut line = Vec::new();
        let mut skipped = 0usize;
        loop {
            let (done, used) = match input.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(buf) => {
                    if let Some(at) = memchr::memchr(b'\n', buf) {
                        take(&mut line, &mut skipped, &buf[..at]);
                        (true, at + 1)
                    } else {
                        take(&mut line, &mut skipped, buf);
                        (false, buf.len())
                    }
                }
            };
            input.consume(used);
            if done && !send_line(&tx, &mut line, &mut skipped) {
                break;
            }
        }
        send_line(&tx, &mut line, &mut skipped);
    });
    rx
}

/// Adds `part` to the line being read, or counts it past the cap.
fn take(line: &mut Vec<u8>, skipped: &mut usize, part: &[u8]) {
    if *skipped > 0 || line.len() + part.len() > MAX_LINE {
        *skipped += line.len() + part.len();
        line.clear();
    } else {
        line.extend_from_slice(part);
    }
}

/// Sends the line read (blank lines are none); answers whether the reader
/// still listens.
fn send_line(
    tx: &mpsc::UnboundedSender<FromEditor>,
    line: &mut Vec<u8>,
    skipped: &mut usize,
) -> bool {
    let message = if *skipped > 0 {
        FromEditor::TooLong(std::mem::take(skipped))
    } else if line.iter().all(u8::is_ascii_whitespace) {
        line.clear();
        return true;
    } else {
        match serde_json::from_slice(line) {
            // Valid JSON is UTF-8: the line's own buffer becomes its text.
            Ok(message) => match String::from_utf8(std::mem::take(line)) {
                Ok(text) => FromEditor::Message(Ok((message, text))),
                Err(e) => FromEditor::Message(Err(e.to_string())),
            },
            Err(e) => FromEditor::Message(Err(e.to_string())),
        }
    };
    line.clear();
    tx.send(message).is_ok()
}

type Waiting = oneshot::Sender<Result<Value, Value>>;

/// How many bytes of the agent's messages may wait for the editor to read
/// them: 4 MiB. Past it, the relay waits (and the agent's messages wait in
/// the tap, then in the agent's pipe): a slow editor costs a bounded amount
/// of memory, and no message is dropped or reordered.
pub const ROOM: u32 = 4 << 20;

/// What the writer writes.
pub(super) enum Out {
    /// A message of radium's.
    Message(Value),
    /// A message of radium's as JSON text (no line end).
    Text(String),
    /// One of the agent's lines as it sent it, with its share of [`ROOM`]
    /// and when radium read it.
    Line(Vec<u8>, OwnedSemaphorePermit, Instant),
    /// The end: what came before is written.
    Close,
}

/// The editor's end of the wire: writes messages, and matches the editor's
/// answers to radium's requests.
#[derive(Clone)]
pub struct Editor {
    out: mpsc::UnboundedSender<Out>,
    room: Arc<Semaphore>,
    pending: Arc<Mutex<HashMap<u64, Waiting>>>,
    next_id: Arc<AtomicU64>,
}

impl Editor {
    /// The wire, with its writer (see `stdout`) started on the current
    /// runtime; the writer ends at [`close`](Self::close), once what was
    /// sent before is written.
    pub fn start() -> (Self, tokio::task::JoinHandle<()>) {
        let (out, rx) = mpsc::unbounded_channel::<Out>();
        let writer = super::stdout::start(rx);
        let editor = Editor {
            out,
            room: Arc::new(Semaphore::new(ROOM as usize)),
            pending: Arc::default(),
            next_id: Arc::new(AtomicU64::new(0)),
        };
        (editor, writer)
    }

    /// Ends the writer after what was sent so far.
    pub fn close(&self) {
        let _ = self.out.send(Out::Close);
    }

    /// Sends a message as it is.
    pub fn send(&self, message: Value) {
        let _ = self.out.send(Out::Message(message));
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: &Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends one of the agent's lines as it sent it (ending with `\n`,
    /// read at `read_at`), once there is room for it (see [`ROOM`]; a line
    /// larger than all of it waits until nothing else does).
    pub async fn relay(&self, line: Vec<u8>, read_at: Instant) {
        let share = u32::try_from(line.len()).unwrap_or(ROOM).min(ROOM);
        let Ok(room) = Arc::clone(&self.room).acquire_many_owned(share).await else {
            return;
        };
        let _ = self.out.send(Out::Line(line, room, read_at));
    }

    /// Answers the editor's request `id`.
    pub fn answer(&self, id: &Value, answer: Result<Value, Value>) {
        self.send(match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        });
    }

    /// Answers the editor's request `id` with a result as the agent wrote
    /// it (JSON text), or an error object.
    pub fn answer_raw(&self, id: &Value, answer: Result<String, Value>) {
        match answer {
            Ok(result) => {
                let text = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}");
                let _ = self.out.send(Out::Text(text));
            }
            Err(error) => self.answer(id, Err(error)),
        }
    }

    /// Sends the editor a request; answers its result or its error object
    /// (an error of radium's when the editor went away first).
    pub async fn request(&self, method: &str, params: &Value) -> Result<Value, Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        crate::acp::lock(&self.pending).insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx.await.unwrap_or_else(|_| {
            Err(json!({"code": -32603, "message": "the editor went away before answering"}))
        })
    }

    /// Hands the editor's answer to the request waiting for it; answers
    /// whether one was.
    pub fn resolve(&self, message: &Value) -> bool {
        let Some(id) = message.get("id").and_then(Value::as_u64) else {
            return false;
        };
        let Some(tx) = crate::acp::lock(&self.pending).remove(&id) else {
            return false;
        };
        let answer = match message.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(answer);
        true
    }

    /// Drops every request still waiting (the editor went away).
    pub fn fail_pending(&self) {
        crate::acp::lock(&self.pending).clear();
    }
}
