//! `.radium/hooks.toml`: hook settings by name, and the loader that finds them.
//!
//! ```toml
//! [[hooks]]
//! name = "audit"            # required: the registered hook this entry configures
//! type = "before_tool"      # required: must match the registered hook's type
//! priority = 150            # optional: higher runs first
//! enabled = false           # optional
//! matcher = "edit|create"   # optional, tool hooks only (see ToolMatcher)
//! timeout = "5s"            # optional: "250ms", "5s", "2m", or an integer of milliseconds
//!
//! [hooks.config]            # optional: handed to the hook's `configure`
//! log_level = "info"
//! ```

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::hooks::hook_type::{HookPriority, HookType};
use crate::hooks::matcher::ToolMatcher;
use crate::hooks::outcome::StopInfo;

/// The path of the workspace hook configuration, relative to the workspace root.
pub const WORKSPACE_CONFIG: &str = ".radium/hooks.toml";

/// The settings of one `[[hooks]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct HookSettings {
    /// The hook this entry configures.
    pub name: String,
    /// The type the entry says the hook has (checked against the registered hook).
    pub hook_type: Option<HookType>,
    /// Priority override.
    pub priority: Option<HookPriority>,
    /// Enabled override.
    pub enabled: Option<bool>,
    /// Tool matcher override.
    pub matcher: Option<ToolMatcher>,
    /// Time limit override.
    pub timeout: Option<Duration>,
    /// The `[hooks.config]` table, as JSON.
    pub config: Option<Value>,
    /// Where the entry came from: file and 1-based line.
    pub source: Option<(PathBuf, usize)>,
    /// For hooks defined by an extension: the program to run (relative to
    /// the extension's folder), and its arguments.
    pub script: Option<String>,
    /// Arguments for `script`.
    pub args: Vec<String>,
}

impl HookSettings {
    /// Settings for `name` with nothing overridden.
    pub fn new(name: impl Into<String>) -> Self {
        HookSettings {
            name: name.into(),
            hook_type: None,
            priority: None,
            enabled: None,
            matcher: None,
            timeout: None,
            config: None,
            source: None,
            script: None,
            args: Vec::new(),
        }
    }

    /// An error about this entry, naming its file and line when known.
    pub(crate) fn error(&self, message: String) -> Error {
        match &self.source {
            Some((path, line)) => Error::Config {
                path: path.clone(),
                line: *line,
                column: 1,
                message,
            },
            None => Error::Config {
                path: PathBuf::from("<settings>"),
                line: 0,
                column: 0,
                message,
            },
        }
    }
}

/// A parsed hook configuration file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookConfigFile {
    /// The file it came from.
    pub path: PathBuf,
    /// Its entries, in file order.
    pub hooks: Vec<HookSettings>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    hooks: Vec<toml::Spanned<RawHook>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHook {
    name: toml::Spanned<String>,
    #[serde(rename = "type")]
    hook_type: HookType,
    priority: Option<i32>,
    enabled: Option<bool>,
    matcher: Option<ToolMatcher>,
    #[serde(default, deserialize_with = "de_timeout")]
    timeout: Option<Duration>,
    config: Option<toml::Table>,
    script: Option<String>,
    #[serde(default)]
    args: Vec<String>,
}

fn de_timeout<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Duration>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Millis(i64),
        Text(String),
    }
    let parsed = match Raw::deserialize(d)? {
        Raw::Millis(ms) => u64::try_from(ms)
            .map(Duration::from_millis)
            .map_err(|_| "a timeout cannot be negative".to_owned()),
        Raw::Text(text) => parse_duration(&text),
    };
    parsed.map(Some).map_err(serde::de::Error::custom)
}

/// Parses `"250ms"`, `"5s"`, `"2m"` (and a bare integer as milliseconds).
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let text = text.trim();
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits_end);
    let bad = || format!("invalid duration `{text}`: write it like \"250ms\", \"5s\" or \"2m\"");
    let n: u64 = number.parse().map_err(|_| bad())?;
    match unit.trim() {
        "" | "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "m" => n.checked_mul(60).map(Duration::from_secs).ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |nl| before.len() - nl - 1)
        + 1;
    (line, column)
}

impl HookConfigFile {
    /// Parses configuration text; `path` is used in error messages.
    ///
    /// Errors name the file, the line and column, and the field: bad TOML, an
    /// unknown field, an unknown hook type, a wrong value type, a matcher on
    /// a non-tool hook, or the same name twice.
    pub fn parse(text: &str, path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        let error_at = |span: Option<Range<usize>>, message: String| {
            let (line, column) = span.map_or((0, 0), |s| line_col(text, s.start));
            Error::Config {
                path: path.clone(),
                line,
                column,
                message,
            }
        };
        let raw: RawFile =
            toml::from_str(text).map_err(|e| error_at(e.span(), e.message().trim().to_owned()))?;
        let mut hooks: Vec<HookSettings> = Vec::with_capacity(raw.hooks.len());
        for spanned in raw.hooks {
            let span = spanned.span();
            let hook = spanned.into_inner();
            let name_span = hook.name.span();
            let name = hook.name.into_inner();
            if name.trim().is_empty() {
                return Err(error_at(
                    Some(name_span),
                    "field `name`: a hook name cannot be empty".to_owned(),
                ));
            }
            if hooks.iter().any(|h| h.name == name) {
                return Err(error_at(
                    Some(name_span),
                    format!("field `name`: hook `{name}` is configured twice"),
                ));
            }
            if hook.matcher.is_some() && !hook.hook_type.is_tool_hook() {
                return Err(error_at(
                    Some(span),
                    format!(
                        "field `matcher`: hook `{name}` is a {} hook; matchers apply only to before_tool, after_tool and tool_selection hooks",
                        hook.hook_type
                    ),
                ));
            }
            let config =
                match hook.config {
                    Some(table) => Some(serde_json::to_value(table).map_err(|e| {
                        error_at(Some(span.clone()), format!("field `config`: {e}"))
                    })?),
                    None => None,
                };
            let (line, _) = line_col(text, span.start);
            hooks.push(HookSettings {
                name,
                hook_type: Some(hook.hook_type),
                priority: hook.priority.map(HookPriority),
                enabled: hook.enabled,
                matcher: hook.matcher,
                timeout: hook.timeout,
                config,
                source: Some((path.clone(), line)),
                script: hook.script,
                args: hook.args,
            });
        }
        Ok(HookConfigFile { path, hooks })
    }

    /// Reads and parses a configuration file.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        HookConfigFile::parse(&text, path)
    }
}

/// A hook configuration that could not be applied, as a registry keeps it
/// (see [`HookRegistry::set_config_error`](crate::hooks::registry::HookRegistry::set_config_error)):
/// the file, line, column and message of an [`Error::Config`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigFault {
    path: PathBuf,
    line: usize,
    column: usize,
    message: String,
}

impl ConfigFault {
    /// The fault of `error`: a configuration error as it is; a file that
    /// could not be read keeps its path and message (line and column 0, as
    /// for any configuration error without a position); anything else is
    /// kept as its message.
    pub(crate) fn new(error: Error) -> Self {
        match error {
            Error::Config {
                path,
                line,
                column,
                message,
            } => ConfigFault {
                path,
                line,
                column,
                message,
            },
            Error::Io { path, source } => ConfigFault {
                path,
                line: 0,
                column: 0,
                message: source.to_string(),
            },
            other => ConfigFault {
                path: PathBuf::from("<settings>"),
                line: 0,
                column: 0,
                message: other.to_string(),
            },
        }
    }

    /// The [`Error::Config`] every refused chain reports.
    pub(crate) fn error(&self) -> Error {
        Error::Config {
            path: self.path.clone(),
            line: self.line,
            column: self.column,
            message: self.message.clone(),
        }
    }

    /// The `stopped_by` of a refused chain: the file, and the whole message.
    pub(crate) fn stop_info(&self) -> StopInfo {
        StopInfo {
            hook: self.path.display().to_string(),
            reason: self.error().to_string(),
        }
    }
}

/// Finds and loads hook configuration.
///
/// Today it reads the workspace file `.radium/hooks.toml`; extension
/// discovery joins it in a later release.
#[derive(Debug, Clone)]
pub struct HookLoader {
    workspace: PathBuf,
}

impl HookLoader {
    /// A loader for the workspace rooted at `workspace`.
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        HookLoader {
            workspace: workspace.into(),
        }
    }

    /// The workspace configuration path.
    pub fn config_path(&self) -> PathBuf {
        self.workspace.join(WORKSPACE_CONFIG)
    }

    /// Loads the workspace configuration, or `None` when the file does not exist.
    pub fn load(&self) -> Result<Option<HookConfigFile>> {
        let path = self.config_path();
        if path.is_file() {
            HookConfigFile::from_path(&path).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Loads the workspace configuration and applies it to `registry`.
    /// Returns how many entries were applied (0 when there is no file).
    pub fn apply(&self, registry: &crate::hooks::registry::HookRegistry) -> Result<usize> {
        match self.load()? {
            Some(file) => {
                registry.apply_config(&file)?;
                Ok(file.hooks.len())
            }
            None => Ok(0),
        }
    }
}
