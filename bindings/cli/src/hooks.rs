//! `rad hooks`: the hooks of a workspace from the shell (the original
//! tool's hook commands): list, info, enable, disable, validate, test.
//!
//! `enable` and `disable` persist: they set `enabled` on the hook's
//! `[[hooks]]` entry in the workspace's `.radium/hooks.toml` (adding an
//! entry when there is none), keeping the file's comments and layout, so
//! every radium that opens the workspace sees the change.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Subcommand;
use radium_core::{Engine, HookConfigFile, Request, WORKSPACE_CONFIG};
use serde_json::{json, Value};

/// The hook commands.
#[derive(Subcommand)]
pub enum HooksCommand {
    /// List the hooks by type: priority, enabled, matcher, time limit.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one hook and its entry in .radium/hooks.toml.
    Info {
        /// The hook's name.
        name: String,
    },
    /// Enable a hook (written to .radium/hooks.toml).
    Enable {
        /// The hook's name.
        name: String,
    },
    /// Disable a hook (written to .radium/hooks.toml).
    Disable {
        /// The hook's name.
        name: String,
    },
    /// Check a hook configuration file (default: .radium/hooks.toml); errors as file:line:column.
    Validate {
        /// The file to check.
        file: Option<PathBuf>,
    },
    /// Run one hook alone with a context (JSON data from --context FILE or
    /// stdin) and show what it returned and how long it took.
    Test {
        /// The hook's name.
        name: String,
        /// A file with the context's data (JSON); default: stdin, else {}.
        #[arg(long)]
        context: Option<PathBuf>,
    },
}

fn request(engine: &Engine, command: &str, args: Value) -> Result<(Value, Vec<String>), String> {
    let response = engine.handle(&Request::new(command, args));
    if response.ok {
        Ok((response.data.unwrap_or(Value::Null), response.warnings))
    } else {
        Err(response.error.unwrap_or_else(|| "unknown error".into()))
    }
}

fn find(hooks: &[Value], name: &str) -> Result<Value, String> {
    hooks
        .iter()
        .find(|h| h["name"] == name)
        .cloned()
        .ok_or_else(|| format!("no hook named `{name}` (`rad hooks list` shows them)"))
}

fn describe(hook: &Value) -> String {
    let mut line = format!(
        "  {:<24} priority {:<5} {}",
        hook["name"].as_str().unwrap_or(""),
        hook["priority"],
        if hook["enabled"] == true {
            "enabled"
        } else {
            "disabled"
        }
    );
    if let Some(m) = hook["matcher"].as_str() {
        let _ = write!(line, "  matcher {m}");
    }
    if let Some(t) = hook["timeout_ms"].as_u64() {
        let _ = write!(line, "  timeout {t} ms");
    }
    line
}

/// Sets `enabled` for `name` in the workspace's hooks.toml, keeping the
/// rest of the file; checked by the same parser before it is written.
fn persist(workspace: &Path, name: &str, hook_type: &str, enabled: bool) -> Result<String, String> {
    let path = workspace.join(WORKSPACE_CONFIG);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| format!("{}: cannot be edited: {e}", path.display()))?;
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| toml_edit::ArrayOfTables::new().into())
        .as_array_of_tables_mut()
        .ok_or_else(|| {
            format!(
                "{}: `hooks` is not a list of [[hooks]] tables",
                path.display()
            )
        })?;
    let at = hooks
        .iter()
        .position(|t| t.get("name").and_then(|v| v.as_str()) == Some(name));
    if let Some(table) = at.and_then(|i| hooks.get_mut(i)) {
        table["enabled"] = toml_edit::value(enabled);
    } else {
        let mut table = toml_edit::Table::new();
        table["name"] = toml_edit::value(name);
        table["type"] = toml_edit::value(hook_type);
        table["enabled"] = toml_edit::value(enabled);
        hooks.push(table);
    }
    let text = doc.to_string();
    HookConfigFile::parse(&text, &path).map_err(|e| e.to_string())?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    radium_core::write_atomic(&path, &text).map_err(|e| e.to_string())?;
    Ok(WORKSPACE_CONFIG.to_owned())
}

/// Runs a hook command; the text to print, or the error.
pub fn run(command: HooksCommand, engine: &Engine, workspace: &Path) -> Result<String, String> {
    // The arm `enable` shares with `disable` needs to know which it is.
    let enable = matches!(command, HooksCommand::Enable { .. });
    let (listed, warnings) = request(engine, "hooks-list", Value::Null)?;
    let hooks = listed.as_array().cloned().unwrap_or_default();
    let mut out = String::new();
    for warning in &warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    match command {
        HooksCommand::List { json } => {
            if json {
                return Ok(serde_json::to_string_pretty(
                    &json!({"hooks": hooks, "warnings": warnings}),
                )
                .unwrap_or_default());
            }
            let mut kind = "";
            for hook in &hooks {
                let this = hook["hook_type"].as_str().unwrap_or("");
                if this != kind {
                    let _ = writeln!(out, "{this}");
                    kind = this;
                }
                let _ = writeln!(out, "{}", describe(hook));
            }
            if !engine.workspace_trusted(Some(workspace)) {
                out.push_str("(the workspace is not trusted: its script hooks and extensions are not loaded; `rad trust`)\n");
            }
        }
        HooksCommand::Info { name } => {
            let hook = find(&hooks, &name)?;
            let _ = writeln!(
                out,
                "{name}: a {} hook",
                hook["hook_type"].as_str().unwrap_or("")
            );
            let _ = writeln!(out, "{}", describe(&hook).trim_start());
            let file = workspace.join(WORKSPACE_CONFIG);
            if let Ok(config) = HookConfigFile::from_path(&file) {
                if let Some(entry) = config.hooks.iter().find(|h| h.name == name) {
                    if let Some((path, line)) = &entry.source {
                        let _ = writeln!(out, "configured at {}:{line}", path.display());
                    }
                    if let Some(script) = &entry.script {
                        let _ = writeln!(out, "script: {script} {}", entry.args.join(" "));
                    }
                    if let Some(config) = &entry.config {
                        let _ = writeln!(out, "config: {config}");
                    }
                }
            }
        }
        HooksCommand::Enable { name } | HooksCommand::Disable { name } => {
            let hook = find(&hooks, &name)?;
            let kind = hook["hook_type"].as_str().unwrap_or("");
            let file = persist(workspace, &name, kind, enable)?;
            let done = if enable { "enabled" } else { "disabled" };
            let _ = writeln!(
                out,
                "{done} `{name}`: saved in {file}, for every radium in this workspace"
            );
        }
        HooksCommand::Validate { file } => {
            let file = file.unwrap_or_else(|| workspace.join(WORKSPACE_CONFIG));
            let config = HookConfigFile::from_path(&file).map_err(|e| e.to_string())?;
            let _ = writeln!(
                out,
                "{}: ok, {} hook(s) configured",
                file.display(),
                config.hooks.len()
            );
        }
        HooksCommand::Test { name, context } => {
            let hook = find(&hooks, &name)?;
            let kind = hook["hook_type"].as_str().unwrap_or("").to_owned();
            let data = match context {
                Some(path) => std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?,
                None => crate::read_stdin()?,
            };
            let data: Value = if data.trim().is_empty() {
                json!({})
            } else {
                radium_core::parse_json(&data)
                    .map_err(|e| format!("the context is not JSON: {e}"))?
            };
            // The hook alone: the others of its type are off in this process only.
            for other in hooks
                .iter()
                .filter(|h| h["hook_type"] == kind.as_str() && h["name"] != name.as_str())
            {
                request(engine, "hooks-disable", json!({"name": other["name"]}))?;
            }
            request(engine, "hooks-enable", json!({"name": name}))?;
            let started = Instant::now();
            let (outcome, _) = request(
                engine,
                "hooks-execute",
                json!({"hook_type": kind, "data": data}),
            )?;
            let took = started.elapsed();
            let run = outcome["hooks"]
                .as_array()
                .and_then(|r| r.first())
                .cloned()
                .unwrap_or(Value::Null);
            let status = run["status"].as_str().unwrap_or("did not run");
            let ms = run["duration_ns"]
                .as_u64()
                .map_or(took, std::time::Duration::from_nanos)
                .as_secs_f64()
                * 1e3;
            let _ = writeln!(out, "{name} ({kind}): {status} in {ms:.1} ms");
            if let Some(error) = run["error"].as_str() {
                let _ = writeln!(out, "error: {error}");
            }
            if let Some(stop) = outcome["stopped_by"].as_object() {
                let _ = writeln!(
                    out,
                    "stopped: {}",
                    stop.get("reason").and_then(Value::as_str).unwrap_or("")
                );
            }
            let _ = writeln!(
                out,
                "data after the hook:\n{}",
                serde_json::to_string_pretty(&outcome["data"]).unwrap_or_default()
            );
            if run["error"].is_string() || status == "timed_out" || status == "timeout" {
                return Err(out.trim_end().to_owned());
            }
        }
    }
    Ok(out.trim_end().to_owned())
}
