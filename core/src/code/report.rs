//! The text layout of the code commands' answers, shared by `rad` and its
//! MCP tools: `read-var` in the layout users of Radius know (`variable:`,
//! `file:`, `engine:`, `occurrences:`, the definition with the lines
//! around it), and one line per file for the edits.

use std::fmt::Write;

use serde_json::Value;

fn engine_line(data: &Value) -> String {
    match data["server"].as_str() {
        Some(server) => format!("{} ({server})", data["engine"].as_str().unwrap_or("")),
        None => data["engine"].as_str().unwrap_or("").to_owned(),
    }
}

/// The text of a `read-var` answer.
pub fn read_var_text(data: &Value) -> String {
    let mut out = String::new();
    let occurrences = data["occurrences"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let _ = writeln!(out, "variable: {}", data["variable"].as_str().unwrap_or(""));
    let _ = writeln!(out, "file: {}", data["file"].as_str().unwrap_or(""));
    let _ = writeln!(out, "engine: {}", engine_line(data));
    let _ = writeln!(
        out,
        "occurrences: {} in {} file{}",
        occurrences.len(),
        data["files"],
        if data["files"] == 1 { "" } else { "s" }
    );
    if let Some(def) = data["definition"].as_object() {
        let line = def.get("line").and_then(Value::as_u64).unwrap_or(0);
        let _ = writeln!(
            out,
            "\n--- definition (line {line}) --- {}",
            def.get("file").and_then(Value::as_str).unwrap_or("")
        );
        let context = def.get("context").and_then(Value::as_array);
        let width = context
            .and_then(|c| c.last())
            .and_then(|l| l["line"].as_u64())
            .unwrap_or(line)
            .to_string()
            .len();
        for row in context.into_iter().flatten() {
            let n = row["line"].as_u64().unwrap_or(0);
            let mark = if n == line { '>' } else { ' ' };
            let _ = writeln!(
                out,
                "{mark} {n:>width$} | {}",
                row["text"].as_str().unwrap_or("")
            );
        }
    }
    let _ = writeln!(out, "\n--- occurrences ---");
    for o in occurrences {
        let _ = writeln!(
            out,
            "{}:{}:{}: {}{}",
            o["file"].as_str().unwrap_or(""),
            o["line"],
            o["column"],
            o["text"].as_str().unwrap_or("").trim(),
            if o["definition"] == true {
                "  (definition)"
            } else {
                ""
            }
        );
    }
    out
}

/// The text of a `modify-var` or `rename-file` answer.
pub fn edit_text(data: &Value) -> String {
    let mut out = String::new();
    if let Some(variable) = data["variable"].as_str() {
        let _ = writeln!(
            out,
            "variable: {variable} -> {}",
            data["to"].as_str().unwrap_or("")
        );
    } else {
        let _ = writeln!(
            out,
            "file: {} -> {}",
            data["from"].as_str().unwrap_or(""),
            data["to"].as_str().unwrap_or("")
        );
    }
    let _ = writeln!(out, "engine: {}", engine_line(data));
    let files = data["files"].as_array().map_or(&[][..], Vec::as_slice);
    let applied = if data["applied"] == true {
        "applied"
    } else {
        "not applied"
    };
    let _ = writeln!(
        out,
        "edits: {} in {} file{} ({applied})",
        data["edits"],
        files.len(),
        if files.len() == 1 { "" } else { "s" }
    );
    for f in files {
        let what = if f["removed"] == true {
            " (moved away)".to_owned()
        } else if f["created"] == true {
            " (new)".to_owned()
        } else {
            format!(" ({} edits)", f["edits"])
        };
        let _ = writeln!(out, "  {}{what}", f["path"].as_str().unwrap_or(""));
    }
    out
}

/// The text of an `lsp-list` answer.
pub fn lsp_list_text(data: &Value) -> String {
    let mut out = String::new();
    for s in data["servers"].as_array().into_iter().flatten() {
        let command: Vec<&str> = s["command"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let state = if command.is_empty() {
            "disabled".to_owned()
        } else if s["blocked"].is_string() {
            "untrusted".to_owned()
        } else if s["running"] == true {
            format!("running (pid {})", s["pid"])
        } else if s["installed"] == true {
            "installed".to_owned()
        } else {
            "not installed".to_owned()
        };
        let _ = writeln!(
            out,
            "{:<11} {:<40} {:<15} {}",
            s["language"].as_str().unwrap_or(""),
            if command.is_empty() {
                "-".to_owned()
            } else {
                command.join(" ")
            },
            state,
            s["source"].as_str().unwrap_or("")
        );
    }
    out
}
