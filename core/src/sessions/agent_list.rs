//! The agent's own sessions (ACP `session/list`, offered when its
//! `initialize` answers `sessionCapabilities.list`): the sessions of this
//! project's folder that the agent keeps, including those started in its own
//! command line, which radium's history does not hold. A session id of
//! theirs resumes one (`session-new {resume: "agent:<id>"}`, see `history`).
//!
//! Listing starts the agent's process for the `initialize` and the pages of
//! `session/list` only (no session is created), following `nextCursor` up to
//! [`MAX_LIST_PAGES`] pages and [`MAX_AGENT_SESSIONS`] sessions.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};

use super::rpc::{Connection, Incoming};
use super::session::{method_not_found, process_spec, ACP_VERSION};
use crate::agents::config::{AgentConfig, AgentProtocol};
use crate::error::{Error, Result};
use crate::support::log::Log;
use crate::support::process::spawn_process;

/// The most pages of `session/list` radium asks for (then it says it stopped).
pub const MAX_LIST_PAGES: usize = 20;

/// The most of the agent's sessions radium lists.
pub const MAX_AGENT_SESSIONS: usize = 500;

/// The prefix that marks an agent's own session id where a conversation id
/// goes (`history-list`'s `agent_sessions`, `session-new`'s `resume`).
pub const AGENT_SESSION_PREFIX: &str = "agent:";

/// The agent's own session id in `resume`, when it names one
/// (`agent:<id>`); an empty or oversized id, or one with control
/// characters, is an error.
pub fn agent_session_of(resume: &str) -> Result<Option<&str>> {
    let Some(id) = resume.strip_prefix(AGENT_SESSION_PREFIX) else {
        return Ok(None);
    };
    if id.is_empty() || id.len() > 256 || id.chars().any(char::is_control) {
        return Err(Error::InvalidArgument(format!(
            "`{resume}` does not name one of the agent's sessions (`agent:` and its id, as `history-list {{agent}}` gives them)"
        )));
    }
    Ok(Some(id))
}

/// The agent's sessions of `workspace` (`[{id, acp_session, agent, title,
/// updated_at, cwd}]`, as the agent ordered them) and warnings;
/// `Ok(None)` when the agent does not list its sessions.
pub async fn agent_sessions(
    agent: &AgentConfig,
    workspace: &Path,
    log: Arc<Log>,
) -> Result<Option<(Vec<Value>, Vec<String>)>> {
    if agent.protocol != AgentProtocol::Acp {
        return Ok(None);
    }
    let spawned = spawn_process(&process_spec(agent, workspace))
        .map_err(|e| Error::AgentFailed(format!("agent `{}`: {e}", agent.id)))?;
    let _guard = spawned.guard;
    let (conn, mut incoming) = Connection::start(
        spawned.stdin,
        spawned.stdout,
        Some(spawned.stderr),
        Some((log, format!("listing ({})", agent.id))),
    );
    let conn = Arc::new(conn);
    let serving = Arc::clone(&conn);
    let reader = tokio::spawn(async move {
        while let Some(message) = incoming.recv().await {
            match message {
                Incoming::Answer { id, answer, raw } => serving.resolve(id, answer, raw),
                Incoming::Request { id, method, .. } => {
                    serving.respond(&id, Err(method_not_found(&method)));
                }
                Incoming::Closed => {
                    serving.fail_pending();
                    break;
                }
                _ => {}
            }
        }
    });
    let call = |method: &'static str, params: Value| {
        let answer = conn.request(method, &params);
        let limit = agent.start_timeout;
        let id = agent.id.clone();
        async move {
            match tokio::time::timeout(limit, answer).await {
                Err(_) => Err(Error::AgentTimeout(format!(
                    "agent `{id}` did not answer `{method}` within {} ms",
                    limit.as_millis()
                ))),
                Ok(Err(_)) => Err(Error::AgentFailed(format!(
                    "agent `{id}` ended before answering `{method}`"
                ))),
                Ok(Ok(Err(e))) => Err(Error::AgentFailed(format!(
                    "agent `{id}` refused `{method}`: {}",
                    e.message
                ))),
                Ok(Ok(Ok(v))) => Ok(v),
            }
        }
    };
    let listed = async {
        let init = call(
            "initialize",
            json!({"protocolVersion": ACP_VERSION, "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
                   "clientInfo": {"name": "radium", "version": env!("CARGO_PKG_VERSION")}}),
        )
        .await?;
        let lists = init
            .pointer("/agentCapabilities/sessionCapabilities/list")
            .is_some_and(|c| !c.is_null());
        if !lists {
            return Ok(None);
        }
        let mut sessions = Vec::new();
        let mut warnings = Vec::new();
        let mut cursor: Option<String> = None;
        for page in 0..MAX_LIST_PAGES {
            let mut params = json!({"cwd": workspace});
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let answer = call("session/list", params).await?;
            for s in answer["sessions"].as_array().into_iter().flatten() {
                let Some(sid) = s["sessionId"].as_str() else {
                    continue;
                };
                // Another folder's session is not this project's.
                if s["cwd"].as_str().is_some_and(|c| Path::new(c) != workspace) {
                    continue;
                }
                if sessions.len() == MAX_AGENT_SESSIONS {
                    break;
                }
                sessions.push(json!({
                    "id": format!("{AGENT_SESSION_PREFIX}{sid}"), "acp_session": sid,
                    "agent": agent.id, "title": s.get("title").cloned().unwrap_or(Value::Null),
                    "updated_at": s.get("updatedAt").cloned().unwrap_or(Value::Null),
                    "cwd": s.get("cwd").cloned().unwrap_or(Value::Null),
                }));
            }
            cursor = answer["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                break;
            }
            if page + 1 == MAX_LIST_PAGES || sessions.len() == MAX_AGENT_SESSIONS {
                warnings.push(format!(
                    "agent `{}` has more sessions than radium lists ({} pages, at most {MAX_AGENT_SESSIONS} sessions)",
                    agent.id, MAX_LIST_PAGES
                ));
                break;
            }
        }
        Ok(Some((sessions, warnings)))
    };
    let out = listed.await;
    reader.abort();
    out
}
