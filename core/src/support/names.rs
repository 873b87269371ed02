//! The names the parts and the shared error type agree on: the protocol's
//! commands, the hook types and the editor context's variables. One list each; the error messages that list
//! valid names read them from here, so the error type needs no part.

/// The commands of the request protocol, in the order error messages list them.
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
    "agents-check",
    "agents-login",
    "agents-list",
    "agents-install",
    "mcp-servers",
    "step",
    "cancel",
    "log",
    "ext-install",
    "ext-list",
    "ext-remove",
    "trust",
    "session-new",
    "session-prompt",
    "session-events",
    "session-permission",
    "session-cancel",
    "session-close",
    "session-list",
    "session-set-option",
    "history-list",
    "history-read",
    "session-info",
    "clipboard-send",
    "clipboard-receive",
    "read-var",
    "modify-var",
    "rename-file",
    "lsp-list",
    "merge",
    "view",
    "create",
    "str-replace",
    "insert",
    "undo",
    "redo",
    "solve-conflict",
    "record",
    "rewind",
];

/// The `snake_case` names of the 13 hook types, in the order of
/// [`HookType::ALL`](crate::HookType::ALL).
pub const HOOK_TYPES: [&str; 13] = [
    "before_model",
    "after_model",
    "before_tool",
    "after_tool",
    "tool_selection",
    "error_interception",
    "error_transformation",
    "error_recovery",
    "error_logging",
    "telemetry_collection",
    "custom_logging",
    "metrics_aggregation",
    "performance_monitoring",
];

/// The environment variables an editor context travels in (to processes the
/// engine starts, and into the CLI): `(context field, variable)`.
pub const EDITOR_ENV_VARS: [(&str, &str); 5] = [
    ("file_path", "RADIUM_EDITOR_FILE_PATH"),
    ("language", "RADIUM_EDITOR_LANGUAGE"),
    ("selection", "RADIUM_EDITOR_SELECTION"),
    ("surrounding_lines", "RADIUM_EDITOR_SURROUNDING_LINES"),
    ("workspace", "RADIUM_EDITOR_WORKSPACE"),
];

/// The `RADIUM_EDITOR_*` variables of an editor context given as JSON: none
/// unless `file_path`, `language`, `selection` and `surrounding_lines` are
/// strings (`workspace` is optional). Script hooks get these, so a hook can
/// read the context without parsing JSON, and hooks need no editor part.
pub(crate) fn editor_env(context: &serde_json::Value) -> Vec<(&'static str, String)> {
    let mut vars = Vec::with_capacity(EDITOR_ENV_VARS.len());
    for (field, var) in EDITOR_ENV_VARS {
        match context.get(field) {
            Some(serde_json::Value::String(text)) => vars.push((var, env_value(text.clone()))),
            None | Some(serde_json::Value::Null) if field == "workspace" => {}
            _ => return Vec::new(),
        }
    }
    vars
}

/// The most bytes an editor context variable carries. Linux refuses to start
/// a program with any one environment string over 128 KiB ("Argument list
/// too long"), while a selection may be up to 1 MiB: a longer value is cut
/// at a character boundary and ends with [`ENV_TRUNCATED`]. The full context
/// always comes on stdin.
pub const MAX_ENV_VALUE: usize = 64 << 10;

/// The line that ends a variable cut to [`MAX_ENV_VALUE`].
pub const ENV_TRUNCATED: &str = "\n[radium: truncated; the full context is on stdin]";

/// `value` cut to [`MAX_ENV_VALUE`] bytes (marker included) when longer.
pub(crate) fn env_value(mut value: String) -> String {
    if value.len() <= MAX_ENV_VALUE {
        return value;
    }
    let end = super::text::floor_char_boundary(&value, MAX_ENV_VALUE - ENV_TRUNCATED.len());
    value.truncate(end);
    value.push_str(ENV_TRUNCATED);
    value
}
