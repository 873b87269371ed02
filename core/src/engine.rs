//! [`Engine`]: the registry plus configuration, answering [`Request`]s.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::config::HookLoader;
use crate::context::HookContext;
use crate::error::{Error, Result};
use crate::hook_type::HookType;
use crate::protocol::{Request, Response};
use crate::registry::{ExecuteOptions, HookRegistry};
use crate::result::json_kind;

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
];

/// Engine settings, as the doors pass them (JSON object, every field optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineConfig {
    /// The workspace root; its `.radium/hooks.toml`, if any, is applied.
    pub workspace: Option<PathBuf>,
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
        for (key, field) in map {
            match (key.as_str(), field) {
                ("workspace", Value::Null) => {}
                ("workspace", Value::String(path)) => config.workspace = Some(PathBuf::from(path)),
                ("workspace", other) => {
                    return Err(Error::InvalidArgument(format!(
                        "engine configuration: `workspace` must be a string (a directory), got {}",
                        json_kind(other)
                    )))
                }
                (unknown, _) => {
                    return Err(Error::InvalidArgument(format!(
                        "engine configuration: unknown field `{unknown}`; known fields: workspace"
                    )))
                }
            }
        }
        Ok(config)
    }
}

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

impl Engine {
    /// An engine with `config`; applies the workspace's `.radium/hooks.toml` if there is one.
    pub fn new(config: EngineConfig) -> Result<Self> {
        let engine = Engine {
            registry: HookRegistry::new(),
            config,
        };
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

    /// Answers a request. Never panics on bad input: every problem becomes
    /// `{ok: false, error, code}`.
    pub fn handle(&self, request: &Request) -> Response {
        match self.dispatch(request) {
            Ok(data) => Response::success(data),
            Err(e) => Response::failure(&e),
        }
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
                Ok(self.registry.execute_with(context, &options).to_json())
            }
            other => Err(Error::UnknownCommand(other.to_owned())),
        }
    }
}
