//! Data between JavaScript and the engine's JSON values, with the rules of
//! `JSON.stringify` one way and `JSON.parse` the other.
//!
//! - JS to JSON: plain data (plain objects, arrays, strings, finite numbers,
//!   booleans, `null`) is read directly; anything else (a `toJSON` method,
//!   class instances, `Date`, `Map`, bigints, cycles, lone surrogates, more
//!   than 128 levels) goes through the realm's own `JSON.stringify` and
//!   `serde_json`, so the result (or the error) is exactly what
//!   `JSON.parse(JSON.stringify(value))` gives.
//! - JSON to JS builds the values directly: plain objects with own data
//!   properties (as `JSON.parse` makes them), arrays, numbers, strings.

use std::cell::Cell;
use std::ptr;

use napi::sys;
use radium_core::{ChainOutcome, HookContext, HookRun, StopInfo};
use serde_json::{Map, Number, Value};

use crate::js::{Js, JsResult, Kind, Raw};

/// Integers beyond this lose precision as JS numbers.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Deeper JSON is refused (serde_json's parser stops at 128 already).
const MAX_DEPTH: usize = 512;

/// Deeper JS data is left to `JSON.stringify` (which finds cycles) and
/// serde_json (which refuses more than 128 levels).
const WALK_DEPTH: usize = 128;

thread_local! {
    /// This thread's `JSON.stringify` and `Object.prototype`, looked up once
    /// per environment (the references are kept for its lifetime).
    static REALM: Cell<(sys::napi_env, sys::napi_ref, sys::napi_ref)> =
        const { Cell::new((ptr::null_mut(), ptr::null_mut(), ptr::null_mut())) };
}

/// `(JSON.stringify, Object.prototype)` of the current environment.
fn realm(js: Js) -> JsResult<(Raw, Raw)> {
    let (env, stringify, prototype) = REALM.get();
    if env == js.env() && !stringify.is_null() {
        return Ok((
            js.reference_value(stringify)?,
            js.reference_value(prototype)?,
        ));
    }
    let global = js.global()?;
    let json = js.get_named(global, c"JSON")?;
    let stringify = js.get_named(json, c"stringify")?;
    if js.kind(stringify) != Kind::Function {
        return Err("JSON.stringify is not a function".to_owned());
    }
    let prototype = js.get_named(js.get_named(global, c"Object")?, c"prototype")?;
    REALM.set((js.env(), js.reference(stringify)?, js.reference(prototype)?));
    Ok((stringify, prototype))
}

/// `JSON.stringify(value)`: `None` when it answers `undefined`; a thrown
/// error (cycle, bigint, a throwing `toJSON`) becomes its message.
pub(crate) fn stringify(js: Js, value: Raw) -> JsResult<Option<String>> {
    let (f, _) = realm(js)?;
    let text = js.call(f, js.undefined()?, &[value])?;
    match js.kind(text) {
        Kind::String => js.get_string(text).map(Some),
        _ => Ok(None),
    }
}

/// A JS value as JSON. `undefined` (or a value `JSON.stringify` drops)
/// becomes `null`; functions, symbols and values `JSON.stringify` refuses
/// are errors naming the problem.
pub(crate) fn from_js(js: Js, value: Raw) -> JsResult<Value> {
    match js.kind(value) {
        Kind::Undefined | Kind::Null => return Ok(Value::Null),
        Kind::Function | Kind::Symbol | Kind::External => {
            return Err(format!("got {}", js.kind(value).describe()))
        }
        _ => {}
    }
    let (_, object_prototype) = realm(js)?;
    if let Some(json) = walk(js, value, object_prototype, 0) {
        return Ok(json);
    }
    // Not plain data, or reading it threw: let JSON.stringify decide.
    let Some(text) = stringify(js, value)? else {
        return Ok(Value::Null);
    };
    serde_json::from_str(&text).map_err(|e| {
        let message = e.to_string();
        // JSON.stringify escapes a lone surrogate as `\udXXX`, which JSON
        // (RFC 8259 text as UTF-8) cannot carry.
        if message.contains("escape") || message.contains("surrogate") {
            format!(
                "a string holds a lone UTF-16 surrogate, which is not valid Unicode ({message})"
            )
        } else {
            message
        }
    })
}

/// What `JSON.parse(JSON.stringify(n))` gives for a finite number.
fn number(n: f64) -> Value {
    // JS prints integers below 1e21 as digits, which serde_json reads as
    // u64 / i64 when they fit and as f64 otherwise.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if n.fract() == 0.0 && n.abs() < 1e21 {
        if (0.0..18_446_744_073_709_551_616.0).contains(&n) {
            return Value::Number(Number::from(n as u64));
        }
        if (-9_223_372_036_854_775_808.0..0.0).contains(&n) {
            return Value::Number(Number::from(n as i64));
        }
    }
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

/// A string as JSON.stringify would carry it; `None` when it may hold a lone
/// surrogate (N-API would turn it into U+FFFD; JSON.stringify escapes it).
fn text(js: Js, value: Raw) -> Option<String> {
    js.get_string(value)
        .ok()
        .filter(|s| !s.contains('\u{FFFD}'))
}

/// Plain data read directly; `None` for anything JSON.stringify must handle
/// (or that threw: its exception is cleared; JSON.stringify will meet it again).
fn walk(js: Js, value: Raw, object_prototype: Raw, depth: usize) -> Option<Value> {
    match js.kind(value) {
        Kind::Null => Some(Value::Null),
        Kind::Boolean => js.get_bool(value).ok().map(Value::Bool),
        Kind::Number => js.get_double(value).ok().map(number),
        Kind::String => text(js, value).map(Value::String),
        Kind::Object if depth < WALK_DEPTH => {
            // A `toJSON` method (Date, user classes) decides for itself.
            let to_json = js.get_named(value, c"toJSON").ok()?;
            if js.kind(to_json) != Kind::Undefined {
                return None;
            }
            if js.is_array(value) {
                let len = js.array_length(value).ok()?;
                let mut items = Vec::with_capacity(usize::try_from(len).ok()?);
                for i in 0..len {
                    let item = js.get_element(value, i).ok()?;
                    items.push(match js.kind(item) {
                        Kind::Undefined | Kind::Function | Kind::Symbol => Value::Null,
                        _ => walk(js, item, object_prototype, depth + 1)?,
                    });
                }
                return Some(Value::Array(items));
            }
            // Plain objects only (`{}` or `Object.create(null)`): boxed
            // primitives, Maps and class instances go to JSON.stringify.
            let prototype = js.prototype(value).ok()?;
            if js.kind(prototype) != Kind::Null && !js.same(prototype, object_prototype) {
                return None;
            }
            let keys = js.own_keys(value).ok()?;
            let mut map = Map::new();
            for i in 0..js.array_length(keys).ok()? {
                let key = js.get_element(keys, i).ok()?;
                let item = js.get(value, key).ok()?;
                match js.kind(item) {
                    Kind::Undefined | Kind::Function | Kind::Symbol => {}
                    _ => {
                        let item = walk(js, item, object_prototype, depth + 1)?;
                        map.insert(text(js, key)?, item);
                    }
                }
            }
            Some(Value::Object(map))
        }
        _ => None,
    }
}

/// A JSON value as a JS value.
pub(crate) fn to_js(js: Js, value: &Value) -> JsResult<Raw> {
    to_js_at(js, value, 0)
}

fn to_js_at(js: Js, value: &Value, depth: usize) -> JsResult<Raw> {
    if depth > MAX_DEPTH {
        return Err(format!("data nested deeper than {MAX_DEPTH} levels"));
    }
    match value {
        Value::Null => js.null(),
        Value::Bool(b) => js.boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) => js.int(i),
            _ => js.double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => js.string(s),
        Value::Array(items) => {
            let array = js.array(items.len())?;
            for (i, item) in items.iter().enumerate() {
                let index = u32::try_from(i).map_err(|_| "array too long".to_owned())?;
                js.set_element(array, index, to_js_at(js, item, depth + 1)?)?;
            }
            Ok(array)
        }
        Value::Object(map) => {
            let mut properties = Vec::with_capacity(map.len());
            for (key, item) in map {
                properties.push((js.string(key)?, to_js_at(js, item, depth + 1)?));
            }
            js.object(&properties)
        }
    }
}

fn named(js: Js, fields: &[(&str, Raw)]) -> JsResult<Raw> {
    let mut properties = Vec::with_capacity(fields.len());
    for &(key, value) in fields {
        properties.push((js.string(key)?, value));
    }
    js.object(&properties)
}

/// The context a JS hook gets: `{hook_type, data, metadata}`, a new object per call.
/// A hook's `ctx`: `{hook_type, data, metadata}`, converted directly from
/// the engine's values. (Parsing the context's JSON text lazily, on first
/// read, was tried: it helps hooks that never read `ctx.data` but V8's
/// `JSON.parse` of escape-heavy text made the usual hooks, which read or
/// modify it, 1.4–1.8× slower.)
pub(crate) fn context_to_js(js: Js, context: &HookContext) -> JsResult<Raw> {
    named(
        js,
        &[
            ("hook_type", js.string(context.hook_type.as_str())?),
            ("data", to_js(js, &context.data)?),
            ("metadata", to_js(js, &context.metadata)?),
        ],
    )
}

fn nanos(js: Js, duration: std::time::Duration) -> JsResult<Raw> {
    let n = i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX);
    to_js(js, &Value::from(n))
}

fn run_to_js(js: Js, run: &HookRun) -> JsResult<Raw> {
    let name = js.string(&run.name)?;
    let status = to_js(js, &serde_json::to_value(run.status).unwrap_or_default())?;
    let duration = nanos(js, run.duration)?;
    match &run.error {
        Some(error) => named(
            js,
            &[
                ("name", name),
                ("status", status),
                ("duration_ns", duration),
                ("error", js.string(error)?),
            ],
        ),
        None => named(
            js,
            &[
                ("name", name),
                ("status", status),
                ("duration_ns", duration),
            ],
        ),
    }
}

fn stop_to_js(js: Js, stop: Option<&StopInfo>) -> JsResult<Raw> {
    match stop {
        None => js.null(),
        Some(stop) => named(
            js,
            &[
                ("hook", js.string(&stop.hook)?),
                ("reason", js.string(&stop.reason)?),
            ],
        ),
    }
}

/// A chain outcome in its documented JSON form, built without an
/// intermediate JSON value.
pub(crate) fn outcome_to_js(js: Js, outcome: &ChainOutcome) -> JsResult<Raw> {
    let hooks = js.array(outcome.hooks.len())?;
    for (i, run) in outcome.hooks.iter().enumerate() {
        let index = u32::try_from(i).map_err(|_| "too many hooks".to_owned())?;
        js.set_element(hooks, index, run_to_js(js, run)?)?;
    }
    named(
        js,
        &[
            ("hook_type", js.string(outcome.hook_type.as_str())?),
            ("status", js.string(outcome.status.as_str())?),
            ("data", to_js(js, &outcome.data)?),
            ("stopped_by", stop_to_js(js, outcome.stopped_by.as_ref())?),
            ("hooks", hooks),
            ("duration_ns", nanos(js, outcome.duration)?),
        ],
    )
}
