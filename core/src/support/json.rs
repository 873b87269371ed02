//! Reading request arguments and naming JSON kinds in error messages.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// A short name for the kind of a JSON value, for error messages.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The arguments of `command` as an object (`null` reads as no arguments).
pub(crate) fn args_object<'a>(command: &str, args: &'a Value) -> Result<&'a Map<String, Value>> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match args {
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        Value::Object(map) => Ok(map),
        other => Err(Error::InvalidArgument(format!(
            "`{command}`: args must be an object, got {}",
            json_kind(other)
        ))),
    }
}

/// A required string argument.
pub(crate) fn string_arg<'a>(
    command: &str,
    args: &'a Map<String, Value>,
    name: &str,
) -> Result<&'a str> {
    match args.get(name) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(Error::InvalidArgument(format!(
            "`{command}`: missing argument `{name}`"
        ))),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: argument `{name}` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

/// An optional line number argument.
pub(crate) fn line_arg(
    command: &str,
    args: &Map<String, Value>,
    name: &str,
) -> Result<Option<usize>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(Some(
            usize::try_from(n.as_u64().unwrap_or(0)).unwrap_or(usize::MAX),
        )),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: argument `{name}` must be a line number, got {}",
            json_kind(other)
        ))),
    }
}

/// An optional string argument (`None` when absent or `null`).
pub(crate) fn optional_string_arg<'a>(
    command: &str,
    args: &'a Map<String, Value>,
    name: &str,
) -> Result<Option<&'a str>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: argument `{name}` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

/// An optional boolean argument (`false` when absent or `null`).
pub(crate) fn bool_arg(command: &str, args: &Map<String, Value>, name: &str) -> Result<bool> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: argument `{name}` must be a boolean, got {}",
            json_kind(other)
        ))),
    }
}
