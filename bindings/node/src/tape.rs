//! Moving JSON data across N-API in bulk.
//!
//! Building objects one property at a time through N-API costs V8 a
//! property-definition call per key (about 0.2 µs each), and reading them
//! back costs several calls per value. Instead, data crosses as a *tape*:
//! one string holding every key and string value back to back, and a
//! `Float64Array` of operations (`null`, `false`, `true`, a number, a string
//! of n UTF-16 units, an array of n items, an object of n entries). A small
//! JavaScript codec, compiled once per environment, builds or reads the
//! values on the JavaScript side, where V8 optimises it like any other code.
//! Strings are sliced out of the one string without copying or escaping.
//!
//! The JavaScript side reads only plain data (the subset where it matches
//! `JSON.stringify` exactly); for anything else it answers `undefined` and
//! the caller takes the general path (`convert`).

use std::ptr;

use napi::sys;
use radium_core::HookContext;
use serde_json::{Map, Value};

use crate::js::{Js, JsResult, Kind, Raw};

const NULL: f64 = 0.0;
const FALSE: f64 = 1.0;
const TRUE: f64 = 2.0;
const NUMBER: f64 = 3.0;
const STRING: f64 = 4.0;
const ARRAY: f64 = 5.0;
const OBJECT: f64 = 6.0;

/// Deeper data is refused (serde_json's parser stops at 128 already).
const MAX_DEPTH: usize = 512;

/// Names the codec knows from the start, by number: the keys of the
/// engine's envelopes, outcomes and editor data. A name here costs no table
/// lookup.
const COMMON: [&str; 36] = [
    "ok",
    "data",
    "error",
    "code",
    "tag",
    "warnings",
    "hook_type",
    "status",
    "stopped_by",
    "hooks",
    "duration_ns",
    "name",
    "hook",
    "reason",
    "metadata",
    "tool_name",
    "arguments",
    "result",
    "context",
    "editor_context",
    "file_path",
    "language",
    "selection",
    "selection_range",
    "start_line",
    "end_line",
    "surrounding_lines",
    "workspace",
    "original_output",
    "code_blocks",
    "block_count",
    "content",
    "index",
    "incomplete",
    "agent",
    "prompt",
];

/// The number of a common name.
fn common_index(key: &str) -> Option<usize> {
    // A match on the name compiles to a comparison by length, then bytes.
    Some(match key {
        "ok" => 0,
        "data" => 1,
        "error" => 2,
        "code" => 3,
        "tag" => 4,
        "warnings" => 5,
        "hook_type" => 6,
        "status" => 7,
        "stopped_by" => 8,
        "hooks" => 9,
        "duration_ns" => 10,
        "name" => 11,
        "hook" => 12,
        "reason" => 13,
        "metadata" => 14,
        "tool_name" => 15,
        "arguments" => 16,
        "result" => 17,
        "context" => 18,
        "editor_context" => 19,
        "file_path" => 20,
        "language" => 21,
        "selection" => 22,
        "selection_range" => 23,
        "start_line" => 24,
        "end_line" => 25,
        "surrounding_lines" => 26,
        "workspace" => 27,
        "original_output" => 28,
        "code_blocks" => 29,
        "block_count" => 30,
        "content" => 31,
        "index" => 32,
        "incomplete" => 33,
        "agent" => 34,
        "prompt" => 35,
        _ => return None,
    })
}

/// Object keys up to this long are remembered by the codec, up to this many
/// per environment; others are sent as text each time.
const KEY_MAX_LEN: usize = 64;
const KEY_MAX_COUNT: usize = 4096;

/// The codec: `[decode(text, tape?), encode(value)]`.
///
/// `decode` builds plain objects with own data properties in the order of
/// the tape (a `__proto__` key is an own property, as `JSON.parse` makes
/// it). Its tape is one `Float64Array` that the native side fills and
/// hands over only when it had to make a bigger one (making array buffers
/// is costly in V8). `encode` walks plain data the way `JSON.stringify`
/// does (own enumerable string keys; `undefined`, functions and symbols
/// left out of objects and `null` in arrays; non-finite numbers are `null`)
/// into its own `Float64Array` (the count first, then the operations) and
/// answers `[text, tape]`, or `undefined` for anything it does not handle:
/// `toJSON`, objects that are not plain (`Date`, `Map`, class instances,
/// boxed primitives), bigints, more than 128 levels, or a getter that
/// throws.
const CODEC: &str = r"(function (common) {
  'use strict';
  const getPrototypeOf = Object.getPrototypeOf;
  const objectPrototype = Object.prototype;
  const defineProperty = Object.defineProperty;
  const isArray = Array.isArray;
  const keysOf = Object.keys;
  let tape = null;
  // Remembered names: first the common ones (numbered the same on the native
  // side), then the ones sent once. Each is V8's own internalized copy.
  const known = common.map((name) => Object.keys({ [name]: 0 })[0]);
  let lastText = null;
  function decode(text, bigger, base) {
    if (text !== undefined) lastText = text;
    else if (lastText === null) throw new Error('radium: the data codec is out of step');
    else text = lastText;
    if (bigger !== undefined) tape = bigger;
    if (known.length > base) known.length = base;
    else if (known.length < base) throw new Error('radium: the data codec is out of step');
    let t = 0;
    let p = 0;
    function str() {
      const n = tape[t++];
      const s = text.slice(p, p + n);
      p += n;
      return s;
    }
    function key() {
      const k = tape[t++];
      if (k >= 0) {
        const s = text.slice(p, p + k);
        p += k;
        return s;
      }
      const i = -k - 1;
      if (i < known.length) return known[i];
      // A new name to remember: keep V8's own (internalized) copy of it.
      const name = keysOf({ [str()]: 0 })[0];
      known.push(name);
      return name;
    }
    function value() {
      switch (tape[t++]) {
        case 0: return null;
        case 1: return false;
        case 2: return true;
        case 3: return tape[t++];
        case 4: return str();
        case 5: {
          const n = tape[t++];
          const a = [];
          for (let i = 0; i < n; i++) a.push(value());
          return a;
        }
        default: {
          const n = tape[t++];
          const o = {};
          for (let i = 0; i < n; i++) {
            const k = key();
            const v = value();
            if (k === '__proto__') {
              defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
            } else {
              o[k] = v;
            }
          }
          return o;
        }
      }
    }
    return value();
  }
  let buf = new Float64Array(1024);
  let n = 1;
  function grow() {
    const more = new Float64Array(buf.length * 2);
    more.set(buf);
    buf = more;
  }
  function push1(a) {
    if (n + 1 > buf.length) grow();
    buf[n++] = a;
  }
  function push2(a, b) {
    if (n + 2 > buf.length) grow();
    buf[n++] = a;
    buf[n++] = b;
  }
  function encode(root) {
    const parts = [];
    n = 1;
    function skipped(x) {
      const k = typeof x;
      return k === 'undefined' || k === 'function' || k === 'symbol';
    }
    function visit(v, depth) {
      switch (typeof v) {
        case 'string': push2(4, v.length); parts.push(v); return true;
        case 'number': if (v - v === 0) push2(3, v); else push1(0); return true;
        case 'boolean': push1(v ? 2 : 1); return true;
        case 'object': {
          if (v === null) { push1(0); return true; }
          if (depth >= 128 || v.toJSON !== undefined) return false;
          if (isArray(v)) {
            const len = v.length;
            push2(5, len);
            for (let i = 0; i < len; i++) {
              const x = v[i];
              if (skipped(x)) push1(0);
              else if (!visit(x, depth + 1)) return false;
            }
            return true;
          }
          const proto = getPrototypeOf(v);
          if (proto !== objectPrototype && proto !== null) return false;
          const keys = keysOf(v);
          push2(6, 0);
          const at = n - 1;
          let count = 0;
          for (let i = 0; i < keys.length; i++) {
            const k = keys[i];
            const x = v[k];
            if (skipped(x)) continue;
            push1(k.length);
            parts.push(k);
            if (!visit(x, depth + 1)) return false;
            count++;
          }
          buf[at] = count;
          return true;
        }
        default: return false;
      }
    }
    try {
      if (!visit(root, 0)) return undefined;
    } catch (e) {
      return undefined;
    }
    buf[0] = n - 1;
    return [parts.join(''), buf];
  }
  // The last hook context decoded, kept unshared: each hook gets a copy.
  let pristine = null;
  function copy(v) {
    if (typeof v !== 'object' || v === null) return v;
    if (isArray(v)) {
      const n = v.length;
      const a = [];
      for (let i = 0; i < n; i++) a.push(copy(v[i]));
      return a;
    }
    const o = { ...v };
    const keys = keysOf(o);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const x = o[k];
      if (typeof x !== 'object' || x === null) continue;
      if (k === '__proto__') {
        defineProperty(o, k, { value: copy(x), writable: true, enumerable: true, configurable: true });
      } else {
        o[k] = copy(x);
      }
    }
    return o;
  }
  // Copiers compiled for the shapes of hook contexts, by the number the
  // native side gives a shape (0: none). A copier builds the copy with
  // object literals, about 20 times faster than `copy`; where code
  // generation is disallowed, `copy` does the work.
  const stringify = JSON.stringify;
  const copiers = new Map();
  let codegen = true;
  let copier = copy;
  function source(v, path, budget) {
    if (typeof v !== 'object' || v === null) return path;
    if (--budget.n < 0) return null;
    const parts = [];
    if (isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const s = source(v[i], path + '[' + i + ']', budget);
        if (s === null) return null;
        parts.push(s);
      }
      return '[' + parts.join(',') + ']';
    }
    const keys = keysOf(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k === '__proto__') return null;
      const q = stringify(k);
      const s = source(v[k], path + '[' + q + ']', budget);
      if (s === null) return null;
      parts.push(q + ':' + s);
    }
    return '{' + parts.join(',') + '}';
  }
  function copierFor(shape, v) {
    if (shape === 0) return copy;
    let f = copiers.get(shape);
    if (f !== undefined) return f;
    f = copy;
    if (codegen) {
      const body = source(v, 'p', { n: 64 });
      if (body !== null) {
        try {
          f = new Function('p', 'return ' + body + ';');
        } catch (e) {
          codegen = false;
          f = copy;
        }
      }
    }
    if (copiers.size >= 1024) copiers.clear();
    copiers.set(shape, f);
    return f;
  }
  // Calls a hook with a new copy of its context: decoded from the tape (of
  // that shape), or (`again`) the same context as the last hook's.
  function invoke(hook, text, bigger, base, again, shape) {
    if (!again) {
      pristine = decode(text, bigger, base);
      copier = copierFor(shape, pristine);
    }
    return hook(copier(pristine));
  }
  return [decode, encode, invoke, stringify];
})";

/// Data on its way to JavaScript, for the codec of one environment.
pub(crate) struct Tape {
    codec: CodecRefs,
    text: String,
    ops: Vec<f64>,
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
            text: String::new(),
            ops: Vec::new(),
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
    fn send(self, js: Js, hook: Option<(Raw, u64, u32)>) -> JsResult<Raw> {
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
            if !same {
                c.last_text = self.text;
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

/// Calls the JS hook `function` with `context` as its `ctx` (a new object
/// each call). The context is put on a tape once per revision: the next
/// hook of the chain reuses the tape and the text the codec still holds.
pub(crate) fn call_hook(js: Js, function: Raw, context: &HookContext) -> JsResult<Raw> {
    let revision = context.revision();
    if CODEC_REFS.with_borrow(|c| c.env == js.env() && c.context == Some(revision)) {
        let invoke = js.reference_value(codec(js)?.invoke)?;
        let undefined = js.undefined()?;
        let value = js.call(
            invoke,
            undefined,
            &[function, undefined, undefined, undefined, js.boolean(true)?],
        );
        if value.is_err() {
            // The hook threw (or the copy failed): decode afresh next time.
            CODEC_REFS.with_borrow_mut(|c| c.context = None);
        }
        return value;
    }
    let mut tape = Tape::new(js)?;
    tape.object(3);
    tape.key("hook_type");
    tape.string(context.hook_type.as_str());
    tape.key("data");
    tape.value(&context.data)?;
    tape.key("metadata");
    tape.value(&context.metadata)?;
    let shape = CODEC_REFS.with_borrow_mut(|c| {
        let committed = COMMON.len() + c.keys.len();
        let Some(structure) = shape_of(&tape.ops, committed) else {
            return 0;
        };
        if let Some(&id) = c.shapes.get(&structure) {
            return id;
        }
        if c.shapes.len() >= MAX_SHAPES {
            c.shapes.clear();
        }
        c.next_shape += 1;
        c.shapes.insert(structure, c.next_shape);
        c.next_shape
    });
    tape.send(js, Some((function, revision, shape)))
}

/// Shapes remembered per environment (then they start over).
const MAX_SHAPES: usize = 1024;

/// The shape of the value on a tape: the tape without its strings' and
/// numbers' contents (the object keys stay, by number). `None` when a key
/// travels as text. `known`: how many names the codec knew before the tape.
fn shape_of(ops: &[f64], known: usize) -> Option<Vec<u64>> {
    fn value(ops: &[f64], at: &mut usize, known: &mut usize, out: &mut Vec<u64>) -> Option<()> {
        let op = *ops.get(*at)?;
        *at += 1;
        out.push(op.to_bits());
        if op == NUMBER || op == STRING {
            *at += 1;
        } else if op == ARRAY || op == OBJECT {
            let n = *ops.get(*at)?;
            *at += 1;
            out.push(n.to_bits());
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            for _ in 0..(n as usize) {
                if op == OBJECT {
                    let k = *ops.get(*at)?;
                    *at += 1;
                    if k >= 0.0 {
                        return None;
                    }
                    out.push(k.to_bits());
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let index = (-k - 1.0) as usize;
                    if index >= *known {
                        // A name sent for the first time: its text length follows.
                        *at += 1;
                        *known += 1;
                    }
                }
                value(ops, at, known, out)?;
            }
        }
        Some(())
    }
    let mut out = Vec::with_capacity(ops.len());
    let mut at = 0;
    let mut known = known;
    value(ops, &mut at, &mut known, &mut out)?;
    (at == ops.len()).then_some(out)
}

/// A tape's text, as UTF-8, with the tape's lengths in UTF-16 units.
struct Text {
    text: String,
    ascii: bool,
}

impl Text {
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
    text: &'a Text,
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
    let text = js.get_long_string(js.get_element(encoded, 0).ok()?).ok()?;
    let ops = js.float64_prefix(js.get_element(encoded, 1).ok()?)?;
    // N-API writes a lone surrogate as U+FFFD; the general path gives such
    // a string its proper error (and a real U+FFFD its proper value).
    let ascii = text.is_ascii();
    if !ascii && text.contains('\u{FFFD}') {
        return None;
    }
    let text = Text { text, ascii };
    let mut reader = Reader {
        ops: &ops,
        op: 0,
        text: &text,
        at: 0,
    };
    let value = reader.value()?;
    (reader.op == ops.len()).then_some(value)
}

/// The codec of one environment, and the tape it decodes from.
struct Codec {
    env: sys::napi_env,
    decode: sys::napi_ref,
    encode: sys::napi_ref,
    invoke: sys::napi_ref,
    /// The realm's `JSON.stringify`, as the codec found it.
    stringify: sys::napi_ref,
    /// The codec's current decoding tape (none until the first decode).
    tape: Option<sys::napi_ref>,
    data: *mut f64,
    capacity: usize,
    /// The names the codec remembers, with their numbers.
    keys: rustc_hash::FxHashMap<Box<str>, usize>,
    /// The revision of the hook context the codec decoded last (it keeps a
    /// pristine copy of it).
    context: Option<u64>,
    /// The shapes of hook contexts met, numbered for the codec's copiers
    /// (numbers are never reused).
    shapes: rustc_hash::FxHashMap<Vec<u64>, u32>,
    next_shape: u32,
    /// The text of the last tape the codec decoded (it keeps it too).
    last_text: String,
}

impl Codec {
    /// Forgets what the codec was told (names, text, context, shapes) and
    /// hands it a new tape next time: used when the environment goes, when
    /// the codec is made, and when a call into it failed midway.
    fn start_over(&mut self) {
        self.capacity = 0;
        self.keys.clear();
        self.last_text.clear();
        self.context = None;
        self.shapes.clear();
    }
}

/// What `codec` answers: the references to use now.
#[derive(Clone, Copy)]
struct CodecRefs {
    decode: sys::napi_ref,
    encode: sys::napi_ref,
    invoke: sys::napi_ref,
    /// The realm's `JSON.stringify`, as the codec found it.
    stringify: sys::napi_ref,
    capacity: usize,
}

thread_local! {
    /// The codec of this thread's environment.
    static CODEC_REFS: std::cell::RefCell<Codec> = const {
        std::cell::RefCell::new(Codec {
            env: ptr::null_mut(),
            decode: ptr::null_mut(),
            encode: ptr::null_mut(),
            invoke: ptr::null_mut(),
            stringify: ptr::null_mut(),
            tape: None,
            data: ptr::null_mut(),
            capacity: 0,
            keys: std::collections::HashMap::with_hasher(rustc_hash::FxBuildHasher),
            context: None,
            shapes: std::collections::HashMap::with_hasher(rustc_hash::FxBuildHasher),
            next_shape: 0,
            last_text: String::new(),
        })
    };
}

/// The environment is going away: its references go with it.
unsafe extern "C" fn forget_codec(_arg: *mut std::ffi::c_void) {
    let _ = std::panic::catch_unwind(|| {
        CODEC_REFS.with_borrow_mut(|c| {
            c.env = ptr::null_mut();
            c.tape = None;
            c.data = ptr::null_mut();
            c.start_over();
        });
    });
}

/// The realm's `JSON.stringify` (the one the codec found when it was made).
pub(crate) fn json_stringify(js: Js) -> JsResult<Raw> {
    js.reference_value(codec(js)?.stringify)
}

/// The codec of the current environment, compiled on first use.
fn codec(js: Js) -> JsResult<CodecRefs> {
    let known = CODEC_REFS.with_borrow(|c| {
        (c.env == js.env()).then_some(CodecRefs {
            decode: c.decode,
            encode: c.encode,
            invoke: c.invoke,
            stringify: c.stringify,
            capacity: c.capacity,
        })
    });
    if let Some(refs) = known {
        return Ok(refs);
    }
    let names: Vec<String> = COMMON.iter().map(|name| format!("'{name}'")).collect();
    let pair = js.run_script(&format!("{CODEC}([{}])", names.join(",")))?;
    let decode = js.get_element(pair, 0)?;
    let encode = js.get_element(pair, 1)?;
    let invoke = js.get_element(pair, 2)?;
    let stringify = js.get_element(pair, 3)?;
    if [decode, encode, invoke, stringify]
        .iter()
        .any(|&f| js.kind(f) != Kind::Function)
    {
        return Err("the data codec did not compile".to_owned());
    }
    let refs = CodecRefs {
        decode: js.reference(decode)?,
        encode: js.reference(encode)?,
        invoke: js.reference(invoke)?,
        stringify: js.reference(stringify)?,
        capacity: 0,
    };
    // SAFETY: live environment; `forget_codec` takes no data.
    let status =
        unsafe { sys::napi_add_env_cleanup_hook(js.env(), Some(forget_codec), ptr::null_mut()) };
    if status != sys::Status::napi_ok {
        return Err("cannot watch the environment's teardown".to_owned());
    }
    {
        CODEC_REFS.with_borrow_mut(|c| {
            c.env = js.env();
            c.decode = refs.decode;
            c.encode = refs.encode;
            c.invoke = refs.invoke;
            c.stringify = refs.stringify;
            c.tape = None;
            c.data = ptr::null_mut();
            c.start_over();
        });
    }
    Ok(refs)
}
