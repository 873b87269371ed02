//! [`Engine`]: the registry plus configuration, answering [`Request`]s.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Map, Value};

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::task::Poll;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::agent::{default_radium_home, load_agents, AgentConfig};
use crate::config::HookLoader;
use crate::context::HookContext;
use crate::edit::{EditOutcome, EditSession, DEFAULT_DEPTH, EDIT_COMMANDS};
use crate::editor::apply::{apply_block, write_atomic};
use crate::editor::context::{ContextLimits, EditorContext};
use crate::editor::extract::ExtractedAnswer;
use crate::editor::hooks::{CodeApplyHook, EditorContextHook, STEP_TOOL};
use crate::error::{Error, Result};
use crate::extension::{copy_tree, discover, read_extension, Extension, Level, MANIFEST};
use crate::hook_type::HookType;
use crate::matcher::ToolMatcher;
use crate::protocol::{Request, Response};
use crate::registry::HookOptions;
use crate::registry::{ExecuteOptions, HookRegistry};
use crate::result::json_kind;
use crate::script::ScriptHook;
use crate::step::{run_step, StepRequest};
use crate::trust::TrustStore;

/// The version of the request protocol and of the C ABI built on it.
pub const ABI_VERSION: u32 = 1;

/// The commands [`Engine::handle`] answers today.
pub const COMMANDS: &[&str] = &[
    "ping",
    "shutdown",
    "version",
    "hooks-list",
    "hooks-execute",
    "hooks-enable",
    "hooks-disable",
    "context",
    "extract",
    "apply",
    "agents",
    "step",
    "cancel",
    "ext-install",
    "ext-list",
    "ext-remove",
    "trust",
    "view",
    "create",
    "str-replace",
    "insert",
    "undo",
    "redo",
    "solve-conflict",
];

/// Engine settings, as the doors pass them (JSON object, every field optional).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineConfig {
    /// The workspace root; its `.radium/hooks.toml`, if any, is applied, and
    /// its `.radium/agents.toml` lists agents.
    pub workspace: Option<PathBuf>,
    /// `$RADIUM_HOME` (default: the variable, else `~/.radium`).
    pub radium_home: Option<PathBuf>,
    /// Size limits for editor contexts.
    pub limits: ContextLimits,
    /// How many changesets the edit history keeps per project (default 100).
    pub history_depth: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            workspace: None,
            radium_home: None,
            limits: ContextLimits::default(),
            history_depth: DEFAULT_DEPTH,
        }
    }
}

impl EngineConfig {
    /// Parses the configuration JSON; `null` means the defaults. Errors name
    /// the field and what was expected.
    pub fn from_json(value: &Value) -> Result<Self> {
        let map = match value {
            Value::Null => return Ok(EngineConfig::default()),
            Value::Object(map) => map,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "engine configuration must be an object, got {}",
                    json_kind(other)
                )))
            }
        };
        let mut config = EngineConfig::default();
        let bad = |field: &str, expected: &str, got: &Value| {
            Error::InvalidArgument(format!(
                "engine configuration: `{field}` must be {expected}, got {}",
                json_kind(got)
            ))
        };
        for (key, field) in map {
            match (key.as_str(), field) {
                (_, Value::Null) if KNOWN_CONFIG.contains(&key.as_str()) => {}
                ("workspace", Value::String(path)) => config.workspace = Some(PathBuf::from(path)),
                ("radium_home", Value::String(path)) => {
                    config.radium_home = Some(PathBuf::from(path));
                }
                ("max_selection_bytes" | "max_surrounding_bytes", Value::Number(n))
                    if n.as_u64().is_some() =>
                {
                    let n = usize::try_from(n.as_u64().unwrap_or(0)).unwrap_or(usize::MAX);
                    if key == "max_selection_bytes" {
                        config.limits.max_selection_bytes = n;
                    } else {
                        config.limits.max_surrounding_bytes = n;
                    }
                }
                ("workspace", other) => {
                    return Err(bad("workspace", "a string (a directory)", other))
                }
                ("radium_home", other) => {
                    return Err(bad("radium_home", "a string (a directory)", other))
                }
                ("max_selection_bytes" | "max_surrounding_bytes", other) => {
                    return Err(bad(key, "a non-negative whole number", other))
                }
                (unknown, _) => {
                    return Err(Error::InvalidArgument(format!(
                        "engine configuration: unknown field `{unknown}`; known fields: {}",
                        KNOWN_CONFIG.join(", ")
                    )))
                }
            }
        }
        Ok(config)
    }
}

const KNOWN_CONFIG: [&str; 4] = [
    "workspace",
    "radium_home",
    "max_selection_bytes",
    "max_surrounding_bytes",
];

/// One engine: a hook registry and its settings. Cheap to clone; clones share state.
#[derive(Debug, Clone, Default)]
pub struct Engine {
    registry: HookRegistry,
    config: EngineConfig,
    /// Active extensions: name → the hooks registered for it.
    extensions: Arc<Mutex<BTreeMap<String, Vec<String>>>>,
    /// Requests in flight that carry an `id`, for `cancel`.
    inflight: Arc<Inflight>,
}

/// The cancel tokens of the requests in flight that carry an `id`.
#[derive(Debug, Default)]
struct Inflight {
    next: AtomicU64,
    by_id: Mutex<HashMap<String, Vec<(u64, CancellationToken)>>>,
}

impl Inflight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<(u64, CancellationToken)>>> {
        // A panic while the map is held cannot leave it inconsistent (each
        // change is one insert or remove), so a poisoned lock is still usable.
        self.by_id
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a request; the guard unregisters it when the request ends
    /// or is dropped.
    fn register(self: &Arc<Self>, id: &str) -> (CancellationToken, InflightGuard) {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        self.lock()
            .entry(id.to_owned())
            .or_default()
            .push((seq, token.clone()));
        let guard = InflightGuard {
            inflight: Arc::clone(self),
            id: id.to_owned(),
            seq,
        };
        (token, guard)
    }

    /// Cancels every request in flight with `id`; answers how many.
    fn cancel(&self, id: &str) -> usize {
        let tokens = self.lock().remove(id).unwrap_or_default();
        for (_, token) in &tokens {
            token.cancel();
        }
        tokens.len()
    }
}

struct InflightGuard {
    inflight: Arc<Inflight>,
    id: String,
    seq: u64,
}

impl Drop for InflightGuard {
    fn drop(&mut self) {
        let mut map = self.inflight.lock();
        if let Some(list) = map.get_mut(&self.id) {
            list.retain(|(seq, _)| *seq != self.seq);
            if list.is_empty() {
                map.remove(&self.id);
            }
        }
    }
}

fn args_object(request: &Request) -> Result<&Map<String, Value>> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match &request.args {
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        Value::Object(map) => Ok(map),
        other => Err(Error::InvalidArgument(format!(
            "`{}`: args must be an object, got {}",
            request.command,
            json_kind(other)
        ))),
    }
}

/// Moves an argument out of the request (`null` when absent); the
/// arguments were checked to be an object or null before.
fn take_arg(request: &mut Request, name: &str) -> Value {
    match &mut request.args {
        Value::Object(map) => map.remove(name).unwrap_or(Value::Null),
        _ => Value::Null,
    }
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

pub(crate) fn string_arg<'a>(
    command: &str,
    args: &'a Map<String, Value>,
    name: &str,
) -> Result<&'a str> {
    match args.get(name) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(Error::InvalidArgument(format!(
            "`{command}`: missing argument `{name}`"
        ))),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: argument `{name}` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

pub(crate) fn line_arg(
    command: &str,
    args: &Map<String, Value>,
    name: &str,
) -> Result<Option<usize>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(Some(
            usize::try_from(n.as_u64().unwrap_or(0)).unwrap_or(usize::MAX),
        )),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: argument `{name}` must be a line number, got {}",
            json_kind(other)
        ))),
    }
}

impl Engine {
    /// `apply`: `{content, text? | file?, start_line?, end_line?, write?}`.
    fn apply(&self, request: &Request, args: &Map<String, Value>) -> Result<Value> {
        let content = string_arg("apply", args, "content")?;
        let start = line_arg("apply", args, "start_line")?;
        let end = line_arg("apply", args, "end_line")?;
        let range = match (start, end) {
            (None, None) => None,
            (Some(s), None) => Some((s, s)),
            (None, Some(_)) => {
                return Err(Error::InvalidArgument(
                    "`apply`: `end_line` needs a `start_line`".into(),
                ))
            }
            (Some(s), Some(e)) => Some((s, e)),
        };
        let write = match args.get("write") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "`apply`: argument `write` must be a boolean, got {}",
                    json_kind(other)
                )))
            }
        };
        let file = match args.get("file") {
            None | Some(Value::Null) => None,
            Some(Value::String(f)) => Some(PathBuf::from(f)),
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "`apply`: argument `file` must be a string, got {}",
                    json_kind(other)
                )))
            }
        };
        let text = match args.get("text") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(t.clone()),
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "`apply`: argument `text` must be a string, got {}",
                    json_kind(other)
                )))
            }
        };
        if let Some(file) = &file {
            if !file.is_absolute() && request.cwd.is_none() {
                return Err(Error::InvalidArgument(format!(
                    "`apply`: `file` must be absolute (or give `cwd`), got `{}`",
                    file.display()
                )));
            }
        }
        let file = file.map(|f| match &request.cwd {
            Some(cwd) => Path::new(cwd).join(f),
            None => f,
        });
        if let (Some(f), Some(cwd)) = (&file, &request.cwd) {
            let ctx = json!({"file_path": f, "workspace": cwd});
            EditorContext::from_json(&ctx, &self.config.limits)?;
        }
        let original = match (&text, &file) {
            (Some(t), _) => t.clone(),
            (None, Some(f)) => match std::fs::read_to_string(f) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                Err(source) => {
                    return Err(Error::Io {
                        path: f.clone(),
                        source,
                    })
                }
            },
            (None, None) => {
                return Err(Error::InvalidArgument(
                    "`apply`: give the target as `text` (a buffer's text) or `file`".into(),
                ))
            }
        };
        let label = file
            .as_ref()
            .map_or_else(|| "buffer".to_owned(), |f| f.display().to_string());
        let label = label.trim_start_matches('/');
        let preview = apply_block(&original, content, range, label)?;
        let mut out = serde_json::to_value(&preview).unwrap_or_default();
        out["written"] = json!(false);
        if write {
            let Some(f) = &file else {
                return Err(Error::InvalidArgument(
                    "`apply`: `write` needs a `file`".into(),
                ));
            };
            write_atomic(f, &preview.new_text)?;
            out["written"] = json!(true);
        }
        Ok(out)
    }

    fn trust_store(&self) -> TrustStore {
        TrustStore::new(&self.radium_home())
    }

    /// Whether the engine's workspace is trusted (no workspace: nothing to trust).
    pub fn workspace_trusted(&self, workspace: Option<&Path>) -> bool {
        workspace.is_some_and(|ws| self.trust_store().is_trusted(ws))
    }

    fn lock_extensions(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<String>>> {
        self.extensions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers the hooks of every runnable discovered extension that is not active yet.
    fn activate_discovered(&self) {
        let workspace = self.config.workspace.clone();
        let trusted = self.workspace_trusted(workspace.as_deref());
        for found in discover(workspace.as_deref(), &self.radium_home()) {
            if let Ok(ext) = found.extension {
                let runnable = ext.level == Level::User || trusted;
                if runnable && !self.lock_extensions().contains_key(&ext.manifest.name) {
                    let _ = self.activate(&ext);
                }
            }
        }
    }

    /// Registers an extension's hooks (all or none).
    fn activate(&self, ext: &Extension) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::new();
        for settings in &ext.hooks {
            let Some(hook_type) = settings.hook_type else {
                continue;
            };
            let script = settings.script.clone().unwrap_or_default();
            let hook = ScriptHook::new(settings.name.clone(), hook_type, ext.path.join(script))
                .with_args(settings.args.iter().cloned())
                .with_cwd(&ext.path)
                .with_priority(settings.priority.unwrap_or_default());
            let options = HookOptions {
                priority: settings.priority,
                disabled: settings.enabled == Some(false),
                matcher: settings.matcher.clone(),
                timeout: settings.timeout,
            };
            if let Err(e) = self.registry.register_with(hook, options) {
                for name in &names {
                    let _ = self.registry.unregister(name);
                }
                return Err(Error::Extension(format!(
                    "extension `{}`: hook `{}`: {e}",
                    ext.manifest.name, settings.name
                )));
            }
            names.push(settings.name.clone());
        }
        self.lock_extensions()
            .insert(ext.manifest.name.clone(), names.clone());
        Ok(names)
    }

    fn deactivate(&self, name: &str) {
        if let Some(hooks) = self.lock_extensions().remove(name) {
            for hook in hooks {
                let _ = self.registry.unregister(&hook);
            }
        }
    }

    fn level_arg(command: &str, args: &Map<String, Value>) -> Result<Option<Level>> {
        match args.get("level") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(l)) if l == "user" => Ok(Some(Level::User)),
            Some(Value::String(l)) if l == "workspace" => Ok(Some(Level::Workspace)),
            Some(other) => Err(Error::InvalidArgument(format!(
                "`{command}`: argument `level` must be \"user\" or \"workspace\", got {other}"
            ))),
        }
    }

    fn ext_list(&self, request: &Request) -> Value {
        let workspace = self.workspace_for(request.cwd.as_deref());
        let trusted = self.workspace_trusted(workspace.as_deref());
        let active = self.lock_extensions().clone();
        let list: Vec<Value> = discover(workspace.as_deref(), &self.radium_home())
            .into_iter()
            .map(|found| match found.extension {
                Err(e) => json!({
                    "path": found.path, "level": found.level, "status": "error", "reason": e.to_string(),
                }),
                Ok(ext) => {
                    let (status, reason) = if ext.level == Level::Workspace && !trusted {
                        ("blocked", Some("the workspace is not trusted: run `rad trust` in it to allow its extensions"))
                    } else if active.contains_key(&ext.manifest.name) {
                        ("active", None)
                    } else {
                        ("error", Some("its hooks could not be registered (a name clash?)"))
                    };
                    let hooks: Vec<Value> = ext
                        .hooks
                        .iter()
                        .map(|h| json!({
                            "name": h.name,
                            "hook_type": h.hook_type,
                            "enabled": self.registry.is_enabled(&h.name).unwrap_or(false) && status == "active",
                        }))
                        .collect();
                    let mut v = serde_json::to_value(&ext).unwrap_or_default();
                    v["status"] = json!(status);
                    v["hooks"] = json!(hooks);
                    if let Some(reason) = reason {
                        v["reason"] = json!(reason);
                    }
                    v
                }
            })
            .collect();
        Value::Array(list)
    }

    fn ext_install(&self, request: &Request, args: &Map<String, Value>) -> Result<Value> {
        let source = PathBuf::from(string_arg("ext-install", args, "path")?);
        let source = match &request.cwd {
            Some(cwd) if source.is_relative() => Path::new(cwd).join(source),
            _ => source,
        };
        let force = args.get("force").and_then(Value::as_bool).unwrap_or(false);
        let level = Self::level_arg("ext-install", args)?.unwrap_or(Level::User);
        let workspace = self.workspace_for(request.cwd.as_deref());
        let ext = read_extension(&source, level)?;
        let folder = level
            .folder(workspace.as_deref(), &self.radium_home())
            .ok_or_else(|| {
                Error::InvalidArgument(
                    "`ext-install`: level `workspace` needs a workspace (cwd)".into(),
                )
            })?;
        let dest = folder.join(&ext.manifest.name);
        if dest.exists() && !force {
            return Err(Error::Extension(format!(
                "extension `{}` is already installed at {}; install with force to replace it",
                ext.manifest.name,
                dest.display()
            )));
        }
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::Io { path, source }
        };
        std::fs::create_dir_all(&folder).map_err(io(&folder))?;
        let staging = folder.join(format!(
            ".{}.installing-{}",
            ext.manifest.name,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&staging);
        copy_tree(&source, &staging).map_err(io(&staging))?;
        self.deactivate(&ext.manifest.name);
        if dest.exists() {
            std::fs::remove_dir_all(&dest).map_err(io(&dest))?;
        }
        std::fs::rename(&staging, &dest).map_err(io(&dest))?;
        let installed = read_extension(&dest, level)?;
        let runnable = level == Level::User || self.workspace_trusted(workspace.as_deref());
        let hooks = if runnable {
            self.activate(&installed)?
        } else {
            Vec::new()
        };
        Ok(json!({
            "name": installed.manifest.name,
            "version": installed.manifest.version,
            "level": level,
            "path": dest,
            "hooks": hooks,
            "active": runnable,
        }))
    }

    fn ext_remove(&self, request: &Request, args: &Map<String, Value>) -> Result<Value> {
        let name = string_arg("ext-remove", args, "name")?;
        let wanted = Self::level_arg("ext-remove", args)?;
        let workspace = self.workspace_for(request.cwd.as_deref());
        for level in [Level::Workspace, Level::User] {
            if wanted.is_some_and(|w| w != level) {
                continue;
            }
            let Some(folder) = level.folder(workspace.as_deref(), &self.radium_home()) else {
                continue;
            };
            let dir = folder.join(name);
            if dir.join(MANIFEST).exists() {
                self.deactivate(name);
                std::fs::remove_dir_all(&dir).map_err(|source| Error::Io {
                    path: dir.clone(),
                    source,
                })?;
                // A user extension hidden by the removed workspace one may run now.
                self.activate_discovered();
                return Ok(json!({"name": name, "level": level, "path": dir}));
            }
        }
        Err(Error::Extension(format!(
            "no extension named `{name}` is installed"
        )))
    }

    fn trust(&self, request: &Request, args: &Map<String, Value>) -> Result<Value> {
        let path = match args.get("path") {
            Some(Value::String(p)) => Some(PathBuf::from(p)),
            None | Some(Value::Null) => self.workspace_for(request.cwd.as_deref()),
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "`trust`: argument `path` must be a string, got {}",
                    json_kind(other)
                )))
            }
        }
        .ok_or_else(|| Error::InvalidArgument("`trust`: give a `path` (or a `cwd`)".into()))?;
        let revoke = args.get("revoke").and_then(Value::as_bool).unwrap_or(false);
        let store = self.trust_store();
        if revoke {
            store.revoke(&path)?;
            // Workspace extensions already running stop now.
            for found in discover(self.config.workspace.as_deref(), &self.radium_home()) {
                if let (Ok(ext), Level::Workspace) = (&found.extension, found.level) {
                    self.deactivate(&ext.manifest.name);
                }
            }
            return Ok(json!({"path": path, "trusted": false}));
        }
        let real = store.trust(&path)?;
        self.activate_discovered();
        Ok(json!({"path": real, "trusted": true}))
    }

    /// An engine with `config`; applies the workspace's `.radium/hooks.toml` if there is one.
    pub fn new(config: EngineConfig) -> Result<Self> {
        let engine = Engine {
            registry: HookRegistry::new(),
            config,
            extensions: Arc::default(),
            inflight: Arc::default(),
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
        engine.activate_discovered();
        if let Some(workspace) = &engine.config.workspace {
            HookLoader::new(workspace).apply(&engine.registry)?;
        }
        Ok(engine)
    }

    /// The engine's hook registry.
    pub fn registry(&self) -> &HookRegistry {
        &self.registry
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

    fn workspace_for(&self, request_cwd: Option<&str>) -> Option<PathBuf> {
        request_cwd
            .map(PathBuf::from)
            .or_else(|| self.config.workspace.clone())
    }

    /// The agents configured for `workspace` (or the engine's) and the
    /// user. The workspace's own agents are left out unless the workspace is
    /// trusted.
    pub fn agents(&self, workspace: Option<&Path>) -> Result<Vec<AgentConfig>> {
        let ws = workspace
            .map(Path::to_owned)
            .or_else(|| self.config.workspace.clone());
        let all = load_agents(ws.as_deref(), &self.radium_home())?;
        let trusted = self.workspace_trusted(ws.as_deref());
        let home = self.radium_home();
        Ok(all
            .into_iter()
            .filter(|a| trusted || a.source.starts_with(&home))
            .collect())
    }

    /// A clear error for an agent that exists only in an untrusted workspace.
    fn untrusted_agent(&self, id: &str, workspace: Option<&Path>) -> Option<Error> {
        let ws = workspace
            .map(Path::to_owned)
            .or_else(|| self.config.workspace.clone())?;
        if self.workspace_trusted(Some(&ws)) {
            return None;
        }
        let all = load_agents(Some(&ws), &self.radium_home()).ok()?;
        all.iter().find(|a| a.id == id && !a.source.starts_with(self.radium_home())).map(|a| {
            Error::Untrusted(format!(
                "agent `{id}` is defined in {}, but the workspace {} is not trusted; trust it first (`rad trust`, or the `trust` command)",
                a.source.display(),
                ws.display()
            ))
        })
    }

    /// Runs an agent step (see [`crate::agent`]); the future is `Send +
    /// 'static` and, like a chain, runs host hooks on the thread that polls it
    /// while the agent's process runs on the engine's runtime. Dropping it
    /// stops the agent.
    pub fn step(
        &self,
        request: StepRequest,
        workspace: Option<&Path>,
    ) -> impl Future<Output = Result<Value>> + Send + 'static {
        let agents = self.agents(workspace);
        let untrusted = agents
            .as_ref()
            .ok()
            .filter(|list| !list.iter().any(|a| a.id == request.agent))
            .and_then(|_| self.untrusted_agent(&request.agent, workspace));
        let registry = self.registry.clone();
        let limits = self.config.limits;
        async move {
            if let Some(error) = untrusted {
                return Err(error);
            }
            run_step(registry, agents?, request, limits).await
        }
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

    /// [`handle_async`](Self::handle_async) for a request the caller gives
    /// away (its data is moved, not copied).
    pub fn handle_request_async(
        &self,
        mut request: Request,
    ) -> Pin<Box<dyn Future<Output = Response> + Send + 'static>> {
        let work: Pin<Box<dyn Future<Output = Result<Value>> + Send>> =
            match request.command.as_str() {
                "step" => match self.step_request(&mut request) {
                    Ok(step) => Box::pin(step),
                    Err(e) => Box::pin(std::future::ready(Err(e))),
                },
                "hooks-execute" => match self.execute_request(&mut request) {
                    Ok(chain) => Box::pin(async move { Ok(chain.await.into_json()) }),
                    Err(e) => Box::pin(std::future::ready(Err(e))),
                },
                cmd if EDIT_COMMANDS.contains(&cmd) => {
                    let engine = self.clone();
                    return Box::pin(async move { engine.edit(request).await });
                }
                _ => Box::pin(std::future::ready(self.dispatch(&request))),
            };
        let work = match request.id.as_deref() {
            Some(id) => self.cancellable(id, work),
            None => work,
        };
        Box::pin(async move {
            match work.await {
                Ok(data) => Response::success(data),
                Err(e) => Response::failure(&e),
            }
        })
    }

    /// `work` under the cancel token of `id`: a `cancel` of that id ends it
    /// with `cancelled`, and dropping the work stops what it waits on (an
    /// agent's or a script's process group is killed).
    fn cancellable(
        &self,
        id: &str,
        mut work: Pin<Box<dyn Future<Output = Result<Value>> + Send>>,
    ) -> Pin<Box<dyn Future<Output = Result<Value>> + Send>> {
        let (token, guard) = self.inflight.register(id);
        Box::pin(async move {
            let mut cancelled = std::pin::pin!(token.cancelled());
            std::future::poll_fn(|cx| {
                if let Poll::Ready(result) = work.as_mut().poll(cx) {
                    return Poll::Ready(result);
                }
                cancelled.as_mut().poll(cx).map(|()| {
                    Err(Error::Cancelled(format!(
                        "request `{}` was cancelled",
                        guard.id
                    )))
                })
            })
            .await
        })
    }

    /// Cancels the requests in flight that carry `id` (see [`Request::id`]);
    /// answers how many there were. Each one answers `{ok: false, code:
    /// "cancelled"}`, and the agent or script it waited on is killed.
    pub fn cancel(&self, id: &str) -> usize {
        self.inflight.cancel(id)
    }

    /// An edit command: through the tool hooks, under the project lock, with
    /// the session's tag and rewind warnings in the response. The hooks run
    /// as a chain (host hooks on the polling thread, scripts in the
    /// background) and the disk work on the engine's runtime, so an async door
    /// never waits on either.
    async fn edit(self, request: Request) -> Response {
        match self.edit_inner(request).await {
            Ok(outcome) => {
                let mut response = Response::success(outcome.data);
                response.tag = outcome.tag;
                response.warnings = outcome.warnings;
                response
            }
            Err(e) => Response::failure(&e),
        }
    }

    async fn edit_inner(&self, request: Request) -> Result<EditOutcome> {
        let command = request.command.clone();
        let root = self.workspace_for(request.cwd.as_deref()).ok_or_else(|| {
            Error::InvalidArgument(format!("`{command}`: give the project root as `cwd`"))
        })?;
        let args = args_object(&request)?.clone();
        let before = self
            .registry
            .execute_async(
                HookContext::new(
                    HookType::BeforeTool,
                    json!({"tool_name": command, "arguments": args}),
                ),
                ExecuteOptions::default(),
            )
            .await;
        if let Some(stop) = before.stopped_by {
            return Err(Error::Refused {
                hook: stop.hook,
                reason: stop.reason,
                stage: "before_tool".into(),
            });
        }
        let args = match before.data.get("arguments") {
            Some(Value::Object(map)) => map.clone(),
            _ => args,
        };
        let home = self.radium_home();
        let depth = self.config.history_depth;
        let (tag, run_command, run_args) = (request.tag, command.clone(), args.clone());
        let work = self.registry.runtime_handle()?.spawn_blocking(move || {
            let mut session = EditSession::open(&root, &home, depth)?;
            session.run(&run_command, &run_args, tag.as_deref())
        });
        let mut outcome = work
            .await
            .map_err(|e| Error::Runtime(format!("the `{command}` edit did not finish: {e}")))??;
        let after = self
            .registry
            .execute_async(
                HookContext::new(
                    HookType::AfterTool,
                    json!({"tool_name": command, "arguments": args, "result": outcome.data}),
                ),
                ExecuteOptions::default(),
            )
            .await;
        if let Some(result) = after.data.get("result") {
            outcome.data = result.clone();
        }
        Ok(outcome)
    }

    fn execute_request(
        &self,
        request: &mut Request,
    ) -> Result<impl Future<Output = crate::ChainOutcome> + Send + 'static> {
        let args = args_object(request)?;
        let command = "hooks-execute";
        let hook_type: HookType = string_arg(command, args, "hook_type")?.parse()?;
        let options = match args.get("timeout_ms") {
            None | Some(Value::Null) => ExecuteOptions::default(),
            Some(Value::Number(n)) if n.as_u64().is_some() => {
                ExecuteOptions::with_timeout(Duration::from_millis(n.as_u64().unwrap_or(0)))
            }
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "`hooks-execute`: argument `timeout_ms` must be a non-negative integer, got {}",
                    json_kind(other)
                )))
            }
        };
        let data = take_arg(request, "data");
        let metadata = take_arg(request, "metadata");
        let context = HookContext::new(hook_type, data).with_metadata(metadata);
        Ok(self.registry.execute_async(context, options))
    }

    fn step_request(
        &self,
        request: &mut Request,
    ) -> Result<impl Future<Output = Result<Value>> + Send + 'static> {
        let args = args_object(request)?;
        let agent = string_arg("step", args, "agent")?.to_owned();
        let prompt = match args.get("prompt") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "`step`: argument `prompt` must be a string, got {}",
                    json_kind(other)
                )))
            }
        };
        let context = take_arg(request, "context");
        let workspace = self.workspace_for(request.cwd.as_deref());
        Ok(self.step(
            StepRequest {
                agent,
                prompt,
                context,
            },
            workspace.as_deref(),
        ))
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
        Ok(block_on(self.handle_json_text_async(text)?))
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
        let response = match sonic_rs::from_str::<Request>(text) {
            Ok(request) => self.handle_request_async(request),
            // Not a well-formed request: the slower path gives the precise
            // error (not JSON at all, not an object, an unknown field...).
            Err(_) => match Request::from_json(serde_json::from_str(text)?) {
                Ok(request) => self.handle_request_async(request),
                Err(e) => Box::pin(std::future::ready(Response::failure(&e))),
            },
        };
        Ok(Box::pin(async move { response.await.to_json_text() }))
    }

    /// The commands that answer at once (`step`, `hooks-execute` and the
    /// edit commands are futures: see `handle_request_async`).
    fn dispatch(&self, request: &Request) -> Result<Value> {
        let args = args_object(request)?;
        let command = request.command.as_str();
        match command {
            "ping" => Ok(json!("pong")),
            "shutdown" => Ok(json!("nothing to shut down: this engine runs in-process")),
            "version" => Ok(json!({"version": crate::VERSION, "abi_version": ABI_VERSION})),
            "hooks-list" => Ok(serde_json::to_value(self.registry.list()).unwrap_or_default()),
            "hooks-enable" | "hooks-disable" => {
                let name = string_arg(command, args, "name")?;
                self.registry.set_enabled(name, command == "hooks-enable")?;
                Ok(json!({"name": name, "enabled": command == "hooks-enable"}))
            }
            "context" => {
                let context = EditorContext::from_json(&request.args, &self.config.limits)?;
                Ok(context.into_json())
            }
            "extract" => {
                let text = string_arg(command, args, "text")?;
                Ok(ExtractedAnswer::from_answer(text).into_json())
            }
            "apply" => self.apply(request, args),
            "ext-list" => Ok(self.ext_list(request)),
            "ext-install" => self.ext_install(request, args),
            "ext-remove" => self.ext_remove(request, args),
            "trust" => self.trust(request, args),
            "cancel" => {
                let id = string_arg(command, args, "id")?;
                Ok(json!({"id": id, "cancelled": self.cancel(id)}))
            }
            "agents" => {
                let workspace = self.workspace_for(request.cwd.as_deref());
                Ok(serde_json::to_value(self.agents(workspace.as_deref())?).unwrap_or_default())
            }
            other => Err(Error::UnknownCommand(other.to_owned())),
        }
    }
}
