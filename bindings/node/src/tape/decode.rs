//! The decoder: JSON data read from the tape the codec's `encode` makes on
//! the JavaScript side (`from_js`).

use serde_json::{Map, Value};

use super::codec::codec;
use super::scratch;
use super::{ARRAY, FALSE, NULL, NUMBER, OBJECT, STRING, TRUE};
use crate::js::{Js, Kind, Raw};

/// A tape's text, as UTF-8, with the tape's lengths in UTF-16 units.
struct Text<'a> {
    text: &'a str,
    ascii: bool,
}

impl Text<'_> {
    /// The next `units` UTF-16 units from byte `*at` as a string; `None`
    /// past the end or inside a character.
    fn take(&self, at: &mut usize, units: usize) -> Option<String> {
        let rest = self.text.get(*at..)?;
        let len = if self.ascii {
            units
        } else {
            let mut left = units;
            let mut bytes = 0;
            for c in rest.chars() {
                if left == 0 {
                    break;
                }
                left = left.checked_sub(c.len_utf16())?;
                bytes += c.len_utf8();
            }
            if left > 0 {
                return None;
            }
            bytes
        };
        let piece = rest.get(..len)?;
        *at += len;
        Some(piece.to_owned())
    }
}

/// Reads a tape made by the codec's `encode`.
struct Reader<'a> {
    ops: &'a [f64],
    op: usize,
    text: &'a Text<'a>,
    at: usize,
}

impl Reader<'_> {
    fn next(&mut self) -> Option<f64> {
        let v = *self.ops.get(self.op)?;
        self.op += 1;
        Some(v)
    }

    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn count(&mut self) -> Option<usize> {
        let n = self.next()?;
        (n >= 0.0 && n.fract() == 0.0 && n < 4_294_967_296.0).then_some(n as usize)
    }

    fn string(&mut self) -> Option<String> {
        let units = self.count()?;
        self.text.take(&mut self.at, units)
    }

    #[allow(clippy::float_cmp)]
    fn value(&mut self) -> Option<Value> {
        let op = self.next()?;
        Some(if op == NULL {
            Value::Null
        } else if op == FALSE {
            Value::Bool(false)
        } else if op == TRUE {
            Value::Bool(true)
        } else if op == NUMBER {
            crate::convert::number(self.next()?)
        } else if op == STRING {
            Value::String(self.string()?)
        } else if op == ARRAY {
            let n = self.count()?;
            let mut items = Vec::with_capacity(n.min(self.ops.len()));
            for _ in 0..n {
                items.push(self.value()?);
            }
            Value::Array(items)
        } else if op == OBJECT {
            let n = self.count()?;
            let mut map = Map::new();
            for _ in 0..n {
                let key = self.string()?;
                map.insert(key, self.value()?);
            }
            Value::Object(map)
        } else {
            return None;
        })
    }
}

/// `value` read through the codec: `None` when it is not plain data (or
/// holds a lone surrogate); the caller then takes the general path.
pub(crate) fn from_js(js: Js, value: Raw) -> Option<Value> {
    let encode = js.reference_value(codec(js).ok()?.encode).ok()?;
    let encoded = js.call(encode, js.undefined().ok()?, &[value]).ok()?;
    if js.kind(encoded) != Kind::Object {
        return None;
    }
    let mut bytes = scratch::bytes();
    js.get_long_string_into(js.get_element(encoded, 0).ok()?, &mut bytes)
        .ok()?;
    let ops = js.float64_prefix(js.get_element(encoded, 1).ok()?)?;
    let value = read(&bytes, &ops);
    scratch::give_bytes(bytes);
    value
}

/// The value on the tape `ops` with its text `bytes`.
fn read(bytes: &[u8], ops: &[f64]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    // N-API writes a lone surrogate as U+FFFD; the general path gives such
    // a string its proper error (and a real U+FFFD its proper value).
    let ascii = text.is_ascii();
    if !ascii && text.contains('\u{FFFD}') {
        return None;
    }
    let text = Text { text, ascii };
    let mut reader = Reader {
        ops,
        op: 0,
        text: &text,
        at: 0,
    };
    let value = reader.value()?;
    (reader.op == ops.len()).then_some(value)
}
