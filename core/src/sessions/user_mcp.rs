//! The user's own MCP servers (`mcp.toml`, see [`crate::agents::mcp`]) in
//! `session/new`, beside radium's: the ones the agent can take, and a notice
//! for each it cannot and for each `mcp.toml` that could not be read. The
//! notices (with the start's others) are kept for the `session-new`
//! answer, which delivers them: the doors show them as the chat opens.

use std::path::PathBuf;

use serde_json::Value;

use super::session::{lock, AgentSession};
use crate::agents::mcp::McpServers;
use crate::support::log::Level;

impl AgentSession {
    /// Every MCP server `session/new` offers: radium's (when allowed), then
    /// the user's that the agent (its `initialize` answer `init`) can take,
    /// then an editor's (`rad acp`) whose names are not among them.
    pub(crate) fn offered_mcp_servers(
        &self,
        rad: Option<PathBuf>,
        init: &Value,
        user: &McpServers,
        editor: &[Value],
    ) -> Value {
        let mut all = match self.mcp_servers(rad) {
            Value::Array(list) => list,
            _ => Vec::new(),
        };
        let mut notices: Vec<String> = user
            .broken
            .iter()
            .map(|e| format!("your MCP servers of a file were not passed to the agent: {e}"))
            .collect();
        for server in &user.servers {
            if server.offered_to(init) {
                all.push(server.to_acp());
            } else {
                notices.push(format!(
                    "MCP server `{}` ({}) was not passed: agent `{}` does not take {} servers (its mcpCapabilities)",
                    server.name,
                    server.source.display(),
                    self.agent.id,
                    server.transport.as_str()
                ));
            }
        }
        for notice in &notices {
            self.log
                .write(Level::Warn, "session", format!("{}: {notice}", self.id));
        }
        for server in editor {
            let name = server.get("name");
            if !all.iter().any(|s| s.get("name") == name) {
                all.push(server.clone());
            }
        }
        lock(&self.state).start_notices.extend(notices);
        Value::Array(all)
    }

    /// The notices of the session's start: what it could not do (an MCP
    /// server not passed, radium's tools not offered), and why.
    pub fn start_notices(&self) -> Vec<String> {
        lock(&self.state).start_notices.clone()
    }
}
