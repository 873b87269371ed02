//! The engine's one error type.

use std::path::PathBuf;

use crate::support::names::{COMMANDS, HOOK_TYPES};

/// Everything that can go wrong in the engine, with messages a user can act on.
///
/// Each variant has a stable machine-readable [`code`](Error::code) that the
/// doors (C, Lua, Node) hand on unchanged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hook type name that is not one of the 13.
    #[error("unknown hook type `{0}`; valid types are: {valid}", valid = HOOK_TYPES.join(", "))]
    UnknownHookType(String),

    /// A hook with this name is already registered.
    #[error("a hook named `{0}` is already registered")]
    DuplicateHook(String),

    /// No hook with this name is registered.
    #[error("no hook named `{0}` is registered")]
    UnknownHook(String),

    /// A hook name that is empty or too long.
    #[error("invalid hook name `{name}`: {reason}")]
    InvalidHookName {
        /// The name as given.
        name: String,
        /// Which rule it broke.
        reason: &'static str,
    },

    /// A tool matcher pattern that cannot be used.
    #[error("invalid tool matcher `{pattern}`: {reason}")]
    InvalidMatcher {
        /// The pattern as given.
        pattern: String,
        /// Which rule it broke.
        reason: String,
    },

    /// A hook result (from a host hook or a script) that does not have the documented form.
    #[error("invalid hook result: {0}")]
    InvalidResult(String),

    /// Context data that does not have the fields a specialised hook needs.
    #[error("invalid hook context: {0}")]
    InvalidContext(String),

    /// An editor context that breaks a rule; the message names the field and the rule.
    #[error("invalid editor context: {0}")]
    EditorContext(String),

    /// A configuration file that could not be used; names the file, line, column and problem.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Config {
        /// The configuration file.
        path: PathBuf,
        /// 1-based line of the problem (0 when unknown).
        line: usize,
        /// 1-based column of the problem (0 when unknown).
        column: usize,
        /// What is wrong, naming the field.
        message: String,
    },

    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// A request that is not `{command, args?, tag?, cwd?}`.
    #[error("invalid request: {0}")]
    InvalidRequest(String),

    /// A command the engine does not know.
    #[error("unknown command `{0}`; known commands: {known}", known = COMMANDS.join(", "))]
    UnknownCommand(String),

    /// An argument that is missing or has the wrong type.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// No agent with this id is configured.
    #[error("unknown agent `{id}`; configured agents: {}", if known.is_empty() { "none (add one to .radium/agents.toml or $RADIUM_HOME/agents.toml)" } else { known.as_str() })]
    UnknownAgent {
        /// The id asked for.
        id: String,
        /// The configured ids, comma separated.
        known: String,
    },

    /// A hook refused the step.
    #[error("refused by hook `{hook}` ({stage}): {reason}")]
    Refused {
        /// The hook that stopped the chain.
        hook: String,
        /// Its reason.
        reason: String,
        /// The chain it stopped.
        stage: String,
    },

    /// The agent failed (exit status, output too large, could not start).
    #[error("{0}")]
    AgentFailed(String),

    /// The agent outlived its time limit and was stopped.
    #[error("{0}")]
    AgentTimeout(String),

    /// The work was cancelled or reached its deadline.
    #[error("{0}")]
    Cancelled(String),

    /// An edit command that cannot be done (no match, nothing to undo, ...).
    #[error("{0}")]
    Edit(String),

    /// A path outside the project root.
    #[error("{0}")]
    OutsideProject(String),

    /// Workspace code that needs the workspace to be trusted first.
    #[error("{0}")]
    Untrusted(String),

    /// An extension could not be installed, removed or loaded.
    #[error("{0}")]
    Extension(String),

    /// A write into a protected folder of the project (`.radium/`, `.git/`)
    /// that the user's settings do not allow.
    #[error("{0}")]
    Protected(String),
    /// A request reached the daemon but its answer did not come back: it may
    /// have been carried out, so it is not sent again.
    #[error("{0}")]
    AnswerLost(String),
    /// The daemon did not take the request (it serves as many connections as
    /// it may, or closed the connection before the request was written):
    /// nothing was carried out, so sending it again is safe.
    #[error("{0}")]
    Busy(String),
    /// The engine's async runtime could not be started.
    #[error("cannot start the engine's async runtime: {0}")]
    Runtime(String),
    /// The system clipboard cannot be used (no display, no text on it, or
    /// not built in).
    #[error("{0}")]
    Clipboard(String),
    /// What a request names is not there: a file, or a name in a file.
    #[error("{0}")]
    NotFound(String),
}

impl Error {
    /// A stable, machine-readable code for this error (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownHookType(_) => "unknown_hook_type",
            Error::DuplicateHook(_) => "duplicate_hook",
            Error::UnknownHook(_) => "unknown_hook",
            Error::InvalidHookName { .. } => "invalid_hook_name",
            Error::InvalidMatcher { .. } => "invalid_matcher",
            Error::InvalidResult(_) => "invalid_result",
            Error::InvalidContext(_) => "invalid_context",
            Error::EditorContext(_) => "invalid_editor_context",
            Error::Config { .. } => "config",
            Error::Io { .. } => "io",
            Error::InvalidRequest(_) => "invalid_request",
            Error::UnknownCommand(_) => "unknown_command",
            Error::InvalidArgument(_) => "invalid_argument",
            Error::UnknownAgent { .. } => "unknown_agent",
            Error::Refused { .. } => "refused",
            Error::AgentFailed(_) => "agent_failed",
            Error::AgentTimeout(_) => "agent_timeout",
            Error::Cancelled(_) => "cancelled",
            Error::Extension(_) => "extension",
            Error::Untrusted(_) => "untrusted",
            Error::Edit(_) => "edit",
            Error::OutsideProject(_) => "outside_project",
            Error::Runtime(_) => "runtime",
            Error::AnswerLost(_) => "answer_lost",
            Error::Busy(_) => "busy",
            Error::Protected(_) => "protected",
            Error::Clipboard(_) => "clipboard",
            Error::NotFound(_) => "not_found",
        }
    }
}

/// `Result` with the engine's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
