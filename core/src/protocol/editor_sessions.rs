//! Sessions for an ACP editor in front of radium (`rad acp`).

use std::future::Future;
use std::path::Path;

use serde_json::Value;

use super::engine::Engine;
use crate::error::Result;
use crate::sessions::Entry;

impl Engine {
    /// [`open_session`](Self::open_session) for an ACP editor in front of
    /// radium (`rad acp`): `editor_mcp`, the MCP servers of the editor's
    /// `session/new` (ACP's `McpServer` objects), are passed to the agent
    /// beside radium's and the user's (a name already passed is left out).
    /// An agent that refuses `session/new` until the user signs in leaves
    /// the session open, waiting for the editor's `authenticate`
    /// ([`AgentSession::awaiting_sign_in`](crate::sessions::AgentSession::awaiting_sign_in)).
    pub fn open_session_for_editor(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        editor_mcp: Vec<Value>,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        self.open_session_with(agent_id, workspace, None, None, None, Some(editor_mcp))
    }
}
