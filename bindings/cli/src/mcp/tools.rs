//! The tools `rad mcp` offers: each one's JSON Schema and description, the
//! check of a call's arguments against it, the engine request it becomes,
//! and the text a model reads back (the layout `rad` prints).

use radium_core::Response;
use serde_json::{json, Map, Value};

/// One tool: its MCP name, the engine command it runs, what it tells the
/// model, its input schema and whether it only reads.
pub(crate) struct ToolSpec {
    /// The MCP tool name (snake case, as agents expect).
    pub name: &'static str,
    /// The engine command (docs/protocol.md), or `rewind`.
    pub command: &'static str,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// The JSON Schema of its arguments.
    pub schema: fn() -> Value,
    /// It changes nothing on disk.
    pub read_only: bool,
}

fn path_prop() -> Value {
    json!({"type": "string", "description": "A path relative to the workspace (or absolute inside it)."})
}

fn object(properties: &Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The tools, in the order they are listed.
pub(crate) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "view",
        command: "view",
        description: "Show a text file with numbered lines (optionally lines start_line..=end_line, 1-based), or list a folder. Paths are confined to the workspace.",
        schema: || object(&json!({
            "path": path_prop(),
            "start_line": {"type": "integer", "minimum": 1, "description": "First line to show (1-based)."},
            "end_line": {"type": "integer", "minimum": 1, "description": "Last line to show (inclusive)."},
        }), &["path"]),
        read_only: true,
    },
    ToolSpec {
        name: "create",
        command: "create",
        description: "Create a file with the given content (atomically). Refuses an existing file unless overwrite is true. Undo takes it back.",
        schema: || object(&json!({
            "path": path_prop(),
            "content": {"type": "string", "description": "The whole content of the file."},
            "overwrite": {"type": "boolean", "description": "Replace the file when it exists (default false)."},
        }), &["path", "content"]),
        read_only: false,
    },
    ToolSpec {
        name: "str_replace",
        command: "str-replace",
        description: "Replace text that occurs exactly once in a file with new text. Include enough surrounding lines in `old` to make it unique; whitespace counts. Undo takes it back.",
        schema: || object(&json!({
            "path": path_prop(),
            "old": {"type": "string", "description": "The exact text to replace; it must occur exactly once."},
            "new": {"type": "string", "description": "The replacement text."},
        }), &["path", "old", "new"]),
        read_only: false,
    },
    ToolSpec {
        name: "insert",
        command: "insert",
        description: "Insert text after a line of a file (line 0 inserts at the top). Undo takes it back.",
        schema: || object(&json!({
            "path": path_prop(),
            "line": {"type": "integer", "minimum": 0, "description": "The line to insert after (0 = the top)."},
            "text": {"type": "string", "description": "The text to insert (one or more lines)."},
        }), &["path", "line", "text"]),
        read_only: false,
    },
    ToolSpec {
        name: "undo",
        command: "undo",
        description: "Undo the last edit this conversation made (create, str_replace, insert, solve_conflict, modify_var, rename_file).",
        schema: || object(&json!({}), &[]),
        read_only: false,
    },
    ToolSpec {
        name: "redo",
        command: "redo",
        description: "Redo the edit this conversation's last undo took back.",
        schema: || object(&json!({}), &[]),
        read_only: false,
    },
    ToolSpec {
        name: "solve_conflict",
        command: "solve-conflict",
        description: "List the merge conflicts (<<<<<<< ... >>>>>>>) of a file with their ids, or resolve one: id with resolution ours, theirs, both, or text (then give text).",
        schema: || object(&json!({
            "path": path_prop(),
            "id": {"type": "integer", "minimum": 0, "description": "The conflict to resolve (from the listing)."},
            "resolution": {"type": "string", "enum": ["ours", "theirs", "both", "text"], "description": "How to resolve it."},
            "text": {"type": "string", "description": "The text that replaces the conflict, with resolution \"text\"."},
        }), &["path"]),
        read_only: false,
    },
    ToolSpec {
        name: "read_var",
        command: "read-var",
        description: "Find a variable, function or type: its definition (with the lines around it) and every reference in the workspace, with file, line, column and the line's text. Asks the language server of the file's language (rust-analyzer, pyright, typescript-language-server...); without one, the syntax tree finds the name as code (not in comments or strings), which is not type-aware.",
        schema: || object(&json!({
            "file": path_prop(),
            "var": {"type": "string", "description": "The name to look up."},
            "line": {"type": "integer", "minimum": 1, "description": "The line (1-based) of the occurrence meant, when the name occurs more than once (default: its definition in the file)."},
            "column": {"type": "integer", "minimum": 1, "description": "With line: the column (1-based, in characters) of the occurrence meant, when the name is on that line more than once."},
        }), &["file", "var"]),
        read_only: true,
    },
    ToolSpec {
        name: "modify_var",
        command: "modify-var",
        description: "Rename a variable, function or type everywhere it is used in the workspace (the language server's rename, else the syntax tree's). All files change as one step that undo takes back at once. Prefer it to str_replace for renames.",
        schema: || object(&json!({
            "file": path_prop(),
            "from": {"type": "string", "description": "The name now."},
            "to": {"type": "string", "description": "The new name."},
            "line": {"type": "integer", "minimum": 1, "description": "The line (1-based) of the occurrence meant (default: its definition in the file)."},
            "column": {"type": "integer", "minimum": 1, "description": "With line: the column (1-based, in characters) of the occurrence meant, when the name is on that line more than once."},
        }), &["file", "from", "to"]),
        read_only: false,
    },
    ToolSpec {
        name: "rename_file",
        command: "rename-file",
        description: "Move or rename a file and update the imports that name it (and its own relative imports), as one step that undo takes back. Refuses a destination that exists.",
        schema: || object(&json!({
            "from": path_prop(),
            "to": {"type": "string", "description": "The new path (relative to the workspace); it must not exist."},
        }), &["from", "to"]),
        read_only: false,
    },
    ToolSpec {
        name: "rewind",
        command: "rewind",
        description: "Undo every edit this conversation made after the state named by `tag` (a tag an earlier result of this server printed as [tag: ...]). Use it to go back to an earlier point of the conversation.",
        schema: || object(&json!({
            "tag": {"type": "string", "description": "A tag from an earlier result, e.g. \"ab12-Xy3kLm9Q\"."},
        }), &["tag"]),
        read_only: false,
    },
];

/// The tool named `name`.
pub(crate) fn find(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

fn type_matches(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_u64().is_some() || value.as_i64().is_some(),
        _ => true,
    }
}

/// Checks `args` against the tool's schema: no unknown or missing field,
/// each of the right type, within its minimum and enum. The message says
/// what was wrong and what the tool takes.
pub(crate) fn check(tool: &ToolSpec, args: &Map<String, Value>) -> Result<(), String> {
    let schema = (tool.schema)();
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let names = || {
        let list: Vec<&str> = properties.keys().map(String::as_str).collect();
        if list.is_empty() {
            "no arguments".to_owned()
        } else {
            list.join(", ")
        }
    };
    for key in args.keys() {
        if !properties.contains_key(key) {
            return Err(format!(
                "`{}` takes no argument `{key}` (it takes: {})",
                tool.name,
                names()
            ));
        }
    }
    for required in schema["required"].as_array().into_iter().flatten() {
        let key = required.as_str().unwrap_or_default();
        if !args.contains_key(key) {
            return Err(format!(
                "`{}` needs `{key}` (it takes: {})",
                tool.name,
                names()
            ));
        }
    }
    for (key, value) in args {
        let spec = &properties[key];
        let kind = spec["type"].as_str().unwrap_or_default();
        if !type_matches(value, kind) {
            return Err(format!("`{key}` must be a {kind}, not {value}"));
        }
        if let (Some(min), Some(n)) = (spec["minimum"].as_i64(), value.as_i64()) {
            if n < min {
                return Err(format!("`{key}` must be at least {min}, not {n}"));
            }
        }
        if let Some(choices) = spec["enum"].as_array() {
            if !choices.contains(value) {
                let list: Vec<&str> = choices.iter().filter_map(Value::as_str).collect();
                return Err(format!(
                    "`{key}` must be one of {}, not {value}",
                    list.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// The text a model reads for an answer: the result (numbered lines, a
/// listing, or the JSON data), the warnings, and `[tag: ...]`, as `rad`
/// prints them.
pub(crate) fn answer_text(command: &str, response: &Response) -> String {
    let mut out = String::new();
    let data = response.data.clone().unwrap_or(Value::Null);
    if command == "read-var" {
        out.push_str(&radium_core::code::report::read_var_text(&data));
    } else if matches!(command, "modify-var" | "rename-file") {
        out.push_str(&radium_core::code::report::edit_text(&data));
    } else if let Some(text) = data.get("text").and_then(Value::as_str) {
        out.push_str(text);
    } else if let Some(entries) = data.get("entries").and_then(Value::as_array) {
        for entry in entries.iter().filter_map(Value::as_str) {
            out.push_str(entry);
            out.push('\n');
        }
    } else if let Some(s) = data.as_str() {
        out.push_str(s);
        out.push('\n');
    } else if !data.is_null() {
        out.push_str(&data.to_string());
        out.push('\n');
    }
    for warning in &response.warnings {
        out.push_str("warning: ");
        out.push_str(warning);
        out.push('\n');
    }
    if let Some(tag) = &response.tag {
        out.push_str("[tag: ");
        out.push_str(tag);
        out.push(']');
    }
    out
}
