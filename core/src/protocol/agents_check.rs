//! `agents-check`: each configured agent really started (`initialize`,
//! `session/new` in the workspace) and closed again, and what failed said
//! with the agent's own reason. Each agent is bounded by its
//! `start_timeout`; the agents are started together. `agents-login`: an
//! agent signed in to (`authenticate`) with one of its methods.

use serde_json::{json, Value};

use super::engine::Engine;
use super::envelope::Request;
use crate::error::{Error, Result};
use crate::support::json::json_kind;

/// The most agents one `agents-check` starts.
pub const MAX_CHECKED_AGENTS: usize = 32;

/// The agent ids a request names (`agents`: a list of strings; absent: all).
fn named_agents(args: &Value) -> Result<Option<Vec<String>>> {
    let list = match args {
        Value::Null => return Ok(None),
        Value::Object(o) => match o.get("agents") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Array(list)) => list,
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "agents-check: `agents` must be a list of agent ids, not {}",
                    json_kind(other)
                )))
            }
        },
        other => {
            return Err(Error::InvalidArgument(format!(
                "agents-check: the arguments must be an object, not {}",
                json_kind(other)
            )))
        }
    };
    let ids = list
        .iter()
        .map(|v| {
            v.as_str().map(str::to_owned).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "agents-check: `agents` must hold agent ids (strings), not {}",
                    json_kind(v)
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(ids))
}

impl Engine {
    /// `agents-check`: starts each agent the request names (all the usable
    /// ones when it names none) in the request's workspace, closes it, and
    /// answers `{ok, agents: [{id, ok, error?}]}`, in the order asked.
    pub(super) fn agents_check(
        &self,
        request: &Request,
    ) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value>> + Send>>> {
        let named = named_agents(&request.args)?;
        let workspace = self.workspace_for(request.cwd.as_deref());
        let ids: Vec<String> = match named {
            Some(ids) => ids,
            None => self
                .agents(workspace.as_deref())?
                .into_iter()
                // radium's built-in example agent is not an ACP agent.
                .filter(|a| {
                    a.source.as_os_str() != crate::agents::catalogue::CATALOGUE_SOURCE
                        || a.protocol == crate::agents::config::AgentProtocol::Acp
                })
                .map(|a| a.id)
                .collect(),
        };
        if ids.len() > MAX_CHECKED_AGENTS {
            return Err(Error::InvalidArgument(format!(
                "agents-check: {} agents named, at most {MAX_CHECKED_AGENTS} are checked at once",
                ids.len()
            )));
        }
        let runtime = self.registry.runtime_handle()?;
        let checks: Vec<_> = ids
            .into_iter()
            .map(|id| {
                let open = self.open_session(&id, workspace.as_deref(), None);
                let sessions = std::sync::Arc::clone(&self.sessions);
                let task = runtime.spawn(async move {
                    match open.await {
                        Ok(entry) => {
                            let _ = sessions.close(&entry.session.id);
                            Ok(())
                        }
                        Err(e) => Err(e),
                    }
                });
                (id, task)
            })
            .collect();
        Ok(Box::pin(async move {
            let mut all_ok = true;
            let mut agents = Vec::with_capacity(checks.len());
            for (id, task) in checks {
                let outcome = task
                    .await
                    .unwrap_or_else(|e| Err(Error::Runtime(format!("the check did not run: {e}"))));
                match outcome {
                    Ok(()) => agents.push(json!({"id": id, "ok": true})),
                    Err(e) => {
                        all_ok = false;
                        agents.push(json!({
                            "id": id, "ok": false, "code": e.code(), "error": e.to_string(),
                        }));
                    }
                }
            }
            Ok(json!({"ok": all_ok, "agents": agents}))
        }))
    }
}

impl Engine {
    /// `agents-login {agent, method?}`: starts the agent, signs in with
    /// `method` (`authenticate`; none: the agent's only method of type
    /// `agent`), checks that a session now opens, and closes it again.
    pub(super) fn agents_login(
        &self,
        request: &Request,
    ) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value>> + Send>>> {
        let command = "agents-login";
        let args = crate::support::json::args_object(command, &request.args)?;
        let agent = crate::support::json::string_arg(command, args, "agent")?.to_owned();
        let method = crate::support::json::optional_string_arg(command, args, "method")?
            .unwrap_or_default()
            .to_owned();
        let workspace = self.workspace_for(request.cwd.as_deref());
        let open = self.open_session_signed(&agent, workspace.as_deref(), None, Some(method));
        let sessions = std::sync::Arc::clone(&self.sessions);
        Ok(Box::pin(async move {
            let entry = open.await?;
            let _ = sessions.close(&entry.session.id);
            Ok(json!({"agent": agent, "signed_in": true}))
        }))
    }
}
