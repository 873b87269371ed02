//! The agent's own controls a door shows: its slash commands
//! (`available_commands_update`, the latest list wins) and its usage
//! (`usage_update`: `used`, `size`, `cost`; or the `usage` of a prompt's
//! answer). Both are kept for the session's life and sent to the door as
//! `commands` and `usage` events: in the running turn, or, between turns,
//! to the session's event queue, where a newer one replaces one not yet
//! taken. A door that came late asks `session-info`. A `notice` with no
//! turn to go to is kept for `session-new`'s answer while the session
//! starts, and queued after (see `AgentSession::emit`).
//!
//! A command runs as a prompt `/name args`, sent to the agent unchanged.

use std::sync::Weak;

use serde_json::{json, Map, Value};

use super::events::SessionEvent;
use super::session::{lock, AgentSession};
use super::table::EventQueue;

/// The most commands of an agent radium keeps (the first ones).
pub const MAX_COMMANDS: usize = 256;

/// The most bytes of a command's name, description or hint radium keeps.
pub const MAX_COMMAND_TEXT: usize = 4096;

/// The most fields of the agent's usage a session keeps (the first ones
/// it reported; later values of those replace theirs).
pub const MAX_USAGE_FIELDS: usize = 32;

/// What a session keeps of the agent's controls.
#[derive(Default)]
pub(crate) struct Controls {
    /// The latest command list (`[{name, description, hint}]`).
    commands: Option<Value>,
    /// The latest usage: every field the agent reported, the newest value of each.
    usage: Option<Map<String, Value>>,
    /// The session's event queue, for events that come between turns.
    pub idle: Weak<EventQueue>,
}

/// `text` cut to [`MAX_COMMAND_TEXT`] bytes (on a character boundary).
fn capped(text: Option<&Value>) -> Value {
    match text.and_then(Value::as_str) {
        Some(t) => {
            let end = crate::support::text::floor_char_boundary(t, MAX_COMMAND_TEXT);
            Value::String(t[..end].to_owned())
        }
        None => Value::Null,
    }
}

/// The `commands` event of an `available_commands_update`: each command's
/// `name`, `description` and `hint` (its `input.hint`, or null), at most
/// [`MAX_COMMANDS`] of them; entries without a name are left out. A leading
/// `/` in a name is dropped (the door adds it).
pub(crate) fn commands_event(update: &Value) -> SessionEvent {
    let list: Vec<Value> = update
        .get("availableCommands")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|c| {
                    let name = c.get("name")?.as_str()?.trim_start_matches('/');
                    (!name.is_empty()).then(|| {
                        json!({
                            "name": capped(Some(&json!(name))),
                            "description": capped(c.get("description")),
                            "hint": capped(c.get("input").and_then(|i| i.get("hint"))),
                        })
                    })
                })
                .take(MAX_COMMANDS)
                .collect()
        })
        .unwrap_or_default();
    json!({"type": "commands", "commands": list})
}

impl AgentSession {
    /// The agent's slash commands as it last sent them
    /// (`[{name, description, hint}]`; empty before it sent any).
    pub fn commands(&self) -> Value {
        lock(&self.state)
            .slash
            .commands
            .clone()
            .unwrap_or_else(|| json!([]))
    }

    /// The agent's latest usage (the newest value of each field it
    /// reported: `used`, `size`, `cost`, token counts); `None` before any.
    pub fn usage(&self) -> Option<Value> {
        lock(&self.state).slash.usage.clone().map(Value::Object)
    }

    /// What a door shows of the session: id, agent, workspace, tag,
    /// whether a turn runs, the commands and the usage.
    pub fn info(&self) -> Value {
        json!({
            "session": self.id, "agent": self.agent.id, "workspace": self.workspace,
            "tag": self.tag(), "running": self.busy(),
            "commands": self.commands(), "usage": self.usage(),
        })
    }

    /// Sends the events that come between turns to `queue` from now on,
    /// starting with the `commands` (and `usage`) the agent sent before.
    pub(crate) fn attach_idle(&self, queue: &std::sync::Arc<EventQueue>) {
        let mut state = lock(&self.state);
        state.slash.idle = std::sync::Arc::downgrade(queue);
        let controls = &state.slash;
        let mut known = Vec::new();
        if let Some(commands) = &controls.commands {
            known.push(json!({"type": "commands", "commands": commands}));
        }
        if let Some(usage) = &controls.usage {
            let mut event = usage.clone();
            event.insert("type".into(), "usage".into());
            known.push(Value::Object(event));
        }
        // Under the session's lock: a newer one waits, and comes after.
        for event in known {
            queue.push_latest(event);
        }
    }

    /// Sends `event` to the running turn. With no turn, a `notice` is not
    /// lost: while the session starts it is kept for `session-new`'s answer
    /// (see `start_notices`), after that it goes to the session's event
    /// queue; other events need a turn.
    pub(crate) fn emit(&self, event: SessionEvent) {
        let mut state = lock(&self.state);
        if state.sink.is_none() {
            if event["type"] != "notice" {
                return;
            }
            let Some(queue) = state.slash.idle.upgrade() else {
                if state.start_notices.len() < super::table::MAX_IDLE_NOTICES {
                    let message = event["message"].as_str().unwrap_or_default();
                    state.start_notices.push(message.to_owned());
                }
                return;
            };
            drop(state);
            queue.push_notice(event);
            return;
        }
        let stopped = state.record(&event);
        if let Some(sink) = &state.sink {
            let _ = sink.give(event);
            if let Some(notice) = stopped {
                let _ = sink.give(notice);
            }
        }
    }

    /// Keeps a `commands` or `usage` event (an `options` event is kept by
    /// `options`) and sends it to the door: to the running turn, else to
    /// the session's event queue, where it replaces one of its type not yet
    /// taken.
    pub(crate) fn control(&self, event: SessionEvent) {
        let queue = {
            let mut state = lock(&self.state);
            match event["type"].as_str() {
                Some("commands") => state.slash.commands = Some(event["commands"].clone()),
                Some("usage") => {
                    let usage = state.slash.usage.get_or_insert_with(Map::new);
                    for (k, v) in event.as_object().into_iter().flatten() {
                        let room = usage.len() < MAX_USAGE_FIELDS || usage.contains_key(k);
                        if k != "type" && room {
                            usage.insert(k.clone(), v.clone());
                        }
                    }
                }
                _ => {}
            }
            if let Some(sink) = &state.sink {
                let _ = sink.give(event);
                return;
            }
            state.slash.idle.upgrade()
        };
        if let Some(queue) = queue {
            queue.push_latest(event);
        }
    }
}
