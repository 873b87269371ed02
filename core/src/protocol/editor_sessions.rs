//! Sessions for an ACP editor in front of radium (`rad acp`).

use std::future::Future;
use std::path::Path;

use serde_json::Value;

use super::engine::Engine;
use crate::error::Result;
use crate::sessions::agent_list::AGENT_SESSION_PREFIX;
#[cfg(doc)]
use crate::sessions::tap::tap_channels;
use crate::sessions::tap::{EditorSide, TapSenders};
#[cfg(doc)]
use crate::sessions::AgentSession;
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
        let editor = EditorSide {
            mcp: editor_mcp,
            ..EditorSide::default()
        };
        self.open_session_with(agent_id, workspace, None, None, None, Some(editor))
    }

    /// Opens a radium session that takes up the agent's own session
    /// `acp_session` for an ACP editor that asked to load it
    /// (`session/load`, preferred to `session/resume`): the agent's replay
    /// comes on `tap` (made with [`tap_channels`], its receivers then
    /// [`AgentSession::tap`]'s), with the editor's MCP servers `editor_mcp`.
    /// The session's prompts are radium turns. An agent that cannot load it
    /// is an error.
    pub fn load_session_for_editor(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        editor_mcp: Vec<Value>,
        acp_session: &str,
        tap: TapSenders,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        self.take_up_for_editor(agent_id, workspace, editor_mcp, acp_session, tap, true)
    }

    /// [`load_session_for_editor`](Self::load_session_for_editor) for an
    /// editor that asked to resume the agent's session `acp_session`
    /// (`session/resume`, no replay): the agent's `session/resume` is
    /// preferred to its `session/load`. The caller checks the agent offers
    /// `session/resume` first when it wants no replay at all.
    pub fn resume_session_for_editor(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        editor_mcp: Vec<Value>,
        acp_session: &str,
        tap: TapSenders,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        self.take_up_for_editor(agent_id, workspace, editor_mcp, acp_session, tap, false)
    }

    /// The agent's session `acp_session` taken up for an ACP editor: `load`
    /// prefers the agent's `session/load` (a replay on `tap`), else its
    /// `session/resume`.
    fn take_up_for_editor(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        editor_mcp: Vec<Value>,
        acp_session: &str,
        tap: TapSenders,
        load: bool,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        let editor = EditorSide {
            mcp: editor_mcp,
            load,
            tap: Some(tap),
        };
        let resume = format!("{AGENT_SESSION_PREFIX}{acp_session}");
        self.open_session_with(agent_id, workspace, None, Some(resume), None, Some(editor))
    }
}
