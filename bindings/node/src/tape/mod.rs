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
//!
//! The parts: `encode` (`Tape`, data on its way to JavaScript), `decode`
//! (reading the tape `encode` makes on the JavaScript side), `context`
//! (hook contexts on tapes, and their shapes), `names` (the names the codec
//! knows from the start, and how many it remembers), `script` (the
//! JavaScript half of the codec), `codec` (the codec of each
//! environment, and what it was told) and `scratch` (buffers kept from one
//! tape to the next).

mod codec;
mod context;
mod decode;
mod encode;
mod names;
mod scratch;
mod script;

pub(crate) use self::codec::json_stringify;
pub(crate) use self::context::call_hook;
pub(crate) use self::decode::from_js;
pub(crate) use self::encode::Tape;

// The operations on a tape (the numbers `script` reads and writes).
const NULL: f64 = 0.0;
const FALSE: f64 = 1.0;
const TRUE: f64 = 2.0;
const NUMBER: f64 = 3.0;
const STRING: f64 = 4.0;
const ARRAY: f64 = 5.0;
const OBJECT: f64 = 6.0;
