//! A turn that an agent ends at once, empty, right after a cancelled one:
//! Claude Code's adapter does so (the cancelled turn leaves its end behind,
//! which the next prompt reads as its own), and from then on every answer
//! comes one prompt late. radium notices it and, when the agent offers
//! `session/close` and `session/resume`, restarts the agent's side of the
//! conversation (same session id, nothing replayed) and sends the prompt
//! again in the same turn, so its answer lands under it. An agent that
//! offers neither gets a `notice` saying its answers may come late.

use std::time::Instant;

use serde_json::{json, Value};

use super::session::{lock, AgentSession};
use crate::error::{Error, Result};
use crate::support::log::Level;

/// What a session keeps to notice a stale answer after a cancel.
#[derive(Default)]
pub(crate) struct StaleWatch {
    /// Whether the running turn was cancelled (read by the next prompt).
    pub cancelled: bool,
    /// Whether the turn before the running one was cancelled.
    pub after_cancel: bool,
    /// Whether the running turn brought any content (text, a thought, a
    /// tool call, a plan).
    pub content: bool,
    /// The `session/resume` parameters, for an agent that offers
    /// `session/close` and `session/resume` (a stale answer is repaired).
    pub resume: Option<Value>,
}

/// The kinds of `session/update` that are part of an answer (a turn with
/// none of them said nothing).
pub(crate) const CONTENT_UPDATES: &[&str] = &[
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
];

/// The `session/resume` parameters for an agent whose `initialize` offers
/// both `sessionCapabilities.close` and `sessionCapabilities.resume`.
pub(crate) fn resume_params(init: &Value, new_params: &Value) -> Option<Value> {
    let caps = init.pointer("/agentCapabilities/sessionCapabilities")?;
    let offered = |name: &str| caps.get(name).is_some_and(|c| !c.is_null());
    (offered("close") && offered("resume")).then(|| new_params.clone())
}

impl AgentSession {
    /// Sends `prompt` and waits for the agent's answer to it, while the agent
    /// keeps talking within its silence limit: the answer's `result`.
    pub(crate) async fn ask_prompt(&self, prompt: &[Value]) -> Result<Value> {
        let mut params = json!({"sessionId": self.acp_session_id(), "prompt": prompt});
        if let Some(meta) = lock(&self.state).tap.prompt_meta.clone() {
            params["_meta"] = meta;
        }
        let answer = self.conn.request("session/prompt", &params);
        let mut answer = std::pin::pin!(answer);
        let silence = self.agent.silence_timeout;
        let result = loop {
            let heard = lock(&self.state).last_heard.unwrap_or_else(Instant::now);
            let wake = tokio::time::Instant::from_std(heard) + silence;
            tokio::select! {
                got = &mut answer => break got,
                () = tokio::time::sleep_until(wake) => {
                    let heard = lock(&self.state).last_heard.unwrap_or_else(Instant::now);
                    if heard.elapsed() >= silence {
                        self.cancel();
                        return Err(Error::AgentTimeout(format!(
                            "agent `{}` sent nothing for {} ms; the turn was cancelled",
                            self.agent.id,
                            silence.as_millis()
                        )));
                    }
                }
            }
        };
        match result {
            Err(_) => Err(self.ended("mid-turn")),
            Ok(Err(e)) => Err(Error::AgentFailed(format!(
                "agent `{}` failed the turn: {} (code {})",
                self.agent.id, e.message, e.code
            ))),
            Ok(Ok(r)) => Ok(r),
        }
    }

    /// Whether `result` ends, at once and empty, the turn right after a
    /// cancelled one: the answer of this prompt is still to come.
    pub(crate) fn stale_end(&self, result: &Value) -> bool {
        let stop = result.get("stopReason").and_then(Value::as_str);
        let state = lock(&self.state);
        state.stale.after_cancel && !state.stale.content && matches!(stop, None | Some("end_turn"))
    }

    /// Repairs a stale end (see [`stale_end`](Self::stale_end)): answers
    /// whether the prompt should be sent again (the agent's side of the
    /// conversation was restarted), after a `notice` saying what happened.
    pub(crate) async fn resync(&self) -> Result<bool> {
        let params = lock(&self.state).stale.resume.clone();
        let id = self.acp_session_id();
        let Some(mut params) = params else {
            let message = format!(
                "agent `{}` ended this prompt at once, with no answer, right after a cancelled one: \
                 its answers may now come one prompt late (it offers no session/resume for radium \
                 to repair that); if they do, start a new chat",
                self.agent.id
            );
            self.log
                .write(Level::Warn, "session", format!("{}: {message}", self.id));
            self.emit(json!({"type": "notice", "message": message}));
            return Ok(false);
        };
        let message = format!(
            "agent `{}` ended this prompt at once, with no answer, right after a cancelled one \
             (its answers would come one prompt late): radium restarted its session and sent the prompt again",
            self.agent.id
        );
        self.log
            .write(Level::Warn, "session", format!("{}: {message}", self.id));
        self.emit(json!({"type": "notice", "message": message}));
        params["sessionId"] = json!(id);
        let limit = self.agent.start_timeout;
        for (method, params) in [
            ("session/close", json!({"sessionId": id})),
            ("session/resume", params),
        ] {
            let answer = self.conn.request(method, &params);
            match tokio::time::timeout(limit, answer).await {
                Ok(Ok(Ok(_))) => {}
                Ok(Ok(Err(e))) => {
                    return Err(Error::AgentFailed(format!(
                        "agent `{}` refused `{method}` while its session was restarted after a stale answer: {} (code {})",
                        self.agent.id, e.message, e.code
                    )))
                }
                Ok(Err(_)) => return Err(self.ended(&format!("before answering `{method}`"))),
                Err(_) => {
                    return Err(Error::AgentTimeout(format!(
                        "agent `{}` did not answer `{method}` within {} ms",
                        self.agent.id,
                        limit.as_millis()
                    )))
                }
            }
        }
        let mut state = lock(&self.state);
        state.stale.after_cancel = false;
        state.last_heard = Some(Instant::now());
        Ok(true)
    }
}
