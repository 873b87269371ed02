//! `history-list {agent}`: the project's conversations, and the agent's own
//! sessions of the project that radium's history does not hold (see
//! [`crate::sessions::agent_list`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{json, Value};

use super::engine::Engine;
use super::envelope::Request;
use crate::error::{Error, Result};
use crate::support::json::{args_object, optional_string_arg};

type Work = Pin<Box<dyn Future<Output = Result<Value>> + Send>>;

impl Engine {
    /// `history-list` with `agent`: `{conversations, warnings,
    /// agent_sessions}`; `None` for a `history-list` without one.
    pub(super) fn agent_history_work(&self, request: &Request) -> Option<Result<Work>> {
        let command = "history-list";
        let args = match args_object(command, &request.args) {
            Ok(args) => args,
            Err(e) => return Some(Err(e)),
        };
        let agent_id = match optional_string_arg(command, args, "agent") {
            Ok(Some(id)) => id.to_owned(),
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        let workspace = self.workspace_for(request.cwd.as_deref());
        Some(self.agent_history(agent_id, workspace))
    }

    fn agent_history(
        &self,
        agent_id: String,
        workspace: Option<std::path::PathBuf>,
    ) -> Result<Work> {
        let Some(workspace) = workspace else {
            return Err(Error::InvalidArgument(
                "`history-list` needs a project: give `cwd`, or create the engine with a workspace"
                    .into(),
            ));
        };
        let workspace = crate::support::paths::resolve(&workspace);
        let agents = self.agents_for(&agent_id, Some(&workspace))?;
        let Some(agent) = agents.iter().find(|a| a.id == agent_id).cloned() else {
            return Err(Error::UnknownAgent {
                id: agent_id,
                known: agents
                    .iter()
                    .map(|a| a.id.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let folder = crate::sessions::history::folder_of(&workspace, &self.radium_home())?;
        let log = Arc::clone(&self.log);
        let runtime = self.registry.runtime_handle()?;
        Ok(Box::pin(async move {
            let (conversations, mut warnings) = crate::sessions::history::list(&folder);
            let ws = workspace.clone();
            let listed = runtime
                .spawn(async move {
                    crate::sessions::agent_list::agent_sessions(&agent, &ws, log).await
                })
                .await
                .map_err(|e| {
                    Error::Runtime(format!("the agent's sessions were not listed: {e}"))
                })??;
            // The sessions radium's history holds are listed as its conversations.
            let held: Vec<&str> = conversations
                .iter()
                .filter_map(|c| c["acp_session"].as_str())
                .collect();
            let agent_sessions: Vec<Value> = if let Some((sessions, more)) = listed {
                warnings.extend(more);
                sessions
                    .into_iter()
                    .filter(|s| !held.contains(&s["acp_session"].as_str().unwrap_or("")))
                    .collect()
            } else {
                warnings.push(format!(
                    "agent `{agent_id}` does not list its sessions (its `initialize` offers no sessionCapabilities.list)"
                ));
                Vec::new()
            };
            Ok(json!({"conversations": conversations, "warnings": warnings,
                      "agent_sessions": agent_sessions}))
        }))
    }
}
