//! `rad acp <agent>`: radium between an editor that speaks the Agent Client
//! Protocol (Zed, JetBrains IDEs, Emacs agent-shell, codecompanion.nvim,
//! avante.nvim) and an ACP agent. To the editor, on stdio, radium is the
//! agent; to the agent, radium is the client it already is in its sessions
//! part (`radium_core::sessions`): the agent's writes are recorded edits,
//! its permission requests go through radium's rules and `before_tool`
//! hooks before the editor's prompt, `rad mcp` is among its MCP servers.
//!
//! Parts: `wire` (the editor's JSON-RPC lines), `stdout` (their writer),
//! `conversation` (one session relayed: the agent's messages as it sent
//! them, its turns as the editor's prompts' answers), `slash` (radium's own
//! commands, answered without the agent), `list` (`rad acp --list`: each
//! editor's setting).
//! It uses the engine's public API only (`Engine`, `AgentSession` and its
//! tap), never a second ACP client.

mod conversation;
pub mod list;
mod slash;
mod stdout;
mod timing;
mod wire;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use radium_core::sessions::AgentSession;
use radium_core::{Engine, EngineConfig};
use serde_json::{json, Value};

use conversation::Conversation;
use wire::{Editor, FromEditor};

/// A mutex's guard, a poisoned one too.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A JSON-RPC error object.
fn error(code: i64, message: impl Into<String>) -> Value {
    json!({"code": code, "message": message.into()})
}

/// The proxy's state between the editor's messages.
struct Proxy {
    engine: Engine,
    agent: String,
    workspace: PathBuf,
    editor: Editor,
    /// The session opened at `initialize`, until a `session/new` takes it.
    spare: Option<Arc<AgentSession>>,
    /// The first session's agent: requests of no known session go to it.
    primary: Option<Arc<AgentSession>>,
    /// The conversations by their session id.
    conversations: HashMap<String, Arc<Conversation>>,
    /// Whether the editor offered `fs.readTextFile` (its unsaved buffers).
    editor_reads: bool,
}

/// Runs `rad acp <agent>` in `workspace` until the editor closes stdin;
/// answers the exit code.
pub fn run(agent: &str, workspace: &Path) -> u8 {
    let engine = match Engine::new(EngineConfig {
        workspace: Some(workspace.to_owned()),
        // The agent gets this very `rad` as radium's MCP server.
        rad_program: std::env::current_exe().ok(),
        ..EngineConfig::default()
    }) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("rad acp: {e}");
            return 1;
        }
    };
    // The relay runs on the engine's runtime, where the agent's messages
    // are read: one of them goes from the agent's reader to the editor's
    // writer without waking another thread.
    let runtime = match engine.registry().runtime_handle() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("rad acp: cannot start: {e}");
            return 1;
        }
    };
    let proxy = runtime.block_on(async {
        let (editor, writer) = Editor::start();
        let mut lines = wire::read_stdin();
        let mut proxy = Proxy {
            engine,
            agent: agent.to_owned(),
            workspace: workspace.to_owned(),
            editor,
            spare: None,
            primary: None,
            conversations: HashMap::new(),
            editor_reads: false,
        };
        while let Some(line) = lines.recv().await {
            proxy.take(line).await;
        }
        // The editor closed stdin: every agent's process group ends, the
        // way an agent that keeps its sessions needs to load them later
        // (`session/close` when offered, then SIGTERM and a moment).
        let mut ending = tokio::task::JoinSet::new();
        let sessions = proxy.conversations.values().map(|c| &c.session);
        let mut seen: Vec<Arc<AgentSession>> = Vec::new();
        for session in sessions
            .chain(proxy.spare.iter())
            .chain(proxy.primary.iter())
        {
            if !seen.iter().any(|s| Arc::ptr_eq(s, session)) {
                seen.push(Arc::clone(session));
                let session = Arc::clone(session);
                ending.spawn(async move { session.finish().await });
            }
        }
        while ending.join_next().await.is_some() {}
        proxy.editor.fail_pending();
        proxy.editor.close();
        let _ = writer.await;
        proxy
    });
    // The engine (and its runtime) ends here, outside the runtime.
    drop(proxy);
    timing::report();
    0
}

/// The text of a request's `params` as the editor sent it (`None`: none).
fn raw_params(text: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Parts<'a> {
        #[serde(borrow)]
        params: Option<&'a serde_json::value::RawValue>,
    }
    let parts: Parts<'_> = serde_json::from_str(text).ok()?;
    parts.params.map(|p| p.get().to_owned())
}

impl Proxy {
    /// Handles one line of the editor's.
    async fn take(&mut self, line: FromEditor) {
        let message = match line {
            FromEditor::TooLong(n) => {
                let message = format!(
                    "radium: a line of {n} bytes or more is over the {} MiB limit (skipped)",
                    wire::MAX_LINE >> 20
                );
                return self
                    .editor
                    .answer(&Value::Null, Err(error(-32700, message)));
            }
            FromEditor::Message(Err(e)) => {
                let message = format!("radium: the line is not JSON: {e}");
                return self
                    .editor
                    .answer(&Value::Null, Err(error(-32700, message)));
            }
            FromEditor::Message(Ok(message)) => message,
        };
        let (mut message, text) = message;
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                let method = method.to_owned();
                let params = message.get_mut("params").map_or(Value::Null, Value::take);
                self.request(&id, &method, params, &text).await;
            }
            (Some(method), None) => {
                let params = message.get("params").unwrap_or(&Value::Null);
                self.notification(method, params, &text);
            }
            (None, Some(_))
                if message.get("result").is_some() || message.get("error").is_some() =>
            {
                if !self.editor.resolve(&message) {
                    eprintln!("rad acp: the editor answered a request radium never sent (ignored): {message}");
                }
            }
            (None, id) => self.editor.answer(
                &id.unwrap_or(Value::Null),
                Err(error(
                    -32600,
                    "radium: not a JSON-RPC request, notification or answer",
                )),
            ),
        }
    }

    /// The conversation a message's `sessionId` names.
    fn conversation(&self, params: &Value) -> Option<Arc<Conversation>> {
        let id = params.get("sessionId").and_then(Value::as_str)?;
        self.conversations.get(id).cloned()
    }

    /// Opens a radium session with the agent in `cwd`, with the editor's
    /// MCP servers `mcp`.
    async fn open(&self, cwd: &Path, mcp: Vec<Value>) -> Result<Arc<AgentSession>, Value> {
        self.engine
            .open_session_for_editor(&self.agent, Some(cwd), mcp)
            .await
            .map(|entry| entry.session)
            .map_err(|e| error(-32603, format!("radium: {e}")))
    }

    /// Handles one request of the editor's (`text`: its line as sent).
    async fn request(&mut self, id: &Value, method: &str, params: Value, text: &str) {
        match method {
            "initialize" => {
                self.editor_reads = params
                    .pointer("/clientCapabilities/fs/readTextFile")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let answer = self.initialize().await;
                self.editor.answer(id, answer);
            }
            "session/new" | "session/load" | "session/resume"
                if method != "session/resume" || self.agent_resumes() =>
            {
                let answer = if method == "session/new" {
                    self.new_session(&params).await
                } else {
                    self.load_session(&params, method == "session/load").await
                };
                let conversation = answer.as_ref().ok().and_then(|a| {
                    let id = a["sessionId"].as_str().or(params["sessionId"].as_str())?;
                    self.conversations.get(id).cloned()
                });
                self.editor.answer(id, answer);
                if let Some(c) = conversation {
                    let update = json!({
                        "sessionUpdate": "available_commands_update",
                        "availableCommands": c.commands(),
                    });
                    self.editor.notify(
                        "session/update",
                        &json!({"sessionId": c.id(), "update": update}),
                    );
                }
            }
            "session/prompt" if self.conversation(&params).is_some() => {
                let conversation = self.conversation(&params).unwrap_or_else(|| unreachable!());
                self.prompt(id, &conversation, &params).await;
            }
            _ => {
                // Everything else passes through to the agent as it is.
                let session = self
                    .conversation(&params)
                    .map(|c| Arc::clone(&c.session))
                    .or_else(|| self.primary.clone());
                let Some(session) = session else {
                    let message = format!("radium: `{method}` before `initialize`");
                    return self.editor.answer(id, Err(error(-32002, message)));
                };
                // Its params go byte for byte; only its id is radium's.
                let raw = raw_params(text);
                let (editor, id, method) = (self.editor.clone(), id.clone(), method.to_owned());
                tokio::spawn(async move {
                    match raw {
                        Some(raw) => {
                            let answer = session.agent_request_raw(&method, &raw).await;
                            editor.answer_raw(&id, answer);
                        }
                        None => editor.answer(&id, session.agent_request(&method, &params).await),
                    }
                });
            }
        }
    }

    /// Handles one notification of the editor's: passed on as its line
    /// `text`, byte for byte (but `session/cancel`, radium's to do).
    fn notification(&self, method: &str, params: &Value, text: &str) {
        if let Some(conversation) = self.conversation(params) {
            if method == "session/cancel" {
                conversation.session.cancel();
            } else {
                conversation.session.agent_send_line(text);
            }
        } else if let Some(session) = &self.primary {
            session.agent_send_line(text);
        }
    }

    /// `initialize`: the agent started (its session opened), its answer
    /// passed back with radium's `_meta`.
    async fn initialize(&mut self) -> Result<Value, Value> {
        if self.primary.is_none() {
            let session = self.open(&self.workspace.clone(), Vec::new()).await?;
            conversation::relay_loose(&session, self.editor.clone());
            self.primary = Some(Arc::clone(&session));
            self.spare = Some(session);
        }
        let session = self.primary.as_ref().unwrap_or_else(|| unreachable!());
        let mut answer = session.opened()["initialize"].clone();
        if !answer.is_object() {
            answer = json!({"protocolVersion": 1});
        }
        answer["_meta"]["radium"] = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "commands": slash::COMMANDS.iter().map(|(n, _, _)| format!("/{n}")).collect::<Vec<_>>(),
        });
        Ok(answer)
    }

    /// `session/new`: the session opened at `initialize` when it is in the
    /// same folder and the editor passes no MCP server, else a new one
    /// (with the editor's MCP servers); its answer is the agent's.
    async fn new_session(&mut self, params: &Value) -> Result<Value, Value> {
        let cwd = params
            .get("cwd")
            .and_then(Value::as_str)
            .map_or_else(|| self.workspace.clone(), PathBuf::from);
        let mcp: Vec<Value> = params["mcpServers"].as_array().cloned().unwrap_or_default();
        let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
        let session = match self.spare.take() {
            // The agent got no MCP server of the editor's when it opened.
            Some(s) if same(&s.workspace, &cwd) && mcp.is_empty() => s,
            spare => {
                if let Some(s) = spare {
                    if self.primary.as_ref().is_some_and(|p| Arc::ptr_eq(p, &s)) {
                        self.primary = None;
                    }
                    s.close();
                }
                let s = self.open(&cwd, mcp).await?;
                self.primary.get_or_insert_with(|| Arc::clone(&s));
                s
            }
        };
        if session.awaiting_sign_in() {
            // The agent refused its session until the user signs in: the
            // editor's `authenticate` went to it; ask again.
            if let Err(e) = session.start_after_sign_in().await {
                let code = if session.awaiting_sign_in() {
                    radium_core::sessions::AUTH_REQUIRED
                } else {
                    -32603
                };
                self.spare = Some(session);
                return Err(error(code, format!("radium: {e}")));
            }
        }
        session.read_through_tap(self.editor_reads);
        let conversation = Conversation::start(Arc::clone(&session), self.editor.clone());
        self.conversations
            .insert(conversation.id(), Arc::clone(&conversation));
        Ok(session.opened()["session"].clone())
    }

    /// Whether the agent offers `session/resume` (its `initialize` answer's
    /// `sessionCapabilities.resume`).
    fn agent_resumes(&self) -> bool {
        self.primary.as_ref().is_some_and(|p| {
            p.opened()
                .pointer("/initialize/agentCapabilities/sessionCapabilities/resume")
                .is_some_and(|c| !c.is_null())
        })
    }

    /// `session/load` (`load`) or `session/resume`: a radium session that
    /// takes up the agent's session (the same method to the agent; a
    /// load's replay reaches the editor); its answer is the agent's.
    async fn load_session(&mut self, params: &Value, load: bool) -> Result<Value, Value> {
        let method = if load {
            "session/load"
        } else {
            "session/resume"
        };
        let Some(id) = params["sessionId"].as_str().filter(|id| !id.is_empty()) else {
            return Err(error(
                -32602,
                format!("radium: `{method}` without a sessionId"),
            ));
        };
        let cwd = params
            .get("cwd")
            .and_then(Value::as_str)
            .map_or_else(|| self.workspace.clone(), PathBuf::from);
        let mcp: Vec<Value> = params["mcpServers"].as_array().cloned().unwrap_or_default();
        // The tap listens from the start: the agent's replay comes on it,
        // passed to the editor while the session opens and before its
        // answer (the order of ACP's `session/load`), never held.
        let (senders, (mut tap, unserved)) = radium_core::sessions::tap::tap_channels();
        let e = &self.engine;
        let opening = async {
            if load {
                e.load_session_for_editor(&self.agent, Some(&cwd), mcp, id, senders)
                    .await
            } else {
                e.resume_session_for_editor(&self.agent, Some(&cwd), mcp, id, senders)
                    .await
            }
        };
        tokio::pin!(opening);
        let mut asked = HashMap::new();
        let opened = loop {
            tokio::select! {
                biased;
                Some(message) = tap.recv() => {
                    conversation::forward(&self.editor, message, &mut asked).await;
                }
                opened = &mut opening => break opened,
            }
        };
        while let Ok(message) = tap.try_recv() {
            conversation::forward(&self.editor, message, &mut asked).await;
        }
        let receivers = (tap, unserved);
        let session = opened
            .map(|entry| entry.session)
            .map_err(|e| error(-32603, format!("radium: {e}")))?;
        session.read_through_tap(self.editor_reads);
        self.primary.get_or_insert_with(|| Arc::clone(&session));
        let conversation = Conversation::start_with(session, self.editor.clone(), receivers);
        self.conversations
            .insert(conversation.id(), Arc::clone(&conversation));
        Ok(conversation.session.opened()["session"].clone())
    }

    /// `session/prompt`: radium's command answered here, else a turn.
    async fn prompt(&self, id: &Value, conversation: &Arc<Conversation>, params: &Value) {
        let blocks: Vec<Value> = params["prompt"].as_array().cloned().unwrap_or_default();
        let text: String = blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        if let Some((name, arg)) = slash::parse(&text) {
            if conversation.session.busy() {
                let message = "radium: a turn is running; cancel it or wait for its end";
                return self.editor.answer(id, Err(error(-32603, message)));
            }
            let said = slash::answer(&self.engine, conversation, name, arg).await;
            let update = json!({
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": said},
            });
            self.editor.notify(
                "session/update",
                &json!({"sessionId": conversation.id(), "update": update}),
            );
            return self
                .editor
                .answer(id, Ok(json!({"stopReason": "end_turn"})));
        }
        // The editor's `_meta` goes to the agent as it sent it.
        conversation
            .session
            .set_prompt_meta(params.get("_meta").cloned());
        match conversation.session.prompt(blocks) {
            Ok(events) => {
                let _ = conversation.turns.send((id.clone(), text, events));
            }
            Err(e) => self
                .editor
                .answer(id, Err(error(-32603, format!("radium: {e}")))),
        }
    }
}
