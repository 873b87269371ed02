//! [`Engine`]: a hook registry plus its settings, answering [`Request`]s.
//!
//! The engine holds the state the parts share (the registry, the settings,
//! the active extensions, the requests in flight) and hands each command to
//! the part that owns it (see `dispatch.rs` for the table).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::config::EngineConfig;
use super::envelope::{Request, Response};
use super::inflight::Inflight;
use crate::agents::config::{
    available_agents, default_radium_home, untrusted_agent, AgentConfig, Available,
};
use crate::agents::mcp::{configured_mcp_servers, McpServers};
use crate::agents::step::{run_step, StepRequest};
use crate::editor::hooks::{CodeApplyHook, EditorContextHook, STEP_TOOL};
use crate::error::{Error, Result};
use crate::extensions::commands::{ActiveExtensions, ExtensionHost};
use crate::hooks::config::HookLoader;
use crate::hooks::matcher::ToolMatcher;
use crate::hooks::registry::{HookOptions, HookRegistry};
use crate::sessions::Sessions;
use crate::support::json::{json_depth, too_deep, MAX_JSON_DEPTH};
use crate::support::log::Log;

pub use crate::support::names::COMMANDS;

/// The version of the request protocol and of the C ABI built on it.
pub const ABI_VERSION: u32 = 1;

/// One engine: a hook registry and its settings. Cheap to clone; clones share state.
#[derive(Debug, Clone, Default)]
pub struct Engine {
    /// The language servers running for code intelligence. First: fields
    /// drop in order, and the servers are asked to stop on the runtime the
    /// registry owns.
    pub(super) servers: Arc<crate::code::lsp::Servers>,
    pub(super) registry: HookRegistry,
    pub(super) config: EngineConfig,
    /// Active extensions: name → the hooks registered for it.
    pub(super) extensions: ActiveExtensions,
    /// Requests in flight that carry an `id`, for `cancel`.
    pub(super) inflight: Arc<Inflight>,
    /// Open agent sessions.
    pub(super) sessions: Arc<Sessions>,
    /// The system clipboard, kept for the engine's life (on X11 a copied
    /// text lives while its owner does).
    pub(super) clipboard: Arc<crate::clipboard::SystemClipboard>,
    /// What the engine did, for the door to show (the `log` request).
    pub(super) log: Arc<Log>,
    /// Why the workspace's `.radium/hooks.toml` is not applied (the
    /// workspace is not trusted): a warning of `hooks-list`.
    pub(super) unapplied_hooks: Arc<std::sync::Mutex<Option<String>>>,
    /// The edit history's cache of parsed session files is emptied when
    /// the last engine goes (a library host gets its memory back).
    _edit_cache: Arc<crate::edit::EngineHold>,
}

/// Runs a future on this thread: one poll with a no-op waker first (work
/// that needs no waiting finishes there, with no executor set up), then
/// blocking until it is done.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => pollster::block_on(future),
    }
}

/// The request in `text`: `Err` when the text is not JSON at all (or
/// nested deeper than [`MAX_JSON_DEPTH`]), `Ok(Err)` when it is JSON but
/// not a well-formed request (the error the answer carries).
fn parse_json_text(text: &str) -> std::result::Result<Result<Request>, serde_json::Error> {
    // Straight into the request's fields, with serde_json rather than
    // the SIMD parser: a request is mostly strings with many escapes
    // (code, a `\n` on every line), which serde_json reads faster: the
    // JSON text round trip of BENCHMARKS.md took 22.2 µs against
    // 23.6 µs, measured in turns.
    //
    // serde_json stops at its own depth limit (the same as
    // MAX_JSON_DEPTH), so text it parses is never too deep: the depth
    // is only walked when the parse fails, and too deep text is then
    // refused with the one error of every path, before any other.
    match serde_json::from_str::<Request>(text) {
        Ok(request) => Ok(Ok(request)),
        Err(_) if json_depth(text.as_bytes()) > MAX_JSON_DEPTH => {
            Err(<serde_json::Error as serde::de::Error>::custom(too_deep()))
        }
        // Not a well-formed request: the path through a JSON value gives
        // the precise error (not JSON at all, not an object, an unknown field...).
        Err(_) => Ok(Request::from_json(serde_json::from_str(text)?)),
    }
}

impl Engine {
    /// An engine with `config`; applies the workspace's `.radium/hooks.toml`
    /// if there is one and the workspace is trusted.
    ///
    /// An untrusted workspace's `hooks.toml` (a cloned repository's) is not
    /// read: it could turn off the user's own hooks. `hooks-list` says so in
    /// its warnings, and a `trust` of the workspace through this engine
    /// applies the file then.
    ///
    /// A broken `hooks.toml` (bad TOML, an unknown field or hook type, a
    /// `type` that contradicts a registered hook, a file that cannot be read)
    /// does not stop the engine: nothing of the file is applied, the error is
    /// kept ([`config_error`](Self::config_error)), and every chain the engine
    /// runs that has a hook to run answers it (code `config`) instead of
    /// running hooks without the user's settings. Commands that run no hook
    /// work as usual; a fixed file is read by a new engine.
    pub fn new(config: EngineConfig) -> Result<Self> {
        let log = Arc::new(Log::default());
        let engine = Engine {
            registry: HookRegistry::new(),
            config,
            extensions: ActiveExtensions::default(),
            inflight: Arc::default(),
            sessions: Arc::default(),
            clipboard: Arc::default(),
            servers: Arc::new(crate::code::lsp::Servers::with_log(Arc::clone(&log))),
            log,
            unapplied_hooks: Arc::default(),
            _edit_cache: Arc::default(),
        };
        let step_only = || HookOptions {
            matcher: ToolMatcher::new(STEP_TOOL).ok(),
            ..HookOptions::default()
        };
        engine
            .registry
            .register_with(EditorContextHook::new(engine.config.limits), step_only())?;
        engine.registry.register_with(CodeApplyHook, step_only())?;
        // A broken extension must not stop the editor: it is listed by
        // `ext-list` with its error instead.
        engine
            .extension_host(&engine.radium_home())
            .activate_discovered();
        engine.load_workspace_hooks();
        Ok(engine)
    }

    /// Applies the workspace's `.radium/hooks.toml` when the workspace is
    /// trusted (a broken file becomes the registry's configuration error);
    /// else keeps the warning that it is not applied.
    pub(super) fn load_workspace_hooks(&self) {
        let Some(workspace) = &self.config.workspace else {
            return;
        };
        let loader = HookLoader::new(workspace);
        let path = loader.config_path();
        let mut unapplied = self
            .unapplied_hooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if std::fs::symlink_metadata(&path).is_err() {
            *unapplied = None;
            return;
        }
        if !self.workspace_trusted(Some(workspace)) {
            *unapplied = Some(format!(
                "{} is not applied: the workspace {} is not trusted (run `rad trust` in it, or the `trust` command, to apply it)",
                path.display(),
                workspace.display()
            ));
            return;
        }
        *unapplied = None;
        if let Err(error) = loader.apply(&self.registry) {
            self.registry.set_config_error(Some(error));
        }
    }

    /// The warning that the workspace's `.radium/hooks.toml` is not applied
    /// because the workspace is not trusted; `None` when it is applied or
    /// there is none.
    pub fn unapplied_hooks_warning(&self) -> Option<String> {
        self.unapplied_hooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The error of the workspace's `.radium/hooks.toml` when it could not
    /// be applied: an [`Error::Config`] naming the
    /// file, line and column (`<file>:<line>:<column>: <message>`; line and
    /// column are 0 for a file that could not be read). While there is one,
    /// every chain with a hook to run fails with it (`hooks-execute`, the
    /// edit commands through their tool hooks, `step`), and `hooks-list`
    /// carries it in its `warnings`. `None` when the file was applied or
    /// there is none.
    pub fn config_error(&self) -> Option<Error> {
        self.registry.config_error()
    }

    /// The engine's hook registry.
    pub fn registry(&self) -> &HookRegistry {
        &self.registry
    }

    /// The engine's log: failed requests, agents and language servers
    /// started and stopped, their stderr (see [`Log`]).
    pub fn log(&self) -> &Arc<Log> {
        &self.log
    }

    /// The engine's settings.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// `$RADIUM_HOME` for this engine.
    pub fn radium_home(&self) -> PathBuf {
        self.config
            .radium_home
            .clone()
            .unwrap_or_else(default_radium_home)
    }

    /// The extension part's view of this engine, with `radium_home`.
    pub(super) fn extension_host<'a>(&'a self, radium_home: &'a Path) -> ExtensionHost<'a> {
        ExtensionHost {
            registry: &self.registry,
            active: &self.extensions,
            radium_home,
            workspace: self.config.workspace.as_deref(),
        }
    }

    /// The request's `cwd`, else the engine's workspace.
    pub(super) fn workspace_for(&self, request_cwd: Option<&str>) -> Option<PathBuf> {
        request_cwd
            .map(PathBuf::from)
            .or_else(|| self.config.workspace.clone())
    }

    /// Whether `workspace` is trusted (no workspace: nothing to trust).
    pub fn workspace_trusted(&self, workspace: Option<&Path>) -> bool {
        self.extension_host(&self.radium_home())
            .workspace_trusted(workspace)
    }

    /// The agents configured for `workspace` (or the engine's) and the
    /// user. An untrusted workspace's `agents.toml` is not read. A file
    /// that cannot be read or parsed leaves its agents out and the other
    /// file's in: its error is in [`agent_file_errors`](Self::agent_file_errors),
    /// and answers a `step` or session for an agent no usable file defines.
    pub fn agents(&self, workspace: Option<&Path>) -> Result<Vec<AgentConfig>> {
        Ok(self.available_agents(workspace).agents)
    }

    /// The errors of the `agents.toml` files (the trusted workspace's, the
    /// user's) that could not be read or parsed.
    pub fn agent_file_errors(&self, workspace: Option<&Path>) -> Vec<Error> {
        self.available_agents(workspace).broken
    }

    /// The user's own MCP servers for `workspace` (or the engine's): the
    /// trusted workspace's `.radium/mcp.toml` (not read when untrusted) and
    /// `$RADIUM_HOME/mcp.toml`, with the errors of the files that could not
    /// be read. A session passes them to its agent beside radium's own.
    pub fn mcp_servers(&self, workspace: Option<&Path>) -> McpServers {
        let ws = workspace
            .map(Path::to_owned)
            .or_else(|| self.config.workspace.clone());
        let trusted = self.workspace_trusted(ws.as_deref());
        configured_mcp_servers(ws.as_deref(), &self.radium_home(), trusted)
    }

    fn available_agents(&self, workspace: Option<&Path>) -> Available {
        let ws = workspace
            .map(Path::to_owned)
            .or_else(|| self.config.workspace.clone());
        let trusted = self.workspace_trusted(ws.as_deref());
        available_agents(ws.as_deref(), &self.radium_home(), trusted)
    }

    /// The agents for `workspace` when agent `id` is among them; else the
    /// error that says why it is not: the workspace that defines it is not
    /// trusted, a broken `agents.toml`, or a catalogue agent that is not
    /// installed (the caller answers an unknown agent when there is none of
    /// these).
    pub(super) fn agents_for(
        &self,
        id: &str,
        workspace: Option<&Path>,
    ) -> Result<Vec<AgentConfig>> {
        let ws = workspace
            .map(Path::to_owned)
            .or_else(|| self.config.workspace.clone());
        let Available { agents, broken } = self.available_agents(ws.as_deref());
        // An untrusted workspace that names its own agent `id` is told to
        // trust it, rather than silently given the catalogue's agent.
        let from_catalogue = |a: &AgentConfig| {
            a.id == id && a.source.as_os_str() == crate::agents::catalogue::CATALOGUE_SOURCE
        };
        if agents.iter().any(|a| a.id == id && !from_catalogue(a)) {
            return Ok(agents);
        }
        if let Some(error) = ws
            .as_deref()
            .filter(|ws| !self.workspace_trusted(Some(ws)))
            .and_then(|ws| untrusted_agent(id, ws))
        {
            return Err(error);
        }
        // A broken file (that may have meant to override it) comes first.
        match broken.into_iter().next() {
            Some(error) => Err(error),
            None if agents.iter().any(from_catalogue) => Ok(agents),
            None => match super::agents_catalogue::not_installed(id) {
                Some(error) => Err(error),
                None => Ok(agents),
            },
        }
    }

    /// Runs an agent step (see [`crate::agents`]); the future is `Send +
    /// 'static` and, like a chain, runs host hooks on the thread that polls it
    /// while the agent's process runs on the engine's runtime. Dropping it
    /// stops the agent.
    pub fn step(
        &self,
        request: StepRequest,
        workspace: Option<&Path>,
    ) -> impl Future<Output = Result<Value>> + Send + 'static {
        let agents = self.agents_for(&request.agent, workspace);
        let registry = self.registry.clone();
        let limits = self.config.limits;
        async move { run_step(registry, agents?, request, limits).await }
    }

    /// Answers a request. Never panics on bad input: every problem becomes
    /// `{ok: false, error, code}`. A `step` blocks this thread until the
    /// agent answers: use [`handle_async`](Self::handle_async) where that matters.
    pub fn handle(&self, request: &Request) -> Response {
        block_on(self.handle_request_async(request.clone()))
    }

    /// [`handle`](Self::handle) for a request the caller gives away: its
    /// data is moved into the chain or step instead of copied (the doors
    /// use this).
    pub fn handle_request(&self, request: Request) -> Response {
        block_on(self.handle_request_async(request))
    }

    /// Answers a request as a future (`Send + 'static`): commands that wait
    /// (`step`, `hooks-execute` with script hooks) do not block the polling
    /// thread; host hooks run on the thread that polls it.
    pub fn handle_async(
        &self,
        request: &Request,
    ) -> Pin<Box<dyn Future<Output = Response> + Send + 'static>> {
        self.handle_request_async(request.clone())
    }

    /// Answers a request given as JSON (the form every door passes).
    pub fn handle_json(&self, request: Value) -> Response {
        match Request::from_json(request) {
            Ok(request) => self.handle_request(request),
            Err(e) => Response::failure(&e),
        }
    }

    /// Answers a request given as JSON text with the response as JSON text
    /// (compact, keys sorted): the whole door in one call, without building
    /// intermediate JSON values. `Err` only when `text` is not JSON at all
    /// (a misuse of the door, not a failed command).
    pub fn handle_json_text(&self, text: &str) -> std::result::Result<String, serde_json::Error> {
        Ok(match parse_json_text(text)? {
            Ok(request) => block_on(self.reply_async(request)).to_json_text(),
            Err(e) => Response::failure(&e).to_json_text(),
        })
    }

    /// [`handle_json_text`](Self::handle_json_text) as a future, like
    /// [`handle_async`](Self::handle_async); the text is parsed right away.
    pub fn handle_json_text_async(
        &self,
        text: &str,
    ) -> std::result::Result<
        Pin<Box<dyn Future<Output = String> + Send + 'static>>,
        serde_json::Error,
    > {
        Ok(match parse_json_text(text)? {
            Ok(request) => {
                let reply = self.reply_async(request);
                Box::pin(async move { reply.await.to_json_text() })
            }
            Err(e) => Box::pin(std::future::ready(Response::failure(&e).to_json_text())),
        })
    }

    /// Cancels the requests in flight that carry `id` (see [`Request::id`]);
    /// answers how many there were. Each one answers `{ok: false, code:
    /// "cancelled"}`, and the agent or script it waited on is killed.
    pub fn cancel(&self, id: &str) -> usize {
        self.inflight.cancel(id)
    }
}
