//! Data between JavaScript and the engine's JSON values, with the rules of
//! `JSON.stringify` one way and `JSON.parse` the other.
//!
//! - JS to JSON: plain data (plain objects, arrays, strings, numbers,
//!   booleans, `null`) is read in bulk through the codec (`tape`); anything
//!   else (a `toJSON` method, class instances, `Date`, `Map`, bigints,
//!   cycles, lone surrogates, more than 128 levels) goes through the realm's
//!   own `JSON.stringify` and `serde_json`, so the result (or the error) is
//!   exactly what `JSON.parse(JSON.stringify(value))` gives.
//! - JSON to JS goes through the codec too: plain objects with own data
//!   properties (as `JSON.parse` makes them), arrays, numbers, strings.

use radium_core::{ChainOutcome, HookRun};
use serde_json::{Number, Value};

use crate::js::{Js, JsResult, Kind, Raw};
use crate::tape::{self, Tape};

/// `JSON.stringify(value)`: `None` when it answers `undefined`; a thrown
/// error (cycle, bigint, a throwing `toJSON`) becomes its message.
pub(crate) fn stringify(js: Js, value: Raw) -> JsResult<Option<String>> {
    let f = tape::json_stringify(js)?;
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
    if let Some(json) = tape::from_js(js, value) {
        return Ok(json);
    }
    // Not plain data, or reading it threw: let JSON.stringify decide.
    let Some(text) = stringify(js, value)? else {
        return Ok(Value::Null);
    };
    radium_core::parse_json(&text).map_err(|message| {
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
pub(crate) fn number(n: f64) -> Value {
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

/// A JSON value as a JS value.
pub(crate) fn to_js(js: Js, value: &Value) -> JsResult<Raw> {
    let mut tape = Tape::new(js)?;
    tape.value(value)?;
    tape.into_js(js)
}

#[allow(clippy::cast_precision_loss)]
fn nanos(tape: &mut Tape, duration: std::time::Duration) {
    let n = i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX);
    tape.number(n as f64);
}

fn run_to_tape(tape: &mut Tape, run: &HookRun) {
    tape.object(if run.error.is_some() { 4 } else { 3 });
    tape.key("name");
    tape.string(&run.name);
    tape.key("status");
    tape.string(run.status.as_str());
    tape.key("duration_ns");
    nanos(tape, run.duration);
    if let Some(error) = &run.error {
        tape.key("error");
        tape.string(error);
    }
}

/// A chain outcome in its documented JSON form, built without an
/// intermediate JSON value.
pub(crate) fn outcome_to_js(js: Js, outcome: &ChainOutcome) -> JsResult<Raw> {
    let mut tape = Tape::new(js)?;
    tape.object(6);
    tape.key("hook_type");
    tape.string(outcome.hook_type.as_str());
    tape.key("status");
    tape.string(outcome.status.as_str());
    tape.key("data");
    tape.value(&outcome.data)?;
    tape.key("stopped_by");
    match &outcome.stopped_by {
        None => tape.null(),
        Some(stop) => {
            tape.object(2);
            tape.key("hook");
            tape.string(&stop.hook);
            tape.key("reason");
            tape.string(&stop.reason);
        }
    }
    tape.key("hooks");
    tape.array(outcome.hooks.len());
    for run in &outcome.hooks {
        run_to_tape(&mut tape, run);
    }
    tape.key("duration_ns");
    nanos(&mut tape, outcome.duration);
    tape.into_js(js)
}
