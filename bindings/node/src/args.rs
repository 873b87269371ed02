//! The arguments of the exported functions, read from JS values: strings,
//! hook types, JSON data, options objects (the hook options `register` and
//! `registerScript` share) and requests.

use std::time::Duration;

use napi::bindgen_prelude::{Env, Unknown};
use napi::JsValue as _;
use radium_core::{HookOptions, HookPriority, HookType, ToolMatcher};
use serde_json::{Map, Value};

use crate::convert;
use crate::errors::{engine_error, internal, throw, Throw};
use crate::js::{Js, Kind, Raw};

/// The `Js` of an entry point's environment.
pub(crate) fn js_of(env: &Env) -> Js {
    // SAFETY: `env` is the environment napi-rs passed to the entry point now
    // running on this thread; the `Js` is used only during that call.
    unsafe { Js::new(env.raw()) }
}

/// The raw value of an argument.
pub(crate) fn raw(value: &Unknown<'_>) -> Raw {
    value.raw()
}

/// A required string argument.
pub(crate) fn string_arg(js: Js, value: Raw, what: &str) -> Result<String, Throw> {
    match js.kind(value) {
        Kind::String => js.get_string(value).map_err(internal),
        other => Err(throw(
            "invalid_argument",
            format!("{what} must be a string, got {}", other.describe()),
        )),
    }
}

/// A required hook type argument (its name).
pub(crate) fn hook_type_arg(js: Js, value: Raw) -> Result<HookType, Throw> {
    string_arg(js, value, "the hook type")?
        .parse()
        .map_err(|e| engine_error(&e))
}

/// Any JSON-convertible argument (`undefined` is `null`).
pub(crate) fn json_arg(js: Js, value: Raw, what: &str) -> Result<Value, Throw> {
    convert::from_js(js, value).map_err(|e| {
        throw(
            "invalid_argument",
            format!("{what} cannot be converted to JSON: {e}"),
        )
    })
}

/// An optional options object (`undefined` and `null` mean none).
pub(crate) fn options_arg(js: Js, value: Raw, what: &str) -> Result<Map<String, Value>, Throw> {
    match js.kind(value) {
        Kind::Undefined | Kind::Null => Ok(Map::new()),
        Kind::Object if !js.is_array(value) => match json_arg(js, value, what)? {
            Value::Object(map) => Ok(map),
            _ => Ok(Map::new()),
        },
        Kind::Object => Err(throw(
            "invalid_argument",
            format!("{what} must be an object, got an array"),
        )),
        other => Err(throw(
            "invalid_argument",
            format!("{what} must be an object, got {}", other.describe()),
        )),
    }
}

fn bad_option(key: &str, expected: &str, got: &Value) -> Throw {
    throw(
        "invalid_argument",
        format!(
            "option `{key}` must be {expected}, got {}",
            radium_core::json_kind(got)
        ),
    )
}

/// A non-negative whole number of milliseconds.
pub(crate) fn millis(key: &str, value: &Value) -> Result<Duration, Throw> {
    value
        .as_u64()
        .map(Duration::from_millis)
        .ok_or_else(|| bad_option(key, "a non-negative whole number of milliseconds", value))
}

/// Options shared by `register` and `registerScript`.
pub(crate) fn hook_options(
    mut options: Map<String, Value>,
    script: bool,
) -> Result<(HookPriority, HookOptions, Option<String>), Throw> {
    let mut priority = HookPriority::DEFAULT;
    let mut hook_options = HookOptions::default();
    let mut cwd = None;
    let known = if script {
        "priority, matcher, timeoutMs, enabled, cwd"
    } else {
        "priority, matcher, timeoutMs, enabled"
    };
    for (key, value) in std::mem::take(&mut options) {
        match key.as_str() {
            "priority" => {
                priority = HookPriority(
                    value
                        .as_i64()
                        .and_then(|n| i32::try_from(n).ok())
                        .ok_or_else(|| bad_option(&key, "a whole number (32-bit)", &value))?,
                );
            }
            "matcher" => match &value {
                Value::String(pattern) => {
                    hook_options.matcher =
                        Some(ToolMatcher::new(pattern).map_err(|e| engine_error(&e))?);
                }
                other => return Err(bad_option(&key, "a string", other)),
            },
            "timeoutMs" => hook_options.timeout = Some(millis(&key, &value)?),
            "enabled" => match value {
                Value::Bool(enabled) => hook_options.disabled = !enabled,
                other => return Err(bad_option(&key, "a boolean", &other)),
            },
            "cwd" if script => match value {
                Value::String(dir) => cwd = Some(dir),
                other => return Err(bad_option(&key, "a string (a directory)", &other)),
            },
            other => {
                let hint = match other {
                    "timeout_ms" | "timeout" => " (did you mean `timeoutMs`?)",
                    "cwd" => " (`cwd` is for registerScript)",
                    _ => "",
                };
                return Err(throw(
                    "invalid_argument",
                    format!("unknown option `{other}`{hint}; known options: {known}"),
                ));
            }
        }
    }
    Ok((priority, hook_options, cwd))
}

/// The request argument: a plain object, as JSON.
pub(crate) fn request_arg(js: Js, request: Raw) -> Result<Value, Throw> {
    let kind = js.kind(request);
    if kind != Kind::Object || js.is_array(request) {
        let got = if kind == Kind::Object {
            "an array"
        } else {
            kind.describe()
        };
        return Err(throw(
            "invalid_argument",
            format!("the request must be an object like {{ command: \"ping\" }}, got {got}"),
        ));
    }
    json_arg(js, request, "the request")
}
