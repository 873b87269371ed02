//! The conversation history: every conversation with an agent kept per
//! project (see [`store`] for the files and their bounds), listed and read
//! by the doors (`history-list`, `history-read`), and resumed: a session
//! opened with a conversation id continues it. An agent whose `initialize`
//! offers `sessionCapabilities.resume` gets `session/resume` (nothing
//! replayed); else one with `loadSession: true` gets `session/load` (its
//! replay is not passed on: the history already shows those turns); else a
//! new session starts and the earlier turns go with the first prompt as
//! context, which a `notice` says.

pub mod read;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::session::{lock, AgentSession, State};
use crate::edit::Project;
use crate::error::{Error, Result};
use crate::support::log::Level;
pub use read::{earlier_context, list, read, MAX_EARLIER_CONTEXT};
pub use store::{Recorder, MAX_CONVERSATIONS, MAX_CONVERSATION_FILE, MAX_RECORD};

/// The conversations folder of the project at `workspace`.
pub fn folder_of(workspace: &Path, radium_home: &Path) -> Result<PathBuf> {
    Ok(store::folder(
        &Project::open(workspace, radium_home)?.state_dir,
    ))
}

/// A conversation a session continues.
pub struct Earlier {
    /// Its id.
    pub id: String,
    /// The agent it was held with.
    pub agent: String,
    /// The agent's own id of its session, last known.
    pub acp_session: String,
    /// Its turns (see [`read::turns`]).
    pub turns: Vec<Value>,
    /// Its file's lock, held while a session owns it (see [`store::hold`]).
    held: Option<std::fs::File>,
    /// Whether it is one of the agent's own sessions that radium's history
    /// does not hold (`resume: "agent:<id>"`): a new conversation records it.
    pub foreign: bool,
}

impl Earlier {
    /// Reads conversation `id` of the project at `workspace`.
    pub fn load(workspace: &Path, radium_home: &Path, id: &str) -> Result<Self> {
        let folder = folder_of(workspace, radium_home)?;
        let read = read::read(&folder, id)?;
        let c = &read["conversation"];
        Ok(Earlier {
            id: id.to_owned(),
            agent: c["agent"].as_str().unwrap_or("").to_owned(),
            acp_session: c["acp_session"].as_str().unwrap_or("").to_owned(),
            turns: read["turns"].as_array().cloned().unwrap_or_default(),
            held: None,
            foreign: false,
        })
    }

    /// [`load`](Self::load), with the conversation's lock taken (see
    /// [`store::hold`]): an error when another session owns it.
    pub(crate) fn load_held(workspace: &Path, radium_home: &Path, id: &str) -> Result<Self> {
        let folder = folder_of(workspace, radium_home)?;
        // Said before the conversation is read (and an id that names none
        // is said by the read).
        let held = match store::hold(&folder, id) {
            Err(Error::Io { .. }) => None,
            other => Some(other?),
        };
        let mut earlier = Self::load(workspace, radium_home, id)?;
        earlier.held = held;
        Ok(earlier)
    }

    /// The conversation `setup` resumes, read; the session then continues
    /// its dog-tag conversation (unless `setup` names another tag).
    pub(crate) fn of_setup(setup: &mut super::SessionSetup, agent: &str) -> Result<Option<Self>> {
        let Some(id) = setup.resume.as_deref() else {
            return Ok(None);
        };
        if let Some(acp) = super::agent_list::agent_session_of(id)? {
            return Ok(Some(Earlier {
                id: String::new(),
                agent: agent.to_owned(),
                acp_session: acp.to_owned(),
                turns: Vec::new(),
                held: None,
                foreign: true,
            }));
        }
        let earlier = Self::load_held(&setup.workspace, &setup.radium_home, id)?;
        setup.tag = setup.tag.take().or_else(|| earlier.tag());
        Ok(Some(earlier))
    }

    /// Where its files are now (its last turn's tag).
    pub fn tag(&self) -> Option<String> {
        read::last_tag(&self.turns)
    }
}

/// What a session keeps of its conversation's history.
#[derive(Default)]
pub(crate) struct Kept {
    /// The file the turns are written to (`None` when it cannot be).
    pub recorder: Option<Recorder>,
    /// The conversation's id.
    pub conversation: Option<String>,
    /// How the agent came back to an earlier conversation: `resume`,
    /// `load` or `context`.
    pub resumed: Option<&'static str>,
    /// The earlier turns, for the first prompt of a conversation the
    /// agent could not resume.
    pub earlier: Option<String>,
    /// Whether a `session/load` is replaying (its updates are not passed on).
    pub replaying: bool,
    /// Why the agent refused to take up its session (`session/load` or
    /// `session/resume`: its error, one line), when it did.
    pub refused: Option<String>,
    /// Whether the agent offers `session/close` (see [`AgentSession::finish`]).
    pub can_close: bool,
    /// The conversation file's lock, held until the session closes.
    pub held: Option<std::fs::File>,
}

impl State {
    /// Writes `event` to the history; a failure stops the history of this
    /// session and answers the notice that says so.
    pub(crate) fn record(&mut self, event: &Value) -> Option<Value> {
        let recorder = self.history.recorder.as_mut()?;
        let flush = matches!(event["type"].as_str(), Some("turn_end" | "error"));
        let written = recorder
            .event(event)
            .and_then(|()| if flush { recorder.flush() } else { Ok(()) });
        written.err().map(|e| {
            self.history.recorder = None;
            json!({"type": "notice", "message": format!("the conversation history stopped: {e}")})
        })
    }
}

impl AgentSession {
    /// Opens the agent's side of the conversation after `initialize`: a
    /// new session, or `earlier`'s resumed (see the module's doc).
    pub(crate) async fn start_conversation(
        self: &Arc<Self>,
        init: &Value,
        rad: Option<PathBuf>,
        servers: Value,
        earlier: Option<Earlier>,
    ) -> Result<()> {
        let mut params = json!({"cwd": self.workspace, "mcpServers": servers});
        if let Some(options) = self.claude_hooks(init, rad.as_deref()) {
            params["_meta"] = json!({"claudeCode": {"options": options}});
        }
        {
            let mut state = lock(&self.state);
            state.stale.resume = super::resync::resume_params(init, &params);
            state.history.can_close = init
                .pointer("/agentCapabilities/sessionCapabilities/close")
                .is_some_and(|c| !c.is_null());
        }
        let mut how = None;
        if let Some(e) = earlier.as_ref() {
            if let Some((way, answer)) = self.come_back(init, &params, e).await? {
                // The resumed session's modes and options, as `session/new`'s.
                self.keep_opened("session", &answer);
                self.after_new(&answer).await;
                how = Some(way);
            } else if e.foreign {
                // No transcript of radium's to give as context instead.
                self.close();
                return Err(Error::AgentFailed(format!(
                    "agent `{}` could not take up its session `{}`: it offers neither session/resume nor session/load, or refused (see the log)",
                    self.agent.id, e.acp_session
                )));
            }
        }
        if how.is_none() {
            let new = self.call_within_start("session/new", params).await?;
            let Some(acp_id) = new.get("sessionId").and_then(Value::as_str) else {
                self.close();
                return Err(Error::AgentFailed(format!(
                    "agent `{}` answered `session/new` without a sessionId",
                    self.agent.id
                )));
            };
            let _ = self.acp_id.set(acp_id.to_owned());
            self.keep_opened("session", &new);
            self.after_new(&new).await;
        }
        self.keep_history(earlier, how);
        Ok(())
    }

    /// `session/resume` or `session/load` of `earlier`, when the agent is
    /// the same and offers one: answers which was used and the agent's answer (`None`: neither, or
    /// the agent refused it; a new session starts).
    async fn come_back(
        &self,
        init: &Value,
        params: &Value,
        earlier: &Earlier,
    ) -> Result<Option<(&'static str, Value)>> {
        let caps = init.get("agentCapabilities").unwrap_or(&Value::Null);
        let resumes = caps
            .pointer("/sessionCapabilities/resume")
            .is_some_and(|c| !c.is_null());
        let loads = caps.get("loadSession") == Some(&Value::Bool(true));
        // An editor that asked to load the session wants its replay.
        let method = match (resumes, loads, lock(&self.state).tap.front == Some(true)) {
            (_, true, true) | (false, true, _) => "session/load",
            (true, _, _) => "session/resume",
            (false, false, _) => return Ok(None),
        };
        if earlier.agent != self.agent.id || earlier.acp_session.is_empty() {
            return Ok(None);
        }
        let mut params = params.clone();
        params["sessionId"] = json!(earlier.acp_session);
        lock(&self.state).history.replaying = method == "session/load";
        let answer = self.conn.request(method, &params);
        let outcome = tokio::time::timeout(self.agent.start_timeout, answer).await;
        if method == "session/load" && matches!(outcome, Ok(Ok(Ok(_)))) {
            self.settle_replay().await;
        }
        lock(&self.state).history.replaying = false;
        match outcome {
            Ok(Ok(Ok(answer))) => {
                let _ = self.acp_id.set(earlier.acp_session.clone());
                let how = if method == "session/load" {
                    "load"
                } else {
                    "resume"
                };
                Ok(Some((how, answer)))
            }
            Ok(Ok(Err(e))) => {
                lock(&self.state).history.refused = Some(refusal(method, &e));
                self.log.write(
                    Level::Warn,
                    "session",
                    format!(
                        "{}: agent `{}` refused `{method}` ({}); a new session continues the conversation",
                        self.id, self.agent.id, e.message
                    ),
                );
                Ok(None)
            }
            Ok(Err(_)) => {
                let e = self.ended(&format!("before answering `{method}`"));
                self.close();
                Err(e)
            }
            Err(_) => {
                self.close();
                Err(Error::AgentTimeout(format!(
                    "agent `{}` did not answer `{method}` within {} ms",
                    self.agent.id,
                    self.agent.start_timeout.as_millis()
                )))
            }
        }
    }

    /// Waits, after `session/load` answered, until the agent has been quiet
    /// for [`REPLAY_QUIET`] (at most [`REPLAY_CAP`]), the replay still
    /// dropped: Gemini CLI 0.61 answers `session/load` first and streams
    /// the replay after, which would otherwise land in the next turn.
    async fn settle_replay(&self) {
        let start = Instant::now();
        loop {
            let heard = lock(&self.state).last_heard.unwrap_or(start);
            let quiet = heard.elapsed();
            if quiet >= REPLAY_QUIET || start.elapsed() >= REPLAY_CAP {
                return;
            }
            tokio::time::sleep(REPLAY_QUIET.saturating_sub(quiet)).await;
        }
    }

    /// Starts writing the history: a new conversation, or `earlier`'s.
    fn keep_history(&self, mut earlier: Option<Earlier>, how: Option<&'static str>) {
        let mut held = earlier.as_mut().and_then(|e| e.held.take());
        let acp = self.acp_session_id();
        let opened =
            folder_of(&self.workspace, &self.radium_home).and_then(|folder| match &earlier {
                Some(e) if e.foreign => {
                    let mut recorder =
                        Recorder::create(&folder, &self.agent.id, &acp, &self.workspace)?;
                    recorder.resumed(&acp, how.unwrap_or("resume"))?;
                    Ok(recorder)
                }
                Some(e) => Recorder::resume(
                    &folder,
                    &e.id,
                    e.turns.len() as u64,
                    &acp,
                    how.unwrap_or("context"),
                ),
                None => Recorder::create(&folder, &self.agent.id, &acp, &self.workspace),
            });
        let mut state = lock(&self.state);
        match opened {
            Ok(recorder) => {
                if held.is_none() {
                    // A new conversation: its lock keeps a resume elsewhere
                    // out while this session writes it.
                    held = folder_of(&self.workspace, &self.radium_home)
                        .and_then(|folder| store::hold(&folder, &recorder.id))
                        .ok();
                }
                state.history.held = held;
                state.history.conversation = Some(recorder.id.clone());
                state.history.recorder = Some(recorder);
            }
            Err(e) => {
                state.history.conversation = earlier
                    .as_ref()
                    .filter(|e| !e.foreign)
                    .map(|e| e.id.clone());
                self.log.write(
                    Level::Warn,
                    "session",
                    format!(
                        "{}: the conversation history cannot be written: {e}",
                        self.id
                    ),
                );
            }
        }
        if let Some(e) = earlier {
            let how = how.unwrap_or("context");
            state.history.resumed = Some(how);
            if how == "context" {
                state.history.earlier = earlier_context(&e.turns);
            }
        }
    }

    /// Whether the agent offers `session/close` (it keeps its sessions: end
    /// it with [`finish`](Self::finish)).
    pub fn keeps_sessions(&self) -> bool {
        lock(&self.state).history.can_close
    }

    /// Ends the session the way an agent that keeps its sessions on disk
    /// needs, so that it can resume them later: `session/close` when it
    /// offers it (within 5 s), then its process group is asked to end
    /// (`SIGTERM`) and given up to 3 s, then [`close`](Self::close).
    pub async fn finish(&self) {
        let can_close = {
            let state = lock(&self.state);
            state.history.can_close && state.closed.is_none() && state.sink.is_none()
        };
        if can_close {
            let answer = self.conn.request(
                "session/close",
                &json!({"sessionId": self.acp_session_id()}),
            );
            let _ = tokio::time::timeout(Duration::from_secs(5), answer).await;
        }
        if let Some(guard) = lock(&self.guard).as_ref() {
            guard.terminate();
        }
        for _ in 0..30 {
            let exited = lock(&self.guard)
                .as_mut()
                .is_none_or(|g| g.exited().is_some());
            if exited {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.close();
    }

    /// The conversation's id in the history (`None`: not kept).
    pub fn conversation(&self) -> Option<String> {
        lock(&self.state).history.conversation.clone()
    }

    /// How the session came back to an earlier conversation: `resume`,
    /// `load`, `context` (the earlier turns go with the next prompt), or
    /// `None` for a new conversation.
    pub fn resumed(&self) -> Option<&'static str> {
        lock(&self.state).history.resumed
    }

    /// Why the agent refused to take up its own session when this session
    /// came back to an earlier conversation (then [`Self::resumed`] is
    /// `context`): the method and the agent's error, one line.
    pub fn resume_refused(&self) -> Option<String> {
        lock(&self.state).history.refused.clone()
    }

    /// Records the prompt of a new turn; answers the earlier turns to send
    /// with it as context (once) and the notice that says so.
    pub(crate) fn record_prompt(&self, text: &str) -> Option<(String, Value)> {
        let mut state = lock(&self.state);
        if let Some(recorder) = state.history.recorder.as_mut() {
            if let Err(e) = recorder.prompt(text) {
                state.history.recorder = None;
                self.log.write(
                    Level::Warn,
                    "session",
                    format!("{}: the conversation history stopped: {e}", self.id),
                );
            }
        }
        let earlier = state.history.earlier.take()?;
        let why = match &state.history.refused {
            Some(refused) => format!("refused to take up its own session ({refused})"),
            None => "cannot resume its own session".to_owned(),
        };
        let notice = json!({"type": "notice", "message": format!(
            "agent `{}` {why}: the earlier turns of this conversation were sent with this prompt as context",
            self.agent.id
        )});
        Some((earlier, notice))
    }
}

/// How long the agent must be quiet after answering `session/load` before
/// its replay is taken as over (see [`AgentSession::settle_replay`]).
pub const REPLAY_QUIET: Duration = Duration::from_millis(300);

/// The longest wait for a `session/load` replay to end after the answer.
pub const REPLAY_CAP: Duration = Duration::from_secs(3);

/// The most characters of an agent's refusal kept (see [`refusal`]).
const MAX_REFUSAL: usize = 300;

/// `method` and the agent's error `e` in one line of at most
/// [`MAX_REFUSAL`] characters: its message, and the first line of its data
/// (Gemini CLI 0.61 says "Internal error" and puts the reason there).
fn refusal(method: &str, e: &super::rpc::RpcError) -> String {
    let detail = e
        .data
        .as_ref()
        .map(super::start_error::data_text)
        .and_then(|d| d.lines().next().map(|l| l.trim().to_owned()))
        .filter(|d| !d.is_empty());
    let line = match detail {
        Some(d) => format!("`{method}`: {}: {d}", e.message),
        None => format!("`{method}`: {}", e.message),
    };
    if line.chars().count() > MAX_REFUSAL {
        line.chars().take(MAX_REFUSAL).collect::<String>() + "…"
    } else {
        line
    }
}
