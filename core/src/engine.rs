//! [`Engine`]: the registry plus configuration, answering [`Request`]s.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Map, Value};

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

use crate::agent::{default_radium_home, load_agents, AgentConfig};
use crate::config::HookLoader;
use crate::context::HookContext;
use crate::editor::apply::{apply_block, write_atomic};
use crate::editor::context::{ContextLimits, EditorContext};
use crate::editor::extract::ExtractedAnswer;
use crate::editor::hooks::{CodeApplyHook, EditorContextHook, STEP_TOOL};
use crate::error::{Error, Result};
use crate::hook_type::HookType;
use crate::matcher::ToolMatcher;
use crate::protocol::{Request, Response};
use crate::registry::HookOptions;
use crate::registry::{ExecuteOptions, HookRegistry};
use crate::result::json_kind;
use crate::step::{run_step, StepRequest};

/// The version of the request protocol and of the C ABI built on it.
pub const ABI_VERSION: u32 = 1;

/// The commands [`Engine::handle`] answers today.
pub const COMMANDS: &[&str] = &[
    "ping",
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
];

/// Engine settings, as the doors pass them (JSON object, every field optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineConfig {
    /// The workspace root; its `.radium/hooks.toml`, if any, is applied, and
    /// its `.radium/agents.toml` lists agents.
    pub workspace: Option<PathBuf>,
    /// `$RADIUM_HOME` (default: the variable, else `~/.radium`).
    pub radium_home: Option<PathBuf>,
    /// Size limits for editor contexts.
    pub limits: ContextLimits,
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

fn string_arg<'a>(command: &str, args: &'a Map<String, Value>, name: &str) -> Result<&'a str> {
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

fn line_arg(command: &str, args: &Map<String, Value>, name: &str) -> Result<Option<usize>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(Some(
            usize::try_from(n.as_u64().unwrap_or(0)).unwrap_or(usize::MAX),
        )),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: argument `{name}` must be a line number (1-based), got {}",
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

    /// An engine with `config`; applies the workspace's `.radium/hooks.toml` if there is one.
    pub fn new(config: EngineConfig) -> Result<Self> {
        let engine = Engine {
            registry: HookRegistry::new(),
            config,
        };
        let step_only = || HookOptions {
            matcher: ToolMatcher::new(STEP_TOOL).ok(),
            ..HookOptions::default()
        };
        engine
            .registry
            .register_with(EditorContextHook::new(engine.config.limits), step_only())?;
        engine.registry.register_with(CodeApplyHook, step_only())?;
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

    /// The agents configured for `workspace` (or the engine's) and the user.
    pub fn agents(&self, workspace: Option<&Path>) -> Result<Vec<AgentConfig>> {
        let ws = workspace
            .map(Path::to_owned)
            .or_else(|| self.config.workspace.clone());
        load_agents(ws.as_deref(), &self.radium_home())
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
        let registry = self.registry.clone();
        let limits = self.config.limits;
        async move { run_step(registry, agents?, request, limits).await }
    }

    /// Answers a request. Never panics on bad input: every problem becomes
    /// `{ok: false, error, code}`. A `step` blocks this thread until the
    /// agent answers: use [`handle_async`](Self::handle_async) where that matters.
    pub fn handle(&self, request: &Request) -> Response {
        let mut future = std::pin::pin!(self.handle_async(request));
        match future
            .as_mut()
            .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
        {
            std::task::Poll::Ready(response) => response,
            std::task::Poll::Pending => pollster::block_on(future),
        }
    }

    /// Answers a request as a future (`Send + 'static`): commands that wait
    /// (`step`, `hooks-execute` with script hooks) do not block the polling
    /// thread; host hooks run on the thread that polls it.
    pub fn handle_async(
        &self,
        request: &Request,
    ) -> impl Future<Output = Response> + Send + 'static {
        let work: Pin<Box<dyn Future<Output = Result<Value>> + Send>> =
            match request.command.as_str() {
                "step" => match self.step_request(request) {
                    Ok(step) => Box::pin(step),
                    Err(e) => Box::pin(std::future::ready(Err(e))),
                },
                "hooks-execute" => match self.execute_request(request) {
                    Ok(chain) => Box::pin(async move { Ok(chain.await.to_json()) }),
                    Err(e) => Box::pin(std::future::ready(Err(e))),
                },
                _ => Box::pin(std::future::ready(self.dispatch(request))),
            };
        async move {
            match work.await {
                Ok(data) => Response::success(data),
                Err(e) => Response::failure(&e),
            }
        }
    }

    fn execute_request(
        &self,
        request: &Request,
    ) -> Result<impl Future<Output = crate::ChainOutcome> + Send + 'static> {
        let args = args_object(request)?;
        let command = "hooks-execute";
        let hook_type: HookType = string_arg(command, args, "hook_type")?.parse()?;
        let data = args.get("data").cloned().unwrap_or(Value::Null);
        let metadata = args.get("metadata").cloned().unwrap_or(Value::Null);
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
        let context = HookContext::new(hook_type, data).with_metadata(metadata);
        Ok(self.registry.execute_async(context, options))
    }

    fn step_request(
        &self,
        request: &Request,
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
        let context = args.get("context").cloned().unwrap_or(Value::Null);
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
            Ok(request) => self.handle(&request),
            Err(e) => Response::failure(&e),
        }
    }

    fn dispatch(&self, request: &Request) -> Result<Value> {
        let args = args_object(request)?;
        let command = request.command.as_str();
        match command {
            "ping" => Ok(json!("pong")),
            "version" => Ok(json!({"version": crate::VERSION, "abi_version": ABI_VERSION})),
            "hooks-list" => Ok(serde_json::to_value(self.registry.list()).unwrap_or_default()),
            "hooks-enable" | "hooks-disable" => {
                let name = string_arg(command, args, "name")?;
                self.registry.set_enabled(name, command == "hooks-enable")?;
                Ok(json!({"name": name, "enabled": command == "hooks-enable"}))
            }
            "hooks-execute" => {
                let chain = self.execute_request(request)?;
                let mut chain = std::pin::pin!(chain);
                let outcome = match chain
                    .as_mut()
                    .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
                {
                    std::task::Poll::Ready(outcome) => outcome,
                    std::task::Poll::Pending => pollster::block_on(chain),
                };
                Ok(outcome.to_json())
            }
            "context" => {
                let context = EditorContext::from_json(&request.args, &self.config.limits)?;
                Ok(context.to_json())
            }
            "extract" => {
                let text = string_arg(command, args, "text")?;
                Ok(serde_json::to_value(ExtractedAnswer::from_answer(text)).unwrap_or_default())
            }
            "apply" => self.apply(request, args),
            "agents" => {
                let workspace = self.workspace_for(request.cwd.as_deref());
                Ok(serde_json::to_value(self.agents(workspace.as_deref())?).unwrap_or_default())
            }
            other => Err(Error::UnknownCommand(other.to_owned())),
        }
    }
}
