//! Agent sessions: conversations with coding agents spoken to in the Agent
//! Client Protocol (ACP v1, JSON-RPC over the agent's stdio), whose turns
//! stream events to the door, with the hooks around every turn and tool call,
//! and every file the agent writes recorded as an undoable edit.
//!
//! radium speaks ACP itself rather than through the `agent-client-protocol`
//! crate: that crate's client connection runs its tasks as `!Send` local
//! futures (it needs a `LocalSet` on one thread), while the engine's work
//! runs on its multi-threaded runtime and the doors poll from their own
//! threads; the part of the protocol a client needs is a few messages.
//!
//! Owns: the agent processes of sessions, their connections, turns and
//! permission requests. Uses: `agents` (configuration), `edit` (the agent's
//! writes), `editor` (code blocks of an answer), `hooks`, `support`.

pub mod agent_list;
pub(crate) mod client;
mod command;
pub mod commands;
mod drive;
pub mod events;
pub mod history;
pub mod hunks;
pub mod images;
pub mod options;
pub mod output;
pub mod pre_tool;
mod resync;
pub(crate) mod rpc;
pub mod session;
mod sign_in;
mod snapshot;
mod start_error;
pub mod subscription;
pub mod table;
pub mod tap;
mod text_chunk;
mod tool_output;
mod tools;
mod turn;
mod user_mcp;

pub use commands::{MAX_COMMANDS, MAX_COMMAND_TEXT, MAX_USAGE_FIELDS};
pub use drive::MAX_TURN_TEXT;
pub use events::SessionEvent;
pub use output::MAX_TOOL_OUTPUT;
pub use pre_tool::{relay, RelayOutcome, MAX_RELAY_INPUT, RELAY_TIMEOUT};
pub use session::{AgentSession, PermissionAnswer, SessionSetup, ACP_VERSION, PERMISSION_TIMEOUT};
pub use sign_in::AUTH_REQUIRED;
pub use snapshot::{MAX_SNAPSHOTS, MAX_SNAPSHOT_FILE};
pub use start_error::{MAX_ERROR_DATA, START_STDERR_LINES};
pub use subscription::Subscription;
pub use table::{Entry, EventQueue, Sessions, MAX_IDLE_NOTICES};
pub use tap::Unserved;
