//! The encoder: `Tape`, JSON data written as operations and text for the
//! codec of one environment, and sent to it (decoded there, or handed to a
//! hook).

use std::ptr;

use napi::sys;
use serde_json::Value;

use super::codec::{codec, Codec, CodecRefs, CODEC_REFS};
use super::names::{common_index, COMMON, KEY_MAX_COUNT, KEY_MAX_LEN};
use super::scratch;
use super::{ARRAY, FALSE, NULL, NUMBER, OBJECT, STRING, TRUE};
use crate::js::{Js, JsResult, Raw};

/// Deeper data is refused (serde_json's parser stops at 128 already).
const MAX_DEPTH: usize = 512;

/// Data on its way to JavaScript, for the codec of one environment.
pub(crate) struct Tape {
    codec: CodecRefs,
    text: String,
    pub(super) ops: Vec<f64>,
    /// Names met for the first time on this tape, in order: the codec
    /// remembers them as it decodes, and so does `CODEC_REFS` once it has.
    new_keys: Vec<Box<str>>,
}

impl Tape {
    /// An empty tape for the codec of `js`'s environment (made first, so the
    /// names the tape numbers are that codec's).
    pub(crate) fn new(js: Js) -> JsResult<Self> {
        Ok(Tape {
            codec: codec(js)?,
            text: scratch::text(),
            ops: scratch::ops(),
            new_keys: Vec::new(),
        })
    }

    /// `null`.
    pub(crate) fn null(&mut self) {
        self.ops.push(NULL);
    }

    /// A number (a JS number: integers beyond 2^53 round).
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn number(&mut self, n: f64) {
        self.ops.extend([NUMBER, n]);
    }

    fn text(&mut self, s: &str) {
        let units = if s.is_ascii() {
            s.len()
        } else {
            s.encode_utf16().count()
        };
        #[allow(clippy::cast_precision_loss)]
        self.ops.push(units as f64);
        self.text.push_str(s);
    }

    /// A string.
    pub(crate) fn string(&mut self, s: &str) {
        self.ops.push(STRING);
        self.text(s);
    }

    /// An array of `len` items (which follow).
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn array(&mut self, len: usize) {
        self.ops.extend([ARRAY, len as f64]);
    }

    /// An object of `len` entries (each a `key` and a value, which follow).
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn object(&mut self, len: usize) {
        self.ops.extend([OBJECT, len as f64]);
    }

    /// The key of an object's entry. Short names are sent once per
    /// environment and then by number, so the codec uses the same
    /// (internalized) JS string for them every time.
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn key(&mut self, key: &str) {
        if let Some(index) = common_index(key) {
            self.ops.push(-(index as f64) - 1.0);
            return;
        }
        if key.len() > KEY_MAX_LEN {
            return self.text(key);
        }
        let (index, committed) =
            CODEC_REFS.with_borrow(|c| (c.keys.get(key).copied(), COMMON.len() + c.keys.len()));
        let index = match index {
            Some(index) => index,
            None => match self.new_keys.iter().position(|k| &**k == key) {
                Some(j) => committed + j,
                None if committed + self.new_keys.len() < KEY_MAX_COUNT => {
                    let index = committed + self.new_keys.len();
                    self.new_keys.push(key.into());
                    self.ops.push(-(index as f64) - 1.0);
                    return self.text(key);
                }
                None => return self.text(key),
            },
        };
        self.ops.push(-(index as f64) - 1.0);
    }

    /// Any JSON value (an error when nested deeper than `MAX_DEPTH`).
    pub(crate) fn value(&mut self, value: &Value) -> JsResult<()> {
        self.value_at(value, 0)
    }

    fn value_at(&mut self, value: &Value, depth: usize) -> JsResult<()> {
        if depth > MAX_DEPTH {
            return Err(format!("data nested deeper than {MAX_DEPTH} levels"));
        }
        match value {
            Value::Null => self.null(),
            Value::Bool(b) => self.ops.push(if *b { TRUE } else { FALSE }),
            Value::Number(n) => self.number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.array(items.len());
                for item in items {
                    self.value_at(item, depth + 1)?;
                }
            }
            Value::Object(map) => {
                self.object(map.len());
                for (key, item) in map {
                    self.key(key);
                    self.value_at(item, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    /// The JS value on the tape.
    pub(crate) fn into_js(self, js: Js) -> JsResult<Raw> {
        self.send(js, None)
    }

    /// Decodes the tape in the codec, and calls `hook` with the value when
    /// given one: `(function, the context's revision, its shape)`.
    pub(super) fn send(self, js: Js, hook: Option<(Raw, u64, u32)>) -> JsResult<Raw> {
        let codec = self.codec;
        // The same text as last time (the next hook of a chain gets the
        // same context): the codec still has it.
        let same = CODEC_REFS.with_borrow(|c| !self.text.is_empty() && c.last_text == self.text);
        let text = if same {
            js.undefined()?
        } else {
            js.string(&self.text)?
        };
        let bigger = if self.ops.len() > codec.capacity {
            let capacity = self.ops.len().next_power_of_two().max(1024);
            let (array, data) = js.float64_array(capacity)?;
            let reference = js.reference(array)?;
            CODEC_REFS.with_borrow_mut(|c| {
                if let Some(old) = c.tape.replace(reference) {
                    // SAFETY: our reference, in this live environment.
                    unsafe { sys::napi_delete_reference(js.env(), old) };
                }
                c.data = data;
                c.capacity = capacity;
            });
            array
        } else {
            js.undefined()?
        };
        let (data, base) = CODEC_REFS.with_borrow(|c| (c.data, COMMON.len() + c.keys.len()));
        // SAFETY: `data` holds `capacity >= ops.len()` f64s of the array the
        // codec reads, kept alive by our reference; no JS runs meanwhile.
        unsafe { ptr::copy_nonoverlapping(self.ops.as_ptr(), data, self.ops.len()) };
        scratch::give_ops(self.ops);
        #[allow(clippy::cast_precision_loss)]
        let base = js.double(base as f64)?;
        let (decode, invoke) = (
            js.reference_value(codec.decode)?,
            js.reference_value(codec.invoke)?,
        );
        // What the codec will know once it has decoded the tape, recorded
        // now: a hook may call back into the engine, which sends tapes of
        // its own before this call returns.
        CODEC_REFS.with_borrow_mut(|c| {
            // A context's tape stays valid for its next hook while the codec
            // still holds its text (no other tape in between), if it sends
            // no new names (a name is sent as text only once).
            if let Some((_, revision, _)) = hook {
                c.context = Some(revision);
            }
            for name in self.new_keys {
                let index = COMMON.len() + c.keys.len();
                c.keys.insert(name, index);
            }
            if same {
                scratch::give_text(self.text);
            } else {
                scratch::give_text(std::mem::replace(&mut c.last_text, self.text));
            }
        });
        let value = match hook {
            Some((function, _, shape)) => js.call(
                invoke,
                js.undefined()?,
                &[
                    function,
                    text,
                    bigger,
                    base,
                    js.boolean(false)?,
                    js.double(f64::from(shape))?,
                ],
            ),
            None => js.call(decode, js.undefined()?, &[text, bigger, base]),
        };
        if value.is_err() {
            // The codec may not have taken the new tape or text, or may have
            // remembered only some names (or the hook threw): start over.
            CODEC_REFS.with_borrow_mut(Codec::start_over);
        }
        value
    }
}
