//! One agent session: an ACP agent process, its conversation, and the turn
//! that streams. Opened by [`AgentSession::open`], prompted by
//! [`AgentSession::prompt`] (events arrive on a channel while the turn runs),
//! stopped by [`AgentSession::cancel`] and ended by [`AgentSession::close`],
//! which kills the agent's whole process group.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::oneshot;

use super::history::Earlier;
use super::hunks::Proposed;
use super::rpc::{Connection, RpcError};
use crate::agents::config::{AgentConfig, AgentProtocol};
use crate::error::{Error, Result};
use crate::hooks::registry::HookRegistry;
pub(crate) use crate::support::lock::unpoisoned as lock;
use crate::support::log::{Level, Log};
use crate::support::process::{spawn_process, ProcessGuard, ProcessSpec};

/// The ACP version radium speaks.
pub const ACP_VERSION: u64 = 1;

/// How long a permission request waits for the door before it is rejected,
/// unless the agent's `permission_timeout` says otherwise.
pub const PERMISSION_TIMEOUT: Duration = crate::agents::config::DEFAULT_PERMISSION_TIMEOUT;

/// A door's answer to a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// Allow (the agent's `allow_once` option, else its first allowing one).
    Allow,
    /// Reject (its `reject_once` option, else its first rejecting one).
    Reject,
    /// One of the request's options, by its exact id; its `kind` decides
    /// whether it allows.
    Option(String),
}

/// A door's answer as the permission request gets it: the answer, and the
/// reviewed changes with the hunks kept (empty: all of them); `None`: the
/// turn was cancelled.
pub(crate) type Reply = Option<(PermissionAnswer, Vec<(Proposed, Vec<bool>)>)>;

/// A permission request waiting for the door.
pub(crate) struct Waiting {
    /// Where the answer goes.
    pub tx: oneshot::Sender<Reply>,
    /// The ids of the request's options that allow.
    pub allowing: Vec<String>,
    /// The changes the request proposes, with their hunks.
    pub proposed: Vec<Proposed>,
}

/// Where a session is and what it holds between messages.
#[derive(Default)]
pub(crate) struct State {
    /// The running turn's event channel (`None` between turns).
    pub sink: Option<super::subscription::Subscriber>,
    /// The running turn's text so far (at most `drive::MAX_TURN_TEXT`).
    pub text: String,
    /// How many bytes of the running turn's text were past that cap.
    pub text_dropped: usize,
    /// Permission requests waiting for the door, by event id.
    pub permissions: HashMap<String, Waiting>,
    /// Changes whose hunks the user reviewed at a permission prompt, by
    /// file: the rejected hunks are taken back from the agent's write.
    pub reviews: HashMap<PathBuf, super::hunks::Review>,
    /// The dog tag after the agent's last write.
    pub tag: Option<String>,
    /// When the agent last sent anything.
    pub last_heard: Option<Instant>,
    /// Why the agent's connection ended, once it has.
    pub closed: Option<String>,
    /// Unsaved editor buffers by absolute path, served to `fs/read_text_file`.
    pub buffers: HashMap<PathBuf, String>,
    /// Counter for permission event ids.
    pub next_permission: u64,
    /// Tool calls of the running turn, with the files they may change.
    pub watched: HashMap<String, super::tools::Watched>,
    /// How much text the snapshots of `watched` hold now.
    pub snapshot_bytes: Arc<std::sync::atomic::AtomicUsize>,
    /// Files of the running turn radium did not read before a tool call
    /// (too large), each said once.
    pub skipped: Vec<PathBuf>,
    /// `after_tool` hooks still running.
    pub tool_hooks: Vec<tokio::task::JoinHandle<()>>,
    /// When the running turn's first text or thought chunk came.
    pub first_chunk: Option<Instant>,
    /// Whether a tool call came since the last text chunk.
    pub tool_since_text: bool,
    /// Whether the agent got radium's MCP server, which writes in this
    /// session's conversation too.
    pub shares_conversation: bool,
    /// What notices a stale answer after a cancel.
    pub stale: super::resync::StaleWatch,
    /// The agent's modes and config options (see `options`).
    pub controls: super::options::Controls,
    /// Notices of the start (MCP servers not passed, radium's tools not
    /// offered), for `session-new`'s answer.
    pub start_notices: Vec<String>,
    /// The agent's sign-in methods (its `initialize` answer's `authMethods`).
    pub auth_methods: Value,
    /// Whether the agent takes images (`promptCapabilities.image`).
    pub takes_images: bool,
    /// The conversation's history.
    pub history: super::history::Kept,
    /// The agent's commands and usage (see `commands`).
    pub slash: super::commands::Controls,
    /// The agent's messages as it sent them (see `tap`).
    pub tap: super::tap::Tap,
}

/// An open session with an ACP agent.
pub struct AgentSession {
    /// radium's id of the session (`s1`, `s2`, ...).
    pub id: String,
    /// The agent it talks to.
    pub agent: AgentConfig,
    /// The workspace the agent works in (its writes are confined to it).
    pub workspace: PathBuf,
    pub(crate) radium_home: PathBuf,
    pub(crate) history_depth: u64,
    pub(crate) registry: HookRegistry,
    pub(crate) conn: Connection,
    /// The agent's own id of the session (set once it answers `session/new`).
    pub(crate) acp_id: OnceLock<String>,
    pub(crate) state: Mutex<State>,
    pub(crate) guard: Mutex<Option<ProcessGuard>>,
    /// The engine's log: the agent's start, end and stderr.
    pub(crate) log: Arc<Log>,
    /// Claude Code's `PreToolUse` relay (see `pre_tool`), while open.
    pub(crate) relay: Mutex<Option<super::pre_tool::Relay>>,
}

/// What opening needs besides the agent.
pub struct SessionSetup {
    /// radium's id for the session.
    pub id: String,
    /// The workspace.
    pub workspace: PathBuf,
    /// `$RADIUM_HOME` (the edit history of the agent's writes lives there).
    pub radium_home: PathBuf,
    /// The history depth of those edits.
    pub history_depth: u64,
    /// The hooks that run around the agent.
    pub registry: HookRegistry,
    /// `rad`, offered to the agent as radium's MCP server (`rad mcp`) when
    /// the agent's `radium_mcp` allows it; `None`: no radium tools.
    pub rad_program: Option<PathBuf>,
    /// The conversation to continue (a dog tag the door holds); `None` or
    /// a tag radium does not know: the session starts its own.
    pub tag: Option<String>,
    /// The conversation of the history to continue (see `history`).
    pub resume: Option<String>,
    /// The engine's log.
    pub log: Arc<Log>,
    /// The user's own MCP servers (`mcp.toml`), passed beside radium's.
    pub mcp: crate::agents::mcp::McpServers,
    /// Sign in first with this method of the agent's (`authenticate`; empty:
    /// its only method of type `agent`); `None`: no sign-in.
    pub sign_in: Option<String>,
    /// An ACP editor in front (`rad acp`, see `tap`); `None`: none.
    pub editor: Option<super::tap::EditorSide>,
}

impl AgentSession {
    /// Starts `agent` and opens an ACP session in the workspace. Must run on
    /// the engine's runtime.
    pub async fn open(agent: AgentConfig, mut setup: SessionSetup) -> Result<Arc<Self>> {
        let earlier = Earlier::of_setup(&mut setup, &agent.id)?;
        let Some(program) = agent.command.first() else {
            return Err(Error::AgentFailed(format!(
                "agent `{}` has no command",
                agent.id
            )));
        };
        let (conn, incoming, guard) = if agent.protocol == AgentProtocol::Command {
            // One process a turn: radium's adapter speaks ACP for it. A
            // program that cannot be found is said now, not at the first turn.
            if !super::command::runnable(program, &setup.workspace) {
                return Err(Error::AgentFailed(format!(
                    "agent `{}`: cannot run `{program}`: no such program",
                    agent.id
                )));
            }
            let (to_agent, from_agent) =
                super::command::start(agent.clone(), setup.workspace.clone());
            let (conn, incoming) =
                Connection::start(to_agent, from_agent, None::<tokio::io::Empty>, None);
            (conn, incoming, None)
        } else {
            let spec = process_spec(&agent, &setup.workspace);
            let spawned = spawn_process(&spec)
                .map_err(|e| Error::AgentFailed(format!("agent `{}`: {e}", agent.id)))?;
            let (conn, incoming) = Connection::start(
                spawned.stdin,
                spawned.stdout,
                Some(spawned.stderr),
                Some((
                    Arc::clone(&setup.log),
                    format!("{} ({})", setup.id, agent.id),
                )),
            );
            (conn, incoming, Some(spawned.guard))
        };
        let rad = setup
            .rad_program
            .filter(|_| agent.protocol == AgentProtocol::Acp);
        let session = Arc::new(AgentSession {
            id: setup.id,
            agent,
            workspace: setup.workspace,
            radium_home: setup.radium_home,
            history_depth: setup.history_depth,
            registry: setup.registry,
            conn,
            acp_id: OnceLock::new(),
            state: Mutex::new(State::default()),
            guard: Mutex::new(guard),
            log: setup.log,
            relay: Mutex::new(None),
        });
        tokio::spawn(super::drive::drive(Arc::downgrade(&session), incoming));
        session.join_conversation(setup.tag).await;
        let init = session
            .call_within_start(
                "initialize",
                json!({
                    "protocolVersion": ACP_VERSION,
                    "clientCapabilities": {
                        "fs": {"readTextFile": true, "writeTextFile": true},
                        "terminal": false,
                        // Claude's adapter then sends a command's output
                        // and exit code in `_meta` (see `output`).
                        "_meta": {"terminal_output": true},
                    },
                    "clientInfo": {"name": "radium", "version": env!("CARGO_PKG_VERSION")},
                }),
            )
            .await?;
        session.keep_opened("initialize", &init);
        let version = init.get("protocolVersion").and_then(Value::as_u64);
        if version != Some(ACP_VERSION) {
            session.close();
            return Err(Error::AgentFailed(format!(
                "agent `{}` speaks ACP version {}, radium speaks {ACP_VERSION}",
                session.agent.id,
                version.map_or_else(|| "(none)".to_owned(), |v| v.to_string())
            )));
        }
        session.keep_auth_methods(&init);
        if let Some(method) = &setup.sign_in {
            session.authenticate(method).await?;
        }
        let editor_mcp = setup.editor.as_ref().map_or(&[][..], |e| &e.mcp[..]);
        let servers = session.offered_mcp_servers(rad.clone(), &init, &setup.mcp, editor_mcp);
        session.install_editor_side(setup.editor.take());
        let started = session
            .start_conversation(&init, rad.clone(), servers.clone(), earlier)
            .await;
        if let Err(e) = started {
            if session.wait_for_sign_in(&init, rad, servers) {
                return Ok(session);
            }
            return Err(e);
        }
        session.log.write(
            Level::Info,
            "session",
            format!(
                "{}: agent `{}` ({}) started in {}{}",
                session.id,
                session.agent.id,
                session.agent.command.join(" "),
                session.workspace.display(),
                session
                    .tag()
                    .map(|t| format!(", tag {t}"))
                    .unwrap_or_default()
            ),
        );
        Ok(session)
    }

    /// A request during start, under the agent's start time limit.
    pub(crate) async fn call_within_start(&self, method: &str, params: Value) -> Result<Value> {
        let answer = self.conn.request(method, &params);
        let limit = self.agent.start_timeout;
        let outcome = match tokio::time::timeout(limit, answer).await {
            Err(_) => Err(Error::AgentTimeout(format!(
                "agent `{}` did not answer `{method}` within {} ms{}",
                self.agent.id,
                limit.as_millis(),
                self.start_context()
            ))),
            Ok(Err(_)) => Err(self.ended(&format!("before answering `{method}`"))),
            Ok(Ok(Err(e))) => {
                self.settle_stderr().await;
                Err(Error::AgentFailed(self.refused(method, &e)))
            }
            Ok(Ok(Ok(result))) => Ok(result),
        };
        if let Err(e) = &outcome {
            self.log.write(
                Level::Warn,
                "session",
                format!("{}: agent `{}` did not start: {e}", self.id, self.agent.id),
            );
            if !self.waits_for_sign_in() {
                self.close();
            }
        }
        outcome
    }

    /// The error for an agent whose connection ended `when`, with the tail of its stderr.
    pub(crate) fn ended(&self, when: &str) -> Error {
        // Give the process a moment to be reaped, for its exit code.
        let status = lock(&self.guard).as_mut().and_then(ProcessGuard::exited);
        let how = match status.map(|s| s.code()) {
            Some(Some(c)) => format!("exited with code {c}"),
            Some(None) => "was killed by a signal".to_owned(),
            None => "closed its output".to_owned(),
        };
        let tail = self.conn.stderr_tail();
        let tail = if tail.is_empty() {
            String::new()
        } else {
            format!("; its stderr ended with:\n{}", last_lines(&tail, 5))
        };
        Error::AgentFailed(format!("agent `{}` {how} {when}{tail}", self.agent.id))
    }

    /// The agent's session id.
    pub fn acp_session_id(&self) -> String {
        self.acp_id.get().cloned().unwrap_or_default()
    }

    /// The dog tag after the agent's last write (pass it to `undo`).
    pub fn tag(&self) -> Option<String> {
        lock(&self.state).tag.clone()
    }

    /// Whether the session has ended (closed, or its agent gone).
    pub fn has_ended(&self) -> bool {
        lock(&self.state).closed.is_some()
    }

    /// Whether a turn is running.
    pub fn busy(&self) -> bool {
        lock(&self.state).sink.is_some()
    }

    /// Sets (or, with `None`, forgets) an unsaved buffer the agent reads
    /// instead of the file on disk. The path must be inside the workspace.
    pub fn set_buffer(&self, path: &str, text: Option<String>) -> Result<()> {
        let project = self.project()?;
        let file = project.confine(path)?;
        let mut state = lock(&self.state);
        match text {
            Some(text) => state.buffers.insert(file, text),
            None => state.buffers.remove(&file),
        };
        Ok(())
    }

    /// Answers permission request `id` (from a `permission` event). Answers
    /// whether it was still waiting.
    pub fn answer_permission(&self, id: &str, answer: PermissionAnswer) -> bool {
        let waiting = lock(&self.state).permissions.remove(id);
        waiting.is_some_and(|w| w.tx.send(Some((answer, Vec::new()))).is_ok())
    }

    /// Answers permission request `id` allowing it with only some hunks of
    /// its diffs: `kept` names, by the diff's `path` as the event showed
    /// it, the indices of the hunks the user kept (a path not named keeps
    /// all its hunks). The rejected hunks are taken back from the agent's
    /// write. Fails (and the request keeps waiting) when a path is not one
    /// of the request's diffs, an index is past its hunks, or the answer
    /// does not allow; answers whether it was still waiting.
    pub fn answer_permission_with_hunks(
        &self,
        id: &str,
        answer: PermissionAnswer,
        kept: &HashMap<String, Vec<usize>>,
    ) -> Result<bool> {
        let mut state = lock(&self.state);
        let Some(waiting) = state.permissions.get(id) else {
            return Ok(false);
        };
        let allows = match &answer {
            PermissionAnswer::Allow => !waiting.allowing.is_empty(),
            PermissionAnswer::Reject => false,
            PermissionAnswer::Option(o) => waiting.allowing.contains(o),
        };
        if !allows {
            return Err(Error::InvalidArgument(
                "`hunks` go with an answer that allows the call (`allow` or an option of kind allow_once/allow_always): a rejected call writes no hunk".into(),
            ));
        }
        let reviewed = super::hunks::check_kept(&waiting.proposed, kept)?;
        let Some(waiting) = state.permissions.remove(id) else {
            return Ok(false);
        };
        drop(state);
        Ok(waiting.tx.send(Some((answer, reviewed))).is_ok())
    }

    /// Cancels the running turn: the agent is told, and every permission
    /// request still waiting is answered `cancelled`. The turn then ends with
    /// `stop_reason: "cancelled"` (or ends however the agent ends it).
    pub fn cancel(&self) {
        let waiting: Vec<_> = {
            let mut state = lock(&self.state);
            if state.sink.is_some() {
                state.stale.cancelled = true;
            }
            state.permissions.drain().collect()
        };
        for (_, w) in waiting {
            let _ = w.tx.send(None);
        }
        self.conn.notify(
            "session/cancel",
            &json!({"sessionId": self.acp_session_id()}),
        );
    }

    /// Ends the session: the agent's whole process group is killed (some
    /// agents ignore the end of their input).
    pub fn close(&self) {
        self.cancel();
        let guard = lock(&self.guard).take();
        drop(guard);
        drop(lock(&self.relay).take());
        let mut state = lock(&self.state);
        // The conversation is free for another session to resume.
        state.history.held = None;
        if state.closed.is_none() {
            state.closed = Some("the session was closed".into());
            self.log
                .write(Level::Info, "session", format!("{}: closed", self.id));
        }
        if let Some(sink) = state.sink.take() {
            let _ = sink.give(
                json!({"type": "error", "code": "cancelled", "message": "the session was closed"}),
            );
            sink.close();
        }
    }
}

impl Drop for AgentSession {
    fn drop(&mut self) {
        drop(lock(&self.guard).take());
    }
}

/// How `agent`'s program runs in `workspace`: its arguments, its `env`
/// added to the inherited environment, its output not capped.
pub(crate) fn process_spec(agent: &AgentConfig, workspace: &Path) -> ProcessSpec {
    ProcessSpec {
        program: PathBuf::from(agent.command.first().cloned().unwrap_or_default()),
        args: agent.command.iter().skip(1).cloned().collect(),
        cwd: Some(workspace.to_owned()),
        env: agent
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        max_output: 0,
    }
}

/// The last `n` lines of `text`, for error messages.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let last: Vec<&str> = text.lines().rev().take(n).collect();
    last.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// The JSON-RPC error for a request radium does not serve.
pub(crate) fn method_not_found(method: &str) -> RpcError {
    RpcError {
        code: -32601,
        message: format!("method not found: `{method}` (radium does not offer it)"),
        data: None,
    }
}
