//! Sessions with `command` agents (one process a turn): an adapter inside
//! radium speaks ACP to the session like any agent, and runs the command for
//! each turn with the conversation so far as JSON on its stdin:
//!
//! ```json
//! {"agent": "id", "prompt": "this turn's text", "context": [{"uri", "text"}],
//!  "messages": [{"role": "user" | "assistant", "content": "..."}]}
//! ```
//!
//! (`messages` ends with this turn's prompt; `context` holds the prompt's
//! embedded resources: the selection, open files). Its stdout streams as the
//! answer's text while it runs; exit 0 ends the turn, another exit fails it
//! with the tail of its stderr, and a cancel kills its process group.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{mpsc, Mutex as AsyncMutex, Notify};

use super::session::{last_lines, process_spec};
use crate::agents::config::AgentConfig;
use crate::support::process::{find_on_path, spawn_process};

/// Whether `program` names a file (a path, from `cwd`) or is found on `PATH`.
pub(crate) fn runnable(program: &str, cwd: &std::path::Path) -> bool {
    if program.contains('/') {
        return cwd.join(program).is_file();
    }
    find_on_path(program).is_some()
}

/// Starts the adapter of `agent` on the current runtime; answers the two
/// ends radium's connection writes to and reads from.
pub(crate) fn start(agent: AgentConfig, workspace: PathBuf) -> (DuplexStream, DuplexStream) {
    let (to_adapter, from_client) = tokio::io::duplex(64 << 10);
    let (to_client, from_adapter) = tokio::io::duplex(64 << 10);
    let (out, mut lines) = mpsc::unbounded_channel::<Value>();
    tokio::spawn(async move {
        let mut to_client = to_client;
        while let Some(message) = lines.recv().await {
            let mut line = message.to_string();
            line.push('\n');
            if to_client.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let adapter = Arc::new(Adapter {
        agent,
        workspace,
        out,
        history: AsyncMutex::new(Vec::new()),
        cancel: Notify::new(),
    });
    tokio::spawn(async move {
        let mut reader = BufReader::new(from_client).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            Arc::clone(&adapter).handle(&message);
        }
    });
    (to_adapter, from_adapter)
}

struct Adapter {
    agent: AgentConfig,
    workspace: PathBuf,
    out: mpsc::UnboundedSender<Value>,
    /// The conversation so far: `{role, content}`.
    history: AsyncMutex<Vec<Value>>,
    cancel: Notify,
}

impl Adapter {
    fn reply(&self, id: &Value, result: &Value) {
        let _ = self
            .out
            .send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    fn fail(&self, id: &Value, code: i64, message: &str) {
        let _ = self
            .out
            .send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}));
    }

    fn handle(self: Arc<Self>, message: &Value) {
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        match (method, id) {
            ("initialize", Some(id)) => self.reply(
                &id,
                &json!({
                    "protocolVersion": super::ACP_VERSION,
                    "agentCapabilities": {"promptCapabilities": {"embeddedContext": true}},
                    "authMethods": [],
                    "agentInfo": {"name": format!("radium command adapter ({})", self.agent.id)},
                }),
            ),
            ("session/new", Some(id)) => self.reply(&id, &json!({"sessionId": "command"})),
            ("session/prompt", Some(id)) => {
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                tokio::spawn(async move { self.turn(id, &params).await });
            }
            ("session/cancel", None) => self.cancel.notify_waiters(),
            (_, Some(id)) => self.fail(&id, -32601, &format!("method not found: `{method}`")),
            (_, None) => {}
        }
    }

    async fn turn(&self, id: Value, params: &Value) {
        let blocks = params
            .get("prompt")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let text: Vec<&str> = blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        let prompt = text.join("\n");
        let context: Vec<Value> = blocks
            .iter()
            .filter(|b| b["type"] == "resource")
            .map(|b| json!({"uri": b["resource"]["uri"], "text": b["resource"]["text"]}))
            .collect();
        let mut history = self.history.lock().await;
        let mut messages = history.clone();
        messages.push(json!({"role": "user", "content": prompt}));
        let input = json!({"agent": self.agent.id, "prompt": prompt, "context": context, "messages": messages});
        let spec = process_spec(&self.agent, &self.workspace);
        let mut spawned = match spawn_process(&spec) {
            Ok(s) => s,
            Err(e) => return self.fail(&id, -32000, &e),
        };
        let cancelled = self.cancel.notified();
        let mut stdin = spawned.stdin;
        let body = input.to_string();
        tokio::spawn(async move {
            let _ = stdin.write_all(body.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
        let mut stderr = spawned.stderr;
        let errors = tokio::spawn(async move {
            let mut all = Vec::new();
            let _ = (&mut stderr).take(64 << 10).read_to_end(&mut all).await;
            String::from_utf8_lossy(&all).trim().to_owned()
        });
        let mut stdout = spawned.stdout;
        let mut answer = Vec::new();
        let mut chunk = vec![0u8; 4096];
        let mut cancelled = std::pin::pin!(cancelled);
        let mut pending = Vec::new();
        loop {
            tokio::select! {
                read = stdout.read(&mut chunk) => match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        answer.extend_from_slice(&chunk[..n]);
                        pending.extend_from_slice(&chunk[..n]);
                        // Send whole characters only: a chunk may end inside one.
                        let cut = match std::str::from_utf8(&pending) {
                            Ok(_) => pending.len(),
                            Err(e) => e.valid_up_to(),
                        };
                        let text = String::from_utf8_lossy(&pending[..cut]).into_owned();
                        pending.drain(..cut);
                        self.chunk(&text);
                    }
                },
                () = &mut cancelled => {
                    drop(spawned.guard);
                    return self.reply(&id, &json!({"stopReason": "cancelled"}));
                }
            }
        }
        if !pending.is_empty() {
            self.chunk(&String::from_utf8_lossy(&pending));
        }
        let status = spawned.guard.wait().await;
        let stderr = errors.await.unwrap_or_default();
        match status.map(|s| s.code()) {
            Ok(Some(0)) => {
                history.push(json!({"role": "user", "content": prompt}));
                history.push(
                    json!({"role": "assistant", "content": String::from_utf8_lossy(&answer)}),
                );
                self.reply(&id, &json!({"stopReason": "end_turn"}));
            }
            Ok(code) => {
                let how = code.map_or_else(
                    || "was killed by a signal".to_owned(),
                    |c| format!("exited with code {c}"),
                );
                let tail = last_lines(&stderr, 5);
                self.fail(
                    &id,
                    -32000,
                    &format!("`{}` {how}: {tail}", spec.program.display()),
                );
            }
            Err(e) => self.fail(&id, -32000, &format!("waiting for the agent failed: {e}")),
        }
    }

    fn chunk(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        let _ = self.out.send(json!({
            "jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": "command", "update": {
                "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text},
            }},
        }));
    }
}
