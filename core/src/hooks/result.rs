//! What a hook answers: [`HookResult`], and [`HookError`] for failures.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::support::json::json_kind;

/// A hook's answer.
///
/// JSON form (the same in every door and for script hooks):
///
/// | result | JSON |
/// |---|---|
/// | carry on | `{"action": "continue"}` (also `null`, `{}`, or nothing) |
/// | replace the data the next hooks see | `{"action": "modify", "data": <any JSON>}` (also `{"data": ...}`) |
/// | end the chain | `{"action": "stop", "reason": "why"}` |
/// | this hook failed | `{"action": "error", "message": "what went wrong"}` |
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum HookResult {
    /// Carry on with the data unchanged.
    Continue,
    /// Carry on, with `data` replacing the chain's data.
    Modify {
        /// The new data.
        data: Value,
    },
    /// End the chain here.
    Stop {
        /// Why; reported in the outcome.
        reason: String,
    },
    /// This hook failed; it is recorded and the chain goes on.
    Error {
        /// What went wrong.
        message: String,
    },
}

impl HookResult {
    /// Carry on unchanged.
    pub const fn success() -> Self {
        HookResult::Continue
    }

    /// Carry on with `data` replacing the chain's data.
    pub fn with_data(data: Value) -> Self {
        HookResult::Modify { data }
    }

    /// End the chain, saying why.
    pub fn stop(reason: impl Into<String>) -> Self {
        HookResult::Stop {
            reason: reason.into(),
        }
    }

    /// Report this hook's failure.
    pub fn error(message: impl Into<String>) -> Self {
        HookResult::Error {
            message: message.into(),
        }
    }

    /// The documented JSON form.
    pub fn to_json(&self) -> Value {
        // A tagged enum of strings and JSON values always serialises.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Parses the documented JSON form, accepting the short forms (`null`,
    /// `{}`, `{"data": ...}`). Anything else is an [`Error::InvalidResult`]
    /// that says what was expected.
    pub fn from_json(value: &Value) -> Result<Self> {
        let map = match value {
            Value::Null => return Ok(HookResult::Continue),
            Value::Object(map) => map,
            other => {
                return Err(Error::InvalidResult(format!(
                    "expected an object like {{\"action\": \"continue\"}}, got {}",
                    json_kind(other)
                )))
            }
        };
        let text_field = |field: &str| -> Result<String> {
            match map.get(field) {
                Some(Value::String(s)) => Ok(s.clone()),
                None | Some(Value::Null) => Ok(String::new()),
                Some(other) => Err(Error::InvalidResult(format!(
                    "`{field}` must be a string, got {}",
                    json_kind(other)
                ))),
            }
        };
        match map.get("action") {
            None | Some(Value::Null) => match map.get("data") {
                Some(data) => Ok(HookResult::Modify { data: data.clone() }),
                None if map.is_empty() => Ok(HookResult::Continue),
                None => Err(Error::InvalidResult(format!(
                    "missing `action` (one of continue, modify, stop, error); got fields: {}",
                    map.keys().cloned().collect::<Vec<_>>().join(", ")
                ))),
            },
            Some(Value::String(action)) => match action.as_str() {
                "continue" => Ok(HookResult::Continue),
                "modify" => match map.get("data") {
                    Some(data) => Ok(HookResult::Modify { data: data.clone() }),
                    None => Err(Error::InvalidResult(
                        "action `modify` needs a `data` field".to_owned(),
                    )),
                },
                "stop" => Ok(HookResult::Stop {
                    reason: text_field("reason")?,
                }),
                "error" => Ok(HookResult::Error {
                    message: text_field("message")?,
                }),
                other => Err(Error::InvalidResult(format!(
                    "unknown action `{other}`; expected one of continue, modify, stop, error"
                ))),
            },
            Some(other) => Err(Error::InvalidResult(format!(
                "`action` must be a string, got {}",
                json_kind(other)
            ))),
        }
    }
}

/// A hook's failure, as returned by [`Hook::call`](crate::Hook::call).
///
/// The chain records it as that hook's error and goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError {
    message: String,
}

impl HookError {
    /// A failure with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        HookError {
            message: message.into(),
        }
    }

    /// The failure's message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HookError {}

impl From<String> for HookError {
    fn from(message: String) -> Self {
        HookError { message }
    }
}

impl From<&str> for HookError {
    fn from(message: &str) -> Self {
        HookError::new(message)
    }
}

impl From<Error> for HookError {
    fn from(error: Error) -> Self {
        HookError::new(error.to_string())
    }
}

impl From<serde_json::Error> for HookError {
    fn from(error: serde_json::Error) -> Self {
        HookError::new(error.to_string())
    }
}
