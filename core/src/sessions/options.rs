//! The agent's own controls of a session: its config options (ACP's
//! `configOptions`: mode, model, thought level, ...; `session/set_config_option`
//! and `config_option_update`) and its legacy modes (`modes`,
//! `session/set_mode`, `current_mode_update`).
//!
//! The door sees them in one shape, a list of controls:
//! `[{id, name, category, current, values: [{value, name, description}], legacy}]`,
//! with `mode` and `model` (the current values of those categories, or
//! `null`). Legacy modes are one control `mode` (`legacy: true`) when the
//! agent gives no config option of category `mode`. radium never sends
//! `session/set_model` (it left the protocol): an agent that lists its
//! models only in the older `models` field (Gemini CLI 0.61) has them shown,
//! not switchable: `legacy_models` (`{current, values}`) in the summary,
//! its current one as `model`, and setting `model` is refused with the
//! reason.

use std::sync::Arc;

use serde_json::{json, Value};

use super::session::{lock, AgentSession};
use crate::error::{Error, Result};
use crate::support::log::Level;

/// What the agent said of its controls.
#[derive(Default, Clone)]
pub(crate) struct Controls {
    /// Its `configOptions`, as it last sent them.
    pub config: Vec<Value>,
    /// Its legacy `modes` (`{currentModeId, availableModes}`), if any.
    pub modes: Option<Value>,
    /// Its legacy `models` (`{currentModelId, availableModels}`), if any:
    /// shown, never switched (see the module's doc).
    pub models: Option<Value>,
    /// The defaults of `agents.toml` that could not be applied.
    pub warnings: Vec<String>,
}

/// The values a select option offers, its groups flattened.
fn values_of(option: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for item in option
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(group) = item.get("options").and_then(Value::as_array) {
            out.extend(group.iter().map(value_entry));
        } else {
            out.push(value_entry(item));
        }
    }
    out
}

fn value_entry(item: &Value) -> Value {
    json!({
        "value": item.get("value").cloned().unwrap_or(Value::Null),
        "name": item.get("name").cloned().unwrap_or(Value::Null),
        "description": item.get("description").cloned().unwrap_or(Value::Null),
    })
}

impl Controls {
    /// The controls in the door's shape (see the module's doc).
    pub fn list(&self) -> Vec<Value> {
        let mut list: Vec<Value> = self
            .config
            .iter()
            .filter(|o| o.get("id").and_then(Value::as_str).is_some())
            .map(|o| {
                json!({
                    "id": o["id"],
                    "name": o.get("name").cloned().unwrap_or_else(|| o["id"].clone()),
                    "category": o.get("category").cloned().unwrap_or(Value::Null),
                    "current": o.get("currentValue").cloned().unwrap_or(Value::Null),
                    "values": values_of(o),
                    "legacy": false,
                })
            })
            .collect();
        let has_mode = list.iter().any(|c| c["category"] == "mode");
        if let Some(modes) = self.modes.as_ref().filter(|_| !has_mode) {
            let values: Vec<Value> = modes
                .get("availableModes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|m| {
                    json!({
                        "value": m.get("id").cloned().unwrap_or(Value::Null),
                        "name": m.get("name").cloned().unwrap_or(Value::Null),
                        "description": m.get("description").cloned().unwrap_or(Value::Null),
                    })
                })
                .collect();
            list.push(json!({
                "id": "mode", "name": "Mode", "category": "mode",
                "current": modes.get("currentModeId").cloned().unwrap_or(Value::Null),
                "values": values, "legacy": true,
            }));
        }
        list
    }

    /// The current value of the first control of `category`.
    fn current(list: &[Value], category: &str) -> Value {
        list.iter()
            .find(|c| c["category"] == category)
            .map_or(Value::Null, |c| c["current"].clone())
    }

    /// The legacy `models` as `{current, values}`, when no config option
    /// of category `model` replaces them.
    fn legacy_models(&self, list: &[Value]) -> Value {
        let Some(models) = self.models.as_ref() else {
            return Value::Null;
        };
        if list.iter().any(|c| c["category"] == "model") {
            return Value::Null;
        }
        let values: Vec<Value> = models
            .get("availableModels")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|m| {
                json!({
                    "value": m.get("modelId").cloned().unwrap_or(Value::Null),
                    "name": m.get("name").cloned().unwrap_or(Value::Null),
                    "description": m.get("description").cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
        json!({
            "current": models.get("currentModelId").cloned().unwrap_or(Value::Null),
            "values": values,
        })
    }

    /// `{options, mode, model, legacy_models}` for the door.
    pub fn summary(&self) -> Value {
        let list = self.list();
        let legacy_models = self.legacy_models(&list);
        let model = match Self::current(&list, "model") {
            Value::Null => legacy_models["current"].clone(),
            model => model,
        };
        json!({
            "mode": Self::current(&list, "mode"),
            "model": model,
            "legacy_models": legacy_models,
            "options": list,
        })
    }

    /// Takes what `session/new` (or a `session/set_config_option` answer)
    /// says of the controls.
    pub fn take_answer(&mut self, answer: &Value) {
        if let Some(config) = answer.get("configOptions").and_then(Value::as_array) {
            self.config.clone_from(config);
        }
        if let Some(modes) = answer.get("modes").filter(|m| m.is_object()) {
            self.modes = Some(modes.clone());
        }
        if let Some(models) = answer.get("models").filter(|m| m.is_object()) {
            self.models = Some(models.clone());
        }
    }

    /// Takes a `config_option_update` or `current_mode_update`; answers
    /// whether it was one.
    pub fn take_update(&mut self, update: &Value) -> bool {
        match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("config_option_update") => {
                self.take_answer(update);
                true
            }
            Some("current_mode_update") => {
                let id = update.get("currentModeId").cloned().unwrap_or(Value::Null);
                let modes = self.modes.get_or_insert_with(|| json!({}));
                modes["currentModeId"] = id;
                true
            }
            _ => false,
        }
    }

    /// The control `name` names (its id, else a category) and the checked
    /// `value`: an error, listing what the agent offers, when either is not
    /// one of its.
    pub fn resolve(&self, name: &str, value: &str) -> Result<Value> {
        let list = self.list();
        let legacy = self.legacy_models(&list);
        if name == "model" && legacy.is_object() {
            let offered: Vec<&str> = legacy["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v["value"].as_str())
                .collect();
            return Err(Error::InvalidArgument(format!(
                "the agent lists its models ({}) but switches them only through `session/set_model`, \
                 which left the protocol and radium does not send: choose the model in the agent's own \
                 settings (its command or environment in agents.toml)",
                offered.join(", ")
            )));
        }
        if list.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "the agent offers no options or modes: `{name}` cannot be set"
            )));
        }
        let control = list
            .iter()
            .find(|c| c["id"] == name)
            .or_else(|| list.iter().find(|c| c["category"] == name))
            .ok_or_else(|| {
                let known: Vec<String> = list
                    .iter()
                    .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
                    .collect();
                Error::InvalidArgument(format!(
                    "the agent has no option `{name}` (it offers: {})",
                    known.join(", ")
                ))
            })?;
        let values = control["values"].as_array().cloned().unwrap_or_default();
        if !values.iter().any(|v| v["value"] == value) {
            let offered: Vec<&str> = values.iter().filter_map(|v| v["value"].as_str()).collect();
            return Err(Error::InvalidArgument(format!(
                "the agent does not offer `{value}` for `{}` (it offers: {})",
                control["id"].as_str().unwrap_or(name),
                offered.join(", ")
            )));
        }
        Ok(control.clone())
    }
}

impl AgentSession {
    /// The session's controls for the door: `{options, mode, model}`.
    pub fn controls(&self) -> Value {
        lock(&self.state).controls.summary()
    }

    /// Notes a `config_option_update` or `current_mode_update` and tells the
    /// door (an `options` event: in the running turn, else on the session's
    /// event queue, as the agent's commands and usage); answers whether it
    /// was one.
    pub(crate) fn controls_update(&self, update: &Value) -> bool {
        let changed = lock(&self.state).controls.take_update(update);
        if changed {
            self.emit_controls();
        }
        changed
    }

    fn emit_controls(&self) {
        let mut event = self.controls();
        event["type"] = "options".into();
        self.control(event);
    }

    /// Sets the agent's option `name` (an option id, or a category: `mode`,
    /// `model`, `thought_level`) to `value`, one the agent offers (else an
    /// error, and nothing is sent): `session/set_config_option`, or
    /// `session/set_mode` for legacy modes. Answers the controls after.
    pub async fn set_option(self: &Arc<Self>, name: &str, value: &str) -> Result<Value> {
        let control = lock(&self.state).controls.resolve(name, value)?;
        let id = control["id"].as_str().unwrap_or(name).to_owned();
        let sid = self.acp_session_id();
        let (method, params) = if control["legacy"] == true {
            (
                "session/set_mode",
                json!({"sessionId": sid, "modeId": value}),
            )
        } else {
            (
                "session/set_config_option",
                json!({"sessionId": sid, "configId": id, "value": value}),
            )
        };
        let answer = self.conn.request(method, &params);
        let answer = match tokio::time::timeout(self.agent.start_timeout, answer).await {
            Err(_) => {
                return Err(Error::AgentTimeout(format!(
                    "agent `{}` did not answer `{method}` within {} ms",
                    self.agent.id,
                    self.agent.start_timeout.as_millis()
                )))
            }
            Ok(Err(_)) => return Err(self.ended(&format!("before answering `{method}`"))),
            Ok(Ok(Err(e))) => return Err(Error::AgentFailed(self.refused(method, &e))),
            Ok(Ok(Ok(answer))) => answer,
        };
        {
            let mut state = lock(&self.state);
            if control["legacy"] == true {
                state.controls.take_update(
                    &json!({"sessionUpdate": "current_mode_update", "currentModeId": value}),
                );
            } else if answer.get("configOptions").is_some() {
                state.controls.take_answer(&answer);
            } else if let Some(option) = state
                .controls
                .config
                .iter_mut()
                .find(|o| o.get("id").and_then(Value::as_str) == Some(id.as_str()))
            {
                option["currentValue"] = value.into();
            }
        }
        self.log.write(
            Level::Info,
            "session",
            format!("{}: option `{id}` set to `{value}`", self.id),
        );
        self.emit_controls();
        Ok(self.controls())
    }

    /// Why a permission request for `call` is refused while the agent is
    /// in plan mode (its mode control's value `plan`): a call that edits
    /// (kind `edit`, `delete` or `move`, or one carrying a diff). `None`:
    /// not in plan mode, or not an edit (reading, and the agent's request
    /// to leave plan mode, still reach the door).
    pub(crate) fn plan_mode_refusal(&self, call: &Value) -> Option<String> {
        let summary = lock(&self.state).controls.summary();
        if summary["mode"] != "plan" {
            return None;
        }
        let kind = call.get("kind").and_then(Value::as_str);
        let has_diff = call
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|c| c.iter().any(|b| b["type"] == "diff"));
        if !(matches!(kind, Some("edit" | "delete" | "move")) || has_diff) {
            return None;
        }
        Some(
            "the agent is in plan mode, which makes no edits: switch its mode to allow them"
                .to_owned(),
        )
    }

    /// Keeps the controls `session/new` answered and applies the defaults.
    pub(crate) async fn after_new(self: &Arc<Self>, answer: &Value) {
        lock(&self.state).controls.take_answer(answer);
        let warnings = self.apply_defaults().await;
        lock(&self.state).controls.warnings = warnings;
    }

    /// The defaults of `agents.toml` that could not be applied at start.
    pub fn option_warnings(&self) -> Vec<String> {
        lock(&self.state).controls.warnings.clone()
    }

    /// Applies the agent's defaults from `agents.toml` (`mode`, `model`,
    /// `[agents.options]`) right after `session/new`; answers a warning for
    /// each that could not be (not offered, or refused).
    pub(crate) async fn apply_defaults(self: &Arc<Self>) -> Vec<String> {
        let mut warnings = Vec::new();
        for (name, value) in self.agent.options.clone() {
            let current = lock(&self.state).controls.resolve(&name, &value);
            if let Ok(control) = &current {
                if control["current"] == value.as_str() {
                    continue;
                }
            }
            if let Err(e) = self.set_option(&name, &value).await {
                let message = format!(
                    "agent `{}`: the default `{name} = \"{value}\"` of {} was not applied: {e}",
                    self.agent.id,
                    self.agent.source.display()
                );
                self.log
                    .write(Level::Warn, "session", format!("{}: {message}", self.id));
                warnings.push(message);
            }
        }
        warnings
    }
}
