//! The agent's modes, models and reasoning effort in `rad chat`: `--mode M`,
//! `--model M` and `--effort E` set at the start, `/mode [M]`, `/model [M]`
//! and `/effort [E]` in the chat (without a value: the values the agent
//! offers, the current one marked), and the header line that says the
//! current ones. The effort is the agent's option of category
//! `thought_level`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::Arc;

use radium_core::sessions::AgentSession;
use serde_json::Value;

fn warn(text: &str) {
    let _ = writeln!(std::io::stderr(), "rad chat: {text}");
}

/// The header line last shown, so a change is shown once.
static SHOWN: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// The header line: the agent, and its current mode, model and effort when
/// it has them.
pub(crate) fn header(session: &AgentSession) -> String {
    let line = header_line(session);
    if let Ok(mut shown) = SHOWN.lock() {
        shown.clone_from(&line);
    }
    line
}

fn header_line(session: &AgentSession) -> String {
    let controls = session.controls();
    let mut parts = vec![format!("rad chat: {}", session.agent.id)];
    for key in ["mode", "model"] {
        if let Some(value) = controls[key].as_str() {
            parts.push(format!("{key} {value}"));
        }
    }
    let options = controls["options"].as_array().cloned().unwrap_or_default();
    if let Some(effort) = options
        .iter()
        .find(|c| c["category"] == "thought_level")
        .and_then(|c| c["current"].as_str())
    {
        parts.push(format!("effort {effort}"));
    }
    parts.join(" · ")
}

/// Says the defaults of `agents.toml` that were not applied and the
/// start's notices, then sets the
/// flags' `mode`, `model` and `effort` (`None`: left as they are).
pub(crate) async fn start(
    session: &Arc<AgentSession>,
    mode: Option<&str>,
    model: Option<&str>,
    effort: Option<&str>,
    json: bool,
) -> Result<(), String> {
    for warning in session.option_warnings() {
        warn(&format!("warning: {warning}"));
    }
    // What the start could not do (an MCP server not passed, radium's
    // tools not offered), said before any prompt (with --json: as notice
    // events on stdout, as a turn's notices are).
    for notice in session.start_notices() {
        if json {
            let event = serde_json::json!({"type": "notice", "message": notice});
            let _ = writeln!(std::io::stdout(), "{event}");
        } else {
            warn(&format!("notice: {notice}"));
        }
    }
    for (flag, value) in [("mode", mode), ("model", model), ("effort", effort)] {
        if let Some(value) = value {
            session
                .set_option(option_name(flag), value)
                .await
                .map_err(|e| format!("--{flag} {value}: {e}"))?;
        }
    }
    Ok(())
}

/// The option (a category) behind the word of a flag or command: `effort`
/// is the category `thought_level`.
fn option_name(word: &str) -> &str {
    if word == "effort" {
        "thought_level"
    } else {
        word
    }
}

/// The values of control `name` (by category, else id), the current one
/// marked; for models the agent lists only in the legacy `models` field,
/// those, and that they cannot be switched from here.
fn list(session: &AgentSession, name: &str) -> String {
    let controls = session.controls();
    let options = controls["options"].as_array().cloned().unwrap_or_default();
    let found = options
        .iter()
        .find(|c| c["category"] == name)
        .or_else(|| options.iter().find(|c| c["id"] == name))
        .cloned();
    let legacy = &controls["legacy_models"];
    let Some(control) =
        found.or_else(|| (name == "model" && legacy.is_object()).then(|| legacy.clone()))
    else {
        let word = if name == "thought_level" {
            "reasoning effort"
        } else {
            name
        };
        return format!("the agent offers no {word} to choose\n");
    };
    let mut text = String::new();
    for v in control["values"].as_array().into_iter().flatten() {
        let value = v["value"].as_str().unwrap_or_default();
        let mark = if control["current"] == value {
            "*"
        } else {
            " "
        };
        let name = v["name"].as_str().filter(|n| *n != value);
        let about = v["description"].as_str();
        let _ = writeln!(
            text,
            "{mark} {value}{}{}",
            name.map(|n| format!(" ({n})")).unwrap_or_default(),
            about.map(|d| format!(": {d}")).unwrap_or_default()
        );
    }
    if name == "model" && control.get("id").is_none() {
        text.push_str(
            "(the agent switches these only through `session/set_model`, which radium does not send: \
             choose the model in the agent's own settings, its command or environment in agents.toml)\n",
        );
    }
    text
}

/// Runs `/mode [M]`, `/model [M]` or `/effort [E]` when `line` is one;
/// answers whether it was.
pub(crate) async fn command(session: &Arc<AgentSession>, line: &str) -> bool {
    let line = line.trim();
    let (name, arg) = match line.split_once(' ') {
        Some((word, arg)) => (word, arg.trim()),
        None => (line, ""),
    };
    let name = match name {
        "/mode" => "mode",
        "/model" => "model",
        "/effort" => "thought_level",
        _ => return false,
    };
    let mut out = std::io::stdout().lock();
    if arg.is_empty() {
        let _ = write!(out, "{}", list(session, name));
    } else {
        drop(out);
        match session.set_option(name, arg).await {
            Ok(_) => {
                let _ = writeln!(std::io::stderr(), "{}", header(session));
            }
            Err(e) => warn(&e.to_string()),
        }
        return true;
    }
    let _ = out.flush();
    true
}

/// For an `options` event, the new header line when it differs from the
/// one shown; `None` for another event or no change.
pub(crate) fn changed(event: &Value, session: &AgentSession) -> Option<String> {
    if event["type"] != "options" {
        return None;
    }
    let line = header_line(session);
    let mut shown = SHOWN.lock().ok()?;
    if *shown == line {
        return None;
    }
    shown.clone_from(&line);
    Some(line)
}

/// Whether `event` is an `options` event.
pub(crate) fn is_options(event: &Value) -> bool {
    event["type"] == "options"
}
