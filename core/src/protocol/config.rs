//! [`EngineConfig`]: an engine's settings, as the doors pass them.

use std::path::PathBuf;

use serde_json::Value;

use crate::edit::DEFAULT_DEPTH;
use crate::editor::context::ContextLimits;
use crate::error::{Error, Result};
use crate::support::json::json_kind;

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
    /// How many steps the edit history keeps per project (default 100): a
    /// step is every changeset one request made (a rename across 1,000
    /// files is one), kept or dropped whole.
    pub history_depth: u64,
    /// The `rad` program an agent session starts as radium's MCP server
    /// (`rad mcp`) for its agent; default: `rad` found on `PATH`. With none,
    /// sessions offer agents no radium tools.
    pub rad_program: Option<PathBuf>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            workspace: None,
            radium_home: None,
            limits: ContextLimits::default(),
            history_depth: DEFAULT_DEPTH,
            rad_program: None,
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
                ("rad_program", Value::String(path)) => {
                    config.rad_program = Some(PathBuf::from(path));
                }
                ("rad_program", other) => {
                    return Err(bad("rad_program", "a string (the path of `rad`)", other))
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

const KNOWN_CONFIG: [&str; 5] = [
    "workspace",
    "radium_home",
    "rad_program",
    "max_selection_bytes",
    "max_surrounding_bytes",
];
