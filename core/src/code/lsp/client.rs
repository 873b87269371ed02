//! One running language server: its process group, the requests radium
//! sends with their time limits (a late one is cancelled with
//! `$/cancelRequest`), every request the server sends answered, its
//! progress followed (a query waits until the server is ready instead of
//! sleeping), and the documents radium has shown it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

use super::framing::{frame, read_frame, Frame};
use super::replies::{answer, client_capabilities};
use super::stderr::stderr_summary;
use super::uri::path_uri;
use crate::code::position::Encoding;
use crate::code::servers::{language_id, ServerSpec};
use crate::support::lock::unpoisoned as lock;
use crate::support::process::{spawn_process, ProcessGuard, ProcessSpec};

/// How much of a server's stderr is kept for error messages.
const STDERR_TAIL: usize = 4096;

/// Why a request has no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LspError {
    /// It took longer than its limit (and was cancelled).
    Timeout(u64),
    /// The server answered with an error.
    Server(i64, String),
    /// The server is gone (it exited, or closed its output).
    Closed(String),
}

impl std::fmt::Display for LspError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LspError::Timeout(ms) => write!(f, "it did not answer within {ms} ms"),
            LspError::Server(code, message) => write!(f, "it answered error {code}: {message}"),
            LspError::Closed(why) => write!(f, "it stopped: {why}"),
        }
    }
}

type Answer = Result<Value, LspError>;

/// A document radium opened in the server.
#[derive(Debug, Clone)]
pub struct OpenDoc {
    /// The version radium last sent.
    pub version: i32,
    /// The text the server has.
    pub text: String,
}

/// The server's progress: the tokens under way, and whether one ever began.
#[derive(Debug, Clone, Default)]
struct Progress {
    active: HashSet<String>,
    begun: u64,
}

/// A running server.
pub struct Client {
    /// Its entry in the server table.
    pub spec: ServerSpec,
    /// The workspace it serves.
    pub root: PathBuf,
    out: mpsc::UnboundedSender<Vec<u8>>,
    pending: Mutex<HashMap<i64, oneshot::Sender<Answer>>>,
    next_id: AtomicI64,
    progress: watch::Sender<Progress>,
    closed: watch::Sender<Option<String>>,
    docs: Mutex<HashMap<PathBuf, OpenDoc>>,
    init: OnceLock<(Encoding, Value)>,
    last_used: Mutex<Instant>,
    guard: Mutex<Option<ProcessGuard>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// True once the server's stderr has ended.
    stderr_done: watch::Receiver<bool>,
    /// Its process id.
    pub pid: Option<u32>,
    start_ms: AtomicU64,
}
impl Client {
    /// Starts `spec`'s server for `root` and initializes it, within the
    /// spec's time limit (at least 20 s: a cold start loads a lot).
    pub async fn start(spec: &ServerSpec, root: &Path) -> Result<Arc<Client>, String> {
        let program = spec.program.clone().ok_or_else(|| {
            let name = spec.command.first().map_or("", String::as_str);
            if name == "rust-analyzer" {
                "`rust-analyzer` is not installed (not on PATH, or rustup's proxy without the component: rustup component add rust-analyzer)".to_owned()
            } else {
                format!("`{name}` is not installed (not found on PATH)")
            }
        })?;
        let started = Instant::now();
        let spawned = spawn_process(&ProcessSpec {
            program,
            args: spec.command[1..].to_vec(),
            cwd: Some(root.to_owned()),
            env: Vec::new(),
            max_output: 0,
        })?;
        let (out, mut outgoing) = mpsc::unbounded_channel::<Vec<u8>>();
        let mut stdin = spawned.stdin;
        tokio::spawn(async move {
            while let Some(bytes) = outgoing.recv().await {
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let stderr: Arc<Mutex<Vec<u8>>> = Arc::default();
        let tail = Arc::clone(&stderr);
        let mut err = spawned.stderr;
        let (stderr_ended, stderr_done) = watch::channel(false);
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let mut kept = lock(&tail);
                kept.extend_from_slice(&buf[..n]);
                let over = kept.len().saturating_sub(STDERR_TAIL);
                kept.drain(..over);
            }
            let _ = stderr_ended.send(true);
        });
        let client = Arc::new(Client {
            spec: spec.clone(),
            root: root.to_owned(),
            out,
            pending: Mutex::default(),
            next_id: AtomicI64::new(1),
            progress: watch::Sender::new(Progress::default()),
            closed: watch::Sender::new(None),
            docs: Mutex::default(),
            init: OnceLock::new(),
            last_used: Mutex::new(Instant::now()),
            pid: spawned.guard.pid(),
            guard: Mutex::new(Some(spawned.guard)),
            stderr,
            stderr_done,
            start_ms: AtomicU64::new(0),
        });
        tokio::spawn(read_loop(spawned.stdout, Arc::downgrade(&client)));
        let limit = spec.timeout_ms.max(20_000);
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "radium", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": path_uri(root),
            "rootPath": root,
            "workspaceFolders": [{"uri": path_uri(root), "name": name}],
            "capabilities": client_capabilities(),
            "initializationOptions": spec.init_options,
        });
        let answer = match client.request("initialize", params, limit).await {
            Ok(answer) => answer,
            Err(e) => {
                let mut why = format!("`{}` did not start: {e}", spec.name());
                let tail = client.stderr_tail();
                if !tail.is_empty() && !why.contains(&tail) {
                    why = format!("{why}; its stderr ends with: {tail}");
                }
                client.kill();
                return Err(why);
            }
        };
        let capabilities = answer.get("capabilities").cloned().unwrap_or(Value::Null);
        let encoding = Encoding::from_name(capabilities["positionEncoding"].as_str());
        let _ = client.init.set((encoding, capabilities));
        client.notify("initialized", &json!({}));
        if spec.settings.as_object().is_some_and(|m| !m.is_empty()) {
            client.notify(
                "workspace/didChangeConfiguration",
                &json!({"settings": spec.settings}),
            );
        }
        client.start_ms.store(
            u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        Ok(client)
    }

    /// The position encoding the server chose.
    pub fn encoding(&self) -> Encoding {
        self.init.get().map_or(Encoding::Utf16, |i| i.0)
    }

    /// The server's `capabilities`.
    pub fn capabilities(&self) -> &Value {
        static NONE: Value = Value::Null;
        self.init.get().map_or(&NONE, |i| &i.1)
    }

    /// How long it took from start to `initialized`, in milliseconds.
    pub fn start_ms(&self) -> u64 {
        self.start_ms.load(Ordering::Relaxed)
    }

    /// Why it stopped, if it has.
    pub fn stopped(&self) -> Option<String> {
        self.closed.borrow().clone()
    }

    /// How long it has not been used.
    pub fn idle(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }

    fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    fn send(&self, message: &Value) -> bool {
        self.out.send(frame(message)).is_ok()
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: &Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its answer, at most `limit_ms`: a late
    /// request is cancelled with `$/cancelRequest`.
    pub async fn request(&self, method: &str, params: Value, limit_ms: u64) -> Answer {
        self.touch();
        if let Some(why) = self.stopped() {
            return Err(LspError::Closed(why));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        if !self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})) {
            lock(&self.pending).remove(&id);
            return Err(LspError::Closed("its input is closed".into()));
        }
        let answer = tokio::time::timeout(Duration::from_millis(limit_ms), rx).await;
        self.touch();
        match answer {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(LspError::Closed(
                self.stopped().unwrap_or_else(|| "its output ended".into()),
            )),
            Err(_) => {
                lock(&self.pending).remove(&id);
                self.notify("$/cancelRequest", &json!({"id": id}));
                Err(LspError::Timeout(limit_ms))
            }
        }
    }

    /// Waits until no progress of the server is under way (it is indexing
    /// or loading a project), at most until `deadline`. True when ready.
    pub async fn wait_ready(&self, deadline: Instant) -> bool {
        let mut progress = self.progress.subscribe();
        let ready =
            tokio::time::timeout_at(deadline.into(), progress.wait_for(|p| p.active.is_empty()))
                .await;
        matches!(ready, Ok(Ok(_)))
    }

    /// How many progress reports have begun so far.
    pub fn progress_begun(&self) -> u64 {
        self.progress.borrow().begun
    }

    /// Shows the server `path` with `text`: `didOpen` the first time,
    /// `didChange` (the whole text) when it changed since.
    pub fn sync(&self, path: &Path, text: &str) {
        let mut docs = lock(&self.docs);
        let uri = path_uri(path);
        match docs.get_mut(path) {
            Some(doc) if doc.text == text => {}
            Some(doc) => {
                doc.version += 1;
                text.clone_into(&mut doc.text);
                self.notify(
                    "textDocument/didChange",
                    &json!({
                        "textDocument": {"uri": uri, "version": doc.version},
                        "contentChanges": [{"text": text}],
                    }),
                );
            }
            None => {
                docs.insert(
                    path.to_owned(),
                    OpenDoc {
                        version: 1,
                        text: text.to_owned(),
                    },
                );
                self.notify(
                    "textDocument/didOpen",
                    &json!({"textDocument": {
                        "uri": uri,
                        "languageId": language_id(path),
                        "version": 1,
                        "text": text,
                    }}),
                );
            }
        }
    }

    /// Whether radium opened `path` in the server.
    pub fn is_open(&self, path: &Path) -> bool {
        lock(&self.docs).contains_key(path)
    }

    /// The document radium opened at `path`, if it did.
    pub fn open_doc(&self, path: &Path) -> Option<OpenDoc> {
        lock(&self.docs).get(path).cloned()
    }

    /// Tells the server `old` moved to `new` (`didClose`, `didRenameFiles`,
    /// then `didOpen` with `text` when the old one was open).
    pub fn renamed(&self, old: &Path, new: &Path, text: &str) {
        let was_open = lock(&self.docs).remove(old).is_some();
        if was_open {
            self.notify(
                "textDocument/didClose",
                &json!({"textDocument": {"uri": path_uri(old)}}),
            );
        }
        self.notify(
            "workspace/didRenameFiles",
            &json!({"files": [{"oldUri": path_uri(old), "newUri": path_uri(new)}]}),
        );
        if was_open {
            self.sync(new, text);
        }
    }

    /// The end of what the server wrote on stderr.
    pub fn stderr_tail(&self) -> String {
        stderr_summary(&String::from_utf8_lossy(&lock(&self.stderr)))
    }

    /// Ends the server's process group now.
    pub fn kill(&self) {
        self.closed.send_if_modified(|c| {
            c.get_or_insert_with(|| "radium stopped it".into());
            true
        });
        drop(lock(&self.guard).take());
    }

    /// Asks the server to stop (`shutdown`, then `exit`), gives it a
    /// moment to go, then ends its process group.
    pub async fn shutdown(&self) {
        if self.stopped().is_none() {
            let _ = self.request("shutdown", Value::Null, 2000).await;
            self.notify("exit", &Value::Null);
            let mut closed = self.closed.subscribe();
            let _ = tokio::time::timeout(Duration::from_secs(1), closed.wait_for(Option::is_some))
                .await;
        }
        self.kill();
    }

    fn on_progress(&self, params: &Value) {
        let token = match &params["token"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match params["value"]["kind"].as_str() {
            Some("begin") => self.progress.send_modify(|p| {
                p.active.insert(token);
                p.begun += 1;
            }),
            Some("end") => self.progress.send_modify(|p| {
                p.active.remove(&token);
            }),
            _ => {}
        }
    }

    fn on_message(&self, message: &Value) {
        let method = message["method"].as_str().map(str::to_owned);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => {
                let reply =
                    match answer(&self.spec.settings, &self.root, &method, &message["params"]) {
                        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        Err((code, text)) => json!({
                            "jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}
                        }),
                    };
                self.send(&reply);
            }
            (Some(method), None) => {
                if method == "$/progress" {
                    self.on_progress(&message["params"]);
                }
            }
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { return };
                let answer = match message.get("error") {
                    Some(error) => Err(LspError::Server(
                        error["code"].as_i64().unwrap_or(0),
                        error["message"].as_str().unwrap_or("").to_owned(),
                    )),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                if let Some(tx) = lock(&self.pending).remove(&id) {
                    let _ = tx.send(answer);
                }
            }
            (None, None) => {}
        }
    }
}

/// Reads the server's messages until its output ends, then fails what
/// still waits for an answer.
async fn read_loop(stdout: tokio::process::ChildStdout, client: Weak<Client>) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let why = loop {
        match read_frame(&mut reader).await {
            Ok(Frame::Message(message)) => match client.upgrade() {
                Some(client) => client.on_message(&message),
                None => return,
            },
            Ok(Frame::Garbage(_)) => {}
            Ok(Frame::End) => break "it exited".to_owned(),
            Err(e) => break format!("reading its output failed: {e}"),
        }
    };
    if let Some(client) = client.upgrade() {
        // What it wrote last on stderr may still be on its way (a moment
        // at most: a child of the server may hold stderr open).
        let mut done = client.stderr_done.clone();
        let _ = tokio::time::timeout(Duration::from_millis(300), done.wait_for(|d| *d)).await;
        let tail = client.stderr_tail();
        let why = if tail.is_empty() {
            why
        } else {
            format!("{why}; its stderr ends with: {tail}")
        };
        client.closed.send_if_modified(|c| {
            c.get_or_insert(why);
            true
        });
        lock(&client.pending).clear();
    }
}
