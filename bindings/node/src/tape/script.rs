//! The JavaScript half of the codec: its source, compiled once per
//! environment by `codec`.

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
pub(super) const CODEC: &str = r"(function (common) {
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
