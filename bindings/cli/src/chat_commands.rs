//! The slash commands of `rad chat`: radium's own (`/help`, `/restore`)
//! and the agent's (from its `commands` events), listed by `/help`; and the
//! usage line printed after each turn (`[usage: 12.3k/200k tokens, $0.04]`).
//!
//! A line `/name args` that is not one of radium's goes to the agent
//! unchanged: that is how an ACP agent runs its commands. stdin is read a
//! line at a time (no line editor), so there is no Tab completion: `/help`
//! lists them.

use std::fmt::Write as _;

use radium_core::sessions::AgentSession;
use serde_json::{json, Value};

/// radium's own commands in `rad chat`: the usage and what it does. Add a
/// row here for each new one (its handling goes in `chat::run`'s loop).
pub(crate) const RADIUM_COMMANDS: &[(&str, &str)] = &[
    ("/help", "lists these commands and the agent's"),
    (
        "/restore [n]",
        "lists the prompts, or puts the files back to before prompt n",
    ),
    (
        "/mode [M]",
        "lists the agent's modes (the current one marked), or switches to M",
    ),
    (
        "/model [M]",
        "lists the agent's models (the current one marked), or switches to M",
    ),
    (
        "/effort [E]",
        "lists the agent's reasoning efforts (the current one marked), or switches to E",
    ),
    ("/image PATH", "sends an image file with the next prompt"),
];

/// Whether `line` is radium's command `name` (alone or with arguments);
/// answers its arguments.
pub(crate) fn radium_command<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line.trim().strip_prefix(name)?;
    (rest.is_empty() || rest.starts_with(' ')).then(|| rest.trim())
}

/// The text `/help` prints: radium's commands, then the agent's with their
/// input hints and descriptions.
pub(crate) fn help(session: &AgentSession) -> String {
    let mut out = String::from("[commands] radium's:\n");
    for (usage, what) in RADIUM_COMMANDS {
        let _ = writeln!(out, "  {usage:<16} {what}");
    }
    let commands = session.commands();
    let list = commands.as_array().map(Vec::as_slice).unwrap_or_default();
    if list.is_empty() {
        let _ = writeln!(
            out,
            "[commands] agent `{}` sent no commands",
            session.agent.id
        );
        return out;
    }
    let _ = writeln!(
        out,
        "[commands] agent `{}`'s (sent to it as typed: /name args):",
        session.agent.id
    );
    for c in list {
        let name = c["name"].as_str().unwrap_or_default();
        let usage = match c["hint"].as_str().filter(|h| !h.is_empty()) {
            Some(hint) => format!("/{name} <{hint}>"),
            None => format!("/{name}"),
        };
        let what = c["description"].as_str().unwrap_or_default();
        let shadow = shadowed_by(name)
            .map(|own| format!(" [rad chat runs its own {own} instead: not sent from here]"))
            .unwrap_or_default();
        let _ = writeln!(out, "  {usage:<16} {}{shadow}", one_line(what));
    }
    out
}

/// radium's own command (`/restore`, ...) that a line starting with the
/// agent's command `name` would run instead (Gemini CLI has a `/restore`
/// and a `/help` of its own).
fn shadowed_by(name: &str) -> Option<&'static str> {
    let word = name.split_whitespace().next()?;
    RADIUM_COMMANDS.iter().find_map(|(usage, _)| {
        let own = usage.split_whitespace().next()?;
        (own.strip_prefix('/') == Some(word)).then_some(own)
    })
}

/// `text`'s first line (descriptions may hold several).
fn one_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// A token count as people read it: `950`, `12.3k`, `200k`, `1.5M`.
pub(crate) fn tokens(n: f64) -> String {
    let (value, unit) = if n >= 1e6 {
        (n / 1e6, "M")
    } else if n >= 1e3 {
        (n / 1e3, "k")
    } else {
        return format!("{n:.0}");
    };
    let text = format!("{value:.1}");
    format!("{}{unit}", text.strip_suffix(".0").unwrap_or(&text))
}

/// The line after a turn for the agent's `usage` (the `usage_update`
/// fields `used`, `size`, `cost`, or a prompt answer's `totalTokens`);
/// `None` when it reported none.
pub(crate) fn usage_line(usage: &Value) -> Option<String> {
    let used = usage["used"]
        .as_f64()
        .or_else(|| usage["totalTokens"].as_f64())?;
    let mut line = match usage["size"].as_f64() {
        Some(size) => format!("[usage: {}/{} tokens", tokens(used), tokens(size)),
        None => format!("[usage: {} tokens", tokens(used)),
    };
    if let Some(amount) = usage["cost"]["amount"].as_f64() {
        match usage["cost"]["currency"].as_str() {
            Some("USD") | None => {
                let _ = write!(line, ", ${amount:.2}");
            }
            Some(currency) => {
                let _ = write!(line, ", {amount:.2} {currency}");
            }
        }
    }
    line.push(']');
    Some(line)
}

/// Prints the agent's commands as a `commands` event (`--json`) when they
/// differ from those `shown` last.
pub(crate) fn show_commands(session: &AgentSession, json_mode: bool, shown: &mut Value) {
    let commands = session.commands();
    if json_mode && commands.as_array().is_some_and(|c| !c.is_empty()) && *shown != commands {
        crate::chat::say(&format!(
            "{}\n",
            json!({"type": "commands", "commands": commands})
        ));
        *shown = commands;
    }
}

/// Prints a turn's `event` (`--json`). Before the turn's first, the
/// commands the agent sent just before the prompt (kept, with no turn to
/// go to), when not shown yet; a list already shown is not said again.
pub(crate) fn say_json(session: &AgentSession, event: &Value, first: &mut bool, shown: &mut Value) {
    if std::mem::take(first) {
        show_commands(session, true, shown);
    }
    if event["type"] == "commands" {
        if *shown == event["commands"] {
            return;
        }
        *shown = event["commands"].clone();
    }
    crate::chat::say(&format!("{event}\n"));
}

/// An agent sends its commands a moment after the session opens (Gemini
/// CLI about a second later): the first `/help` waits for them, at most
/// 3 s; later ones (`waited`) do not.
pub(crate) async fn wait_for_commands(session: &AgentSession, waited: &mut bool) {
    if std::mem::replace(waited, true) {
        return;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while session.commands().as_array().is_none_or(Vec::is_empty)
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
