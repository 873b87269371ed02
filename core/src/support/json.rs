//! Reading request arguments and naming JSON kinds in error messages.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// A short name for the kind of a JSON value, for error messages (`a
/// string`, `an object`, ...): every door words its errors the same way.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The value at `keys` in `value`'s objects, one key a level: what
/// `Value::pointer` answers for a path of plain keys, without the copies it
/// makes of each key to unescape it (a tenth of the reading thread's time on
/// a flood of tool call updates).
pub(crate) fn at<'a>(value: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().try_fold(value, |v, k| v.as_object()?.get(*k))
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
            "`{command}`: argument `{name}` must be a number (lines and columns count from 1), got {}",
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

/// The deepest nesting of arrays and objects accepted in JSON text, on every
/// path that parses it (requests from every door, daemon frames, hook and
/// script results): deeper text is refused before it is parsed, so that no
/// parser can run out of stack. It is serde_json's own limit (127 levels).
pub const MAX_JSON_DEPTH: usize = 127;

/// How deep the arrays and objects of JSON text are nested, at least (the
/// text need not be valid JSON: brackets inside strings do not count). The
/// text is walked, jumping through strings (the bulk of a request: a
/// context, an answer) to their next unescaped quote with SIMD.
pub(crate) fn json_depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while i < text.len() {
        match text[i] {
            b'"' => {
                // To the string's closing quote: the next quote not escaped
                // (an even run of backslashes before it).
                let start = i + 1;
                i = start;
                loop {
                    let Some(at) = memchr::memchr(b'"', &text[i..]) else {
                        return deepest;
                    };
                    let quote = i + at;
                    let run = text[start..quote]
                        .iter()
                        .rev()
                        .take_while(|&&b| b == b'\\')
                        .count();
                    i = quote;
                    if run % 2 == 0 {
                        break;
                    }
                    i += 1;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    deepest
}

/// Refuses JSON text nested deeper than [`MAX_JSON_DEPTH`] (the text need not
/// be valid JSON: brackets inside strings do not count). The message is the
/// same wherever JSON text comes in.
pub fn check_json_depth(text: &[u8]) -> std::result::Result<(), String> {
    if json_depth(text) > MAX_JSON_DEPTH {
        return Err(too_deep());
    }
    Ok(())
}

/// The one message for JSON text nested deeper than [`MAX_JSON_DEPTH`].
pub(crate) fn too_deep() -> String {
    format!("JSON nested deeper than {MAX_JSON_DEPTH} levels is refused")
}

/// Parses JSON text after [`check_json_depth`]; the error is a message for
/// the caller to wrap (it names what was wrong, and where for invalid text).
pub fn parse_json(text: &str) -> std::result::Result<Value, String> {
    check_json_depth(text.as_bytes())?;
    serde_json::from_str(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::{at, json_depth};

    #[test]
    fn a_path_of_keys_reads_what_a_pointer_reads() {
        let v = serde_json::json!({"a": {"b/c": {"d": 1}, "e": [1, 2], "f": null}});
        assert_eq!(at(&v, &["a", "b/c", "d"]), v.pointer("/a/b~1c/d"));
        assert_eq!(at(&v, &["a", "f"]), Some(&serde_json::Value::Null));
        assert_eq!(at(&v, &[]), Some(&v));
        // Missing keys, and keys into what is not an object.
        assert_eq!(at(&v, &["a", "x"]), None);
        assert_eq!(at(&v, &["a", "e", "0"]), None);
        assert_eq!(at(&v, &["a", "b/c", "d", "z"]), None);
    }

    /// The byte-by-byte walk the SIMD one must agree with.
    fn walked(text: &[u8]) -> usize {
        let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
        for &byte in text {
            if in_string {
                match byte {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        deepest
    }

    #[test]
    fn the_depth_skips_strings_escapes_and_brackets_in_them() {
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        let code = "fn main() { let v = [1, 2]; if x { y[0] } }".repeat(20);
        let cases = [
            deep.clone(),
            format!("{{\"a\": \"{code}\", \"b\": {deep}}}"),
            format!("{{\"a\": \"\\\"{{{{[[\\\\\", \"b\": {deep}}}"),
            format!("{deep}\"unterminated {{{{{{ [[[ \\"),
            format!("{deep}\"ends on a backslash \\"),
            format!("{}\"x\\\"\"{}", "{".repeat(20), "}".repeat(20)),
            "[\"\\\\\", [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]".to_owned(),
        ];
        for text in &cases {
            assert_eq!(
                json_depth(text.as_bytes()),
                walked(text.as_bytes()),
                "{text}"
            );
        }
        assert_eq!(json_depth(deep.as_bytes()), 40);
        assert_eq!(json_depth(cases[1].as_bytes()), 41);
    }
}
