//! [`EditorContext`]: what an editor sends with a request, validated and sanitised.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::language::{detect_language, language_from_shebang};
use crate::error::{Error, Result};
use crate::support::json::json_kind;
use crate::support::names::editor_env;
use crate::support::paths::resolve;

pub use crate::support::names::EDITOR_ENV_VARS as ENV_VARS;

/// The lines a selection covers: 1-based, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionRange {
    /// First selected line (1-based).
    pub start_line: usize,
    /// Last selected line (1-based, inclusive).
    pub end_line: usize,
}

/// Size limits for a context (configurable per engine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextLimits {
    /// Longest `selection`, in bytes (default 1 MiB).
    pub max_selection_bytes: usize,
    /// Longest `surrounding_lines`, in bytes (default 256 KiB).
    pub max_surrounding_bytes: usize,
    /// Longest path (`file_path`, `workspace`), in bytes (default 4096).
    pub max_path_bytes: usize,
}

impl Default for ContextLimits {
    fn default() -> Self {
        ContextLimits {
            max_selection_bytes: 1 << 20,
            max_surrounding_bytes: 256 << 10,
            max_path_bytes: 4096,
        }
    }
}

/// The editor context of seed 000 (field names are the same in every door).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditorContext {
    /// Absolute path of the file (it need not exist yet: unsaved buffers are fine).
    pub file_path: String,
    /// The editor's language id (`rust`, `typescriptreact`, ...); detected when not given.
    pub language: String,
    /// The selected text (may be empty).
    pub selection: String,
    /// Lines around the selection: `"above\n---\nbelow"`.
    pub surrounding_lines: String,
    /// The workspace root, when the editor has one; `file_path` must be inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The selected lines, when the editor says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection_range: Option<SelectionRange>,
}

const KNOWN_FIELDS: [&str; 6] = [
    "file_path",
    "language",
    "selection",
    "surrounding_lines",
    "workspace",
    "selection_range",
];

fn refuse(field: &str, rule: impl std::fmt::Display) -> Error {
    Error::EditorContext(format!("{field}: {rule}"))
}

/// Removes control characters other than tab, newline and carriage return.
fn sanitize(text: &str) -> String {
    let stripped = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    // Fast path: control characters are C0 (< 0x20), DEL (0x7f) and C1
    // (U+0080..U+009F, encoded as 0xC2 0x80..0x9F); most text has none.
    // A byte-wise test without early exit inside each chunk, which the
    // compiler turns into SIMD; a 0xC2 byte (also the lead of U+00A0..U+00BF)
    // only sends the text to the exact, slower path.
    let candidate =
        |b: u8| (b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r') || b == 0x7f || b == 0xc2;
    let suspicious = text
        .as_bytes()
        .chunks(64)
        .any(|chunk| chunk.iter().fold(false, |found, &b| found | candidate(b)));
    if suspicious {
        text.chars().filter(|&c| !stripped(c)).collect()
    } else {
        text.to_owned()
    }
}

fn text_field(map: &Map<String, Value>, field: &str, max: usize) -> Result<String> {
    let text = match map.get(field) {
        None | Some(Value::Null) => return Ok(String::new()),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(refuse(
                field,
                format!("must be a string, got {}", json_kind(other)),
            ))
        }
    };
    if text.contains('\0') {
        return Err(refuse(field, "contains a NUL character"));
    }
    if text.len() > max {
        return Err(refuse(
            field,
            format!("is {} bytes, over the limit of {max} bytes", text.len()),
        ));
    }
    Ok(sanitize(text))
}

fn path_field(
    map: &Map<String, Value>,
    field: &str,
    limits: &ContextLimits,
) -> Result<Option<String>> {
    let path = match map.get(field) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(refuse(
                field,
                format!("must be a string, got {}", json_kind(other)),
            ))
        }
    };
    if path.is_empty() {
        return Err(refuse(field, "is empty"));
    }
    if path.contains('\0') {
        return Err(refuse(field, "contains a NUL character"));
    }
    if path.chars().any(char::is_control) {
        return Err(refuse(field, "contains control characters"));
    }
    if path.len() > limits.max_path_bytes {
        return Err(refuse(
            field,
            format!(
                "is {} bytes, over the limit of {} bytes",
                path.len(),
                limits.max_path_bytes
            ),
        ));
    }
    if !Path::new(path).is_absolute() {
        return Err(refuse(
            field,
            format!("must be an absolute path, got `{path}`"),
        ));
    }
    Ok(Some(path.clone()))
}

impl EditorContext {
    /// Validates and sanitises a context sent as JSON. Each refusal names the
    /// field and the rule (`file_path: must be an absolute path, got `a.rs``).
    pub fn from_json(value: &Value, limits: &ContextLimits) -> Result<Self> {
        let map = match value {
            Value::Object(map) => map,
            other => {
                return Err(Error::EditorContext(format!(
                    "the editor context must be an object, got {}",
                    json_kind(other)
                )))
            }
        };

        if let Some(unknown) = map.keys().find(|k| !KNOWN_FIELDS.contains(&k.as_str())) {
            return Err(refuse(
                unknown,
                format!("unknown field; known fields: {}", KNOWN_FIELDS.join(", ")),
            ));
        }
        let file_path = path_field(map, "file_path", limits)?
            .ok_or_else(|| refuse("file_path", "is required"))?;
        let workspace = path_field(map, "workspace", limits)?;
        if let Some(ws) = &workspace {
            let ws_real = resolve(Path::new(ws));
            if !ws_real.is_dir() {
                return Err(refuse("workspace", format!("`{ws}` is not a directory")));
            }
            let file_real = resolve(Path::new(&file_path));
            if !file_real.starts_with(&ws_real) {
                return Err(refuse(
                    "file_path",
                    format!(
                        "`{file_path}` is outside the workspace `{ws}` (after resolving symlinks: `{}` is not under `{}`)",
                        file_real.display(),
                        ws_real.display()
                    ),
                ));
            }
        }
        let selection = text_field(map, "selection", limits.max_selection_bytes)?;
        let surrounding_lines = text_field(map, "surrounding_lines", limits.max_surrounding_bytes)?;
        let language = match map.get("language") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(refuse(
                    "language",
                    format!("must be a string, got {}", json_kind(other)),
                ))
            }
        };
        if !language.is_empty()
            && (language.len() > 64
                || !language
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+#._-".contains(c)))
        {
            return Err(refuse(
                "language",
                "must be a language id like `rust` or `typescriptreact` (letters, digits, + # . _ -; at most 64)",
            ));
        }
        let language = if language.is_empty() {
            let first_line = selection
                .lines()
                .next()
                .filter(|l| l.starts_with("#!"))
                .map(str::to_owned)
                .or_else(|| first_line_of(&file_path));
            detect_language(&file_path, first_line.as_deref()).to_owned()
        } else {
            language
        };
        let selection_range = match map.get("selection_range") {
            None | Some(Value::Null) => None,
            Some(v) => {
                let range = SelectionRange::deserialize(v).map_err(|e| {
                    refuse(
                        "selection_range",
                        format!("must be {{start_line, end_line}}: {e}"),
                    )
                })?;
                if range.start_line == 0 || range.end_line < range.start_line {
                    return Err(refuse(
                        "selection_range",
                        "lines are 1-based and end_line must not be before start_line",
                    ));
                }
                Some(range)
            }
        };
        Ok(EditorContext {
            file_path,
            language,
            selection,
            surrounding_lines,
            workspace,
            selection_range,
        })
    }

    /// Builds and validates a context from `RADIUM_EDITOR_*` variables, read
    /// through `lookup` (the CLI passes `std::env::var`).
    pub fn from_env(
        lookup: impl Fn(&str) -> Option<String>,
        limits: &ContextLimits,
    ) -> Result<Self> {
        let mut map = Map::new();
        for (field, var) in ENV_VARS {
            if let Some(value) = lookup(var) {
                map.insert(field.to_owned(), Value::String(value));
            }
        }
        if !map.contains_key("file_path") {
            return Err(refuse(
                "file_path",
                "is required (set RADIUM_EDITOR_FILE_PATH or pass the context as JSON)",
            ));
        }
        EditorContext::from_json(&Value::Object(map), limits)
    }

    /// The `RADIUM_EDITOR_*` variables for a process the engine starts. A
    /// selection or surrounding lines over 64 KiB are cut, with a last line
    /// saying so (Linux refuses an environment string over 128 KiB); the
    /// whole context comes on stdin.
    pub fn env_vars(&self) -> Vec<(&'static str, String)> {
        editor_env(&self.to_json())
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The JSON form, moving the texts instead of copying them.
    pub fn into_json(self) -> Value {
        let mut map = Map::new();
        map.insert("file_path".into(), Value::String(self.file_path));
        map.insert("language".into(), Value::String(self.language));
        map.insert("selection".into(), Value::String(self.selection));
        map.insert(
            "surrounding_lines".into(),
            Value::String(self.surrounding_lines),
        );
        if let Some(ws) = self.workspace {
            map.insert("workspace".into(), Value::String(ws));
        }
        if let Some(range) = self.selection_range {
            map.insert(
                "selection_range".into(),
                serde_json::to_value(range).unwrap_or(Value::Null),
            );
        }
        Value::Object(map)
    }
}

fn first_line_of(path: &str) -> Option<String> {
    use std::io::{BufRead, BufReader};
    use std::os::unix::fs::OpenOptionsExt as _;
    // Opened without blocking, and only a regular file is read (a FIFO
    // would block the caller).
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()
        .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))?;
    let mut line = String::new();
    BufReader::new(file).take(512).read_line(&mut line).ok()?;
    language_from_shebang(line.trim_end()).map(|_| line.trim_end().to_owned())
}

/// `surrounding_lines` for a selection of lines `start_line..=end_line`
/// (1-based) of `buffer`: up to `count` lines above, `---`, up to `count` lines below.
pub fn surrounding_lines(buffer: &str, start_line: usize, end_line: usize, count: usize) -> String {
    let lines: Vec<&str> = buffer.lines().collect();
    let start = start_line.max(1) - 1;
    let end = end_line.max(start_line).min(lines.len());
    let above = &lines[start.saturating_sub(count).min(lines.len())..start.min(lines.len())];
    let below = &lines[end..(end + count).min(lines.len())];
    format!("{}\n---\n{}", above.join("\n"), below.join("\n"))
}

use std::io::Read as _;
