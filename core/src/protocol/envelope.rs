//! The request/response envelope every door speaks (seed 001):
//! `{command, args, tag?, cwd?}` → `{ok, data?, error?, code?, tag?, warnings?}`.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::support::json::json_kind;

/// A request to the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The command, kebab-case (`ping`, `hooks-list`, ...).
    pub command: String,
    /// The command's arguments (an object; `null` or absent means none).
    #[serde(default)]
    pub args: Value,
    /// The session tag (dog tag) of the caller, for commands that use sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The caller's working directory (the project root), for commands that use one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// An id of the caller's choosing: while the request runs, the `cancel`
    /// command with this id stops it (and the agent or script it waits on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// With a `tag`: continue that tag's conversation at its latest state
    /// instead of rewinding to the tag (for clients that share one
    /// conversation, such as an agent session and the `rad mcp` it started).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub follow: bool,
}

impl Request {
    /// A request for `command` with `args`.
    pub fn new(command: impl Into<String>, args: Value) -> Self {
        Request {
            command: command.into(),
            args,
            tag: None,
            cwd: None,
            id: None,
            follow: false,
        }
    }

    /// Parses a request from JSON, with an error that says what is wrong.
    /// The value's parts are moved into the request, not copied.
    pub fn from_json(value: Value) -> Result<Self, Error> {
        let Value::Object(mut map) = value else {
            return Err(Error::InvalidRequest(format!(
                "a request must be an object like {{\"command\": \"ping\"}}, got {}",
                json_kind(&value)
            )));
        };
        if let Some(request) = Self::take_well_formed(&mut map) {
            return Ok(request);
        }
        // Something is wrong: serde says precisely what.
        serde_json::from_value(Value::Object(map)).map_err(|e| Error::InvalidRequest(e.to_string()))
    }

    /// The request in `map` when every field is known and of the right type
    /// (the map is then emptied); `None`, with the map untouched, otherwise.
    fn take_well_formed(map: &mut serde_json::Map<String, Value>) -> Option<Self> {
        let text_or_null = |v: &Value| matches!(v, Value::String(_) | Value::Null);
        let well_formed = matches!(map.get("command"), Some(Value::String(_)))
            && map.iter().all(|(key, value)| match key.as_str() {
                "command" | "args" => true,
                "tag" | "cwd" | "id" => text_or_null(value),
                "follow" => matches!(value, Value::Bool(_) | Value::Null),
                _ => false,
            });
        if !well_formed {
            return None;
        }
        let follow = matches!(map.remove("follow"), Some(Value::Bool(true)));
        let mut text = |key: &str| match map.remove(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        Some(Request {
            follow,
            command: text("command").unwrap_or_default(),
            tag: text("tag"),
            cwd: text("cwd"),
            id: text("id"),
            args: map.remove("args").unwrap_or(Value::Null),
        })
    }
}

/// The engine's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Whether the command succeeded.
    pub ok: bool,
    /// The command's result (any JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// What went wrong, when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The stable error code (see [`Error::code`]), when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The session tag after the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Things the caller should know (rewinds, skipped items...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The longest error message a response carries, in bytes.
pub const MAX_ERROR_MESSAGE: usize = 4096;

/// `message` cut to [`MAX_ERROR_MESSAGE`] bytes at a character boundary,
/// saying how much was cut.
fn capped(mut message: String) -> String {
    if message.len() <= MAX_ERROR_MESSAGE {
        return message;
    }
    let total = message.len();
    let end = crate::support::text::floor_char_boundary(&message, MAX_ERROR_MESSAGE - 64);
    message.truncate(end);
    let _ = write!(message, "… ({} more bytes not shown)", total - end);
    message
}

impl Response {
    /// A success carrying `data`.
    pub fn success(data: Value) -> Self {
        Response {
            ok: true,
            data: Some(data),
            error: None,
            code: None,
            tag: None,
            warnings: Vec::new(),
        }
    }

    /// A failure carrying the error's message and code.
    /// The message is cut to [`MAX_ERROR_MESSAGE`] bytes: an error that
    /// quotes its input (an unknown name, a text not found) never repeats a
    /// huge one whole.
    pub fn failure(error: &Error) -> Self {
        Response {
            ok: false,
            data: None,
            error: Some(capped(error.to_string())),
            code: Some(error.code().to_owned()),
            tag: None,
            warnings: Vec::new(),
        }
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        // Strings, booleans and JSON values always serialise.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The JSON form, moving the data instead of copying it.
    pub fn into_json(self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("ok".into(), Value::Bool(self.ok));
        if let Some(data) = self.data {
            map.insert("data".into(), data);
        }
        if let Some(error) = self.error {
            map.insert("error".into(), Value::String(error));
        }
        if let Some(code) = self.code {
            map.insert("code".into(), Value::String(code));
        }
        if let Some(tag) = self.tag {
            map.insert("tag".into(), Value::String(tag));
        }
        if !self.warnings.is_empty() {
            map.insert(
                "warnings".into(),
                Value::Array(self.warnings.into_iter().map(Value::String).collect()),
            );
        }
        Value::Object(map)
    }

    /// The JSON form as compact text with sorted keys: the same text as
    /// `to_json().to_string()`, written directly.
    pub fn to_json_text(&self) -> String {
        self.to_json_text_with(self.data.as_ref())
    }

    /// [`to_json_text`](Self::to_json_text) with `data` written in place of
    /// the response's own (which is then `None`): an answer written straight
    /// from what a command produced, with no JSON value in between. `data`
    /// must serialise as its JSON value would: objects with sorted keys.
    pub(super) fn to_json_text_with<D: Serialize + ?Sized>(&self, data: Option<&D>) -> String {
        /// The fields in sorted order (objects inside `data` are sorted maps).
        #[derive(Serialize)]
        struct Sorted<'a, D: Serialize + ?Sized> {
            #[serde(skip_serializing_if = "Option::is_none")]
            code: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            data: Option<&'a D>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a str>,
            ok: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            tag: Option<&'a str>,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            warnings: &'a [String],
        }
        let sorted = Sorted {
            code: self.code.as_deref(),
            data,
            error: self.error.as_deref(),
            ok: self.ok,
            tag: self.tag.as_deref(),
            warnings: &self.warnings,
        };
        // Strings, booleans and JSON values always serialise.
        sonic_rs::to_string(&sorted).unwrap_or_default()
    }
}
