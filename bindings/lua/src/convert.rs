//! Lua values ⇄ the engine's JSON values, converted directly on the Lua
//! stack with `vim.json`'s rules (so a table behaves as if it went through
//! `vim.json.encode` and came back through `vim.json.decode`), without the
//! JSON text in between.
//!
//! Lua to JSON:
//! - `nil` and `vim.NIL` are `null`; booleans; numbers (whole numbers up to
//!   2^53 become integers; NaN and infinities are errors); strings must be
//!   UTF-8;
//! - a table whose keys are all whole numbers ≥ 1 is an array (holes are
//!   `null`; an "excessively sparse" one, more than 10 slots and over half
//!   holes, is an error, as in `vim.json`); an empty table is `[]` unless it
//!   is `vim.empty_dict()`; any other table is an object whose keys are
//!   strings or numbers (numbers become their decimal text);
//! - functions, userdata, threads and nesting deeper than 1000 are errors.
//!
//! JSON to Lua: `null` is `vim.NIL`, arrays are sequences, objects are
//! tables (an empty one gets `vim.empty_dict()`'s metatable), numbers are Lua
//! numbers.
//!
//! The functions here run inside a protected call (`Lua::exec_raw`): the
//! only Lua error they can meet is running out of memory.

// Every function here is a short run of Lua C API calls on the stack of a
// protected call; their shared contract is stated on `read` and `push`.
#![allow(unsafe_op_in_unsafe_fn)]

use std::ffi::{c_char, c_int};

use mlua::ffi;
use serde_json::{Map, Number, Value};

/// Registry references to `vim.NIL` and to `vim.empty_dict()`'s metatable,
/// handed over once by `radium.lua` (`radium_native.setup`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Marks {
    /// `vim.NIL`.
    pub(crate) nil: c_int,
    /// The metatable of `vim.empty_dict()`.
    pub(crate) dict: c_int,
}

/// Deeper Lua data is refused (cycles end here too), as `vim.json` does.
const MAX_DEPTH: usize = 1000;

/// `vim.json`'s sparse-array rule: an array with holes is an error when its
/// largest index is over `SPARSE_SAFE` and over `SPARSE_RATIO` times the
/// number of elements.
const SPARSE_SAFE: usize = 10;
const SPARSE_RATIO: usize = 2;

/// Whole numbers up to this are JSON integers.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

fn type_name(kind: c_int) -> &'static str {
    match kind {
        ffi::LUA_TFUNCTION => "function",
        ffi::LUA_TTHREAD => "thread",
        ffi::LUA_TCDATA => "cdata",
        _ => "userdata",
    }
}

/// Pushes registry reference `reference`.
unsafe fn push_ref(state: *mut ffi::lua_State, reference: c_int) {
    ffi::lua_rawgeti_(state, ffi::LUA_REGISTRYINDEX, reference);
}

/// `lua_pushlstring` as LuaJIT has it: without the compatibility layer's
/// `lua_tolstring` after it (its answer is never used here).
unsafe fn push_bytes(state: *mut ffi::lua_State, s: &str) {
    // A Rust empty string's pointer may dangle: hand Lua a real one.
    let ptr = if s.is_empty() {
        c"".as_ptr()
    } else {
        s.as_ptr().cast::<c_char>()
    };
    ffi::lua_pushlstring_(state, ptr, s.len());
}

/// Whether the value at `index` is `vim.NIL`.
unsafe fn is_nil_mark(state: *mut ffi::lua_State, index: c_int, marks: Marks) -> bool {
    push_ref(state, marks.nil);
    let same = ffi::lua_rawequal(state, index, -1) != 0;
    ffi::lua_pop(state, 1);
    same
}

/// The string at `index` (which is a string) as `&str`.
unsafe fn str_at<'a>(state: *mut ffi::lua_State, index: c_int) -> Result<&'a str, String> {
    let mut len = 0usize;
    let ptr = ffi::lua_tolstring(state, index, &raw mut len);
    // SAFETY: Lua keeps the string alive while it is on the stack; callers
    // copy it before popping it.
    let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), len);
    std::str::from_utf8(bytes).map_err(|_| "a string is not valid UTF-8".to_owned())
}

fn number(n: f64) -> Result<Value, String> {
    if !n.is_finite() {
        return Err("Cannot serialise number: must not be NaN or Infinity".to_owned());
    }
    if n.fract() == 0.0 && n.abs() <= MAX_EXACT {
        // Exact: |n| <= 2^53 fits an i64.
        #[allow(clippy::cast_possible_truncation)]
        return Ok(Value::from(n as i64));
    }
    Number::from_f64(n)
        .map(Value::Number)
        .ok_or_else(|| "Cannot serialise number: must not be NaN or Infinity".to_owned())
}

/// The key of the pair at -2 as an object key.
unsafe fn key_text(state: *mut ffi::lua_State) -> Result<String, String> {
    match ffi::lua_type(state, -2) {
        ffi::LUA_TSTRING => str_at(state, -2).map(str::to_owned),
        ffi::LUA_TNUMBER => number(ffi::lua_tonumber(state, -2)).map(|n| n.to_string()),
        _ => Err("table key must be a number or string".to_owned()),
    }
}

/// Reads the Lua value at `index` (an absolute index) as JSON.
///
/// # Safety
/// `state` is a live Lua state inside a protected call; `index` is valid.
pub(crate) unsafe fn read(
    state: *mut ffi::lua_State,
    index: c_int,
    marks: Marks,
    depth: usize,
) -> Result<Value, String> {
    match ffi::lua_type(state, index) {
        ffi::LUA_TNIL | ffi::LUA_TNONE => Ok(Value::Null),
        ffi::LUA_TBOOLEAN => Ok(Value::Bool(ffi::lua_toboolean(state, index) != 0)),
        ffi::LUA_TNUMBER => number(ffi::lua_tonumber(state, index)),
        ffi::LUA_TSTRING => str_at(state, index).map(|s| Value::String(s.to_owned())),
        ffi::LUA_TTABLE => read_table(state, index, marks, depth),
        kind @ (ffi::LUA_TLIGHTUSERDATA | ffi::LUA_TUSERDATA) => {
            if is_nil_mark(state, index, marks) {
                Ok(Value::Null)
            } else {
                Err(format!(
                    "Cannot serialise {}: type not supported",
                    type_name(kind)
                ))
            }
        }
        kind => Err(format!(
            "Cannot serialise {}: type not supported",
            type_name(kind)
        )),
    }
}

/// How a table is encoded: an array of this length, or an object.
unsafe fn array_length(state: *mut ffi::lua_State, index: c_int) -> Result<Option<usize>, String> {
    let mut max = 0usize;
    let mut count = 0usize;
    ffi::lua_pushnil(state);
    while ffi::lua_next(state, index) != 0 {
        ffi::lua_pop(state, 1);
        if ffi::lua_type(state, -1) == ffi::LUA_TNUMBER {
            let k = ffi::lua_tonumber(state, -1);
            if k >= 1.0 && k.fract() == 0.0 && k <= MAX_EXACT {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let k = k as usize;
                max = max.max(k);
                count += 1;
                continue;
            }
        }
        // Not an array: leave the key off the stack.
        ffi::lua_pop(state, 1);
        return Ok(None);
    }
    if max > SPARSE_SAFE && max > count * SPARSE_RATIO {
        return Err("Cannot serialise table: excessively sparse array".to_owned());
    }
    Ok(Some(max))
}

unsafe fn is_empty_dict(state: *mut ffi::lua_State, index: c_int, marks: Marks) -> bool {
    if ffi::lua_getmetatable(state, index) == 0 {
        return false;
    }
    push_ref(state, marks.dict);
    let same = ffi::lua_rawequal(state, -1, -2) != 0;
    ffi::lua_pop(state, 2);
    same
}

unsafe fn read_table(
    state: *mut ffi::lua_State,
    index: c_int,
    marks: Marks,
    depth: usize,
) -> Result<Value, String> {
    if depth >= MAX_DEPTH {
        return Err(format!(
            "Cannot serialise, excessive nesting ({})",
            MAX_DEPTH + 1
        ));
    }
    if ffi::lua_checkstack(state, 4) == 0 {
        return Err("Cannot serialise: the Lua stack is full".to_owned());
    }
    match array_length(state, index)? {
        Some(0) if is_empty_dict(state, index, marks) => Ok(Value::Object(Map::new())),
        Some(len) => {
            let mut items = Vec::with_capacity(len);
            for i in 1..=len {
                ffi::lua_rawgeti_(state, index, c_int::try_from(i).unwrap_or(c_int::MAX));
                let item = read(state, ffi::lua_gettop(state), marks, depth + 1);
                ffi::lua_pop(state, 1);
                items.push(item?);
            }
            Ok(Value::Array(items))
        }
        None => {
            let mut map = Map::new();
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, index) != 0 {
                let value = key_text(state).and_then(|k| {
                    read(state, ffi::lua_gettop(state), marks, depth + 1).map(|v| (k, v))
                });
                ffi::lua_pop(state, 1);
                match value {
                    Ok((k, v)) => {
                        map.insert(k, v);
                    }
                    Err(e) => {
                        ffi::lua_pop(state, 1);
                        return Err(e);
                    }
                }
            }
            Ok(Value::Object(map))
        }
    }
}

/// Where `push_with` takes the strings it pushes.
pub(crate) enum Strings {
    /// Made (interned) by Lua from the bytes, as `push` does.
    Made,
    /// Made, and each one also stored, in push order, at 1, 2, ... in the
    /// table at stack index `pool` (an absolute index).
    Record {
        /// The pool table's stack index.
        pool: c_int,
        /// How many strings are stored so far.
        count: c_int,
    },
    /// Taken in push order from the table at `pool`, which a `Record` push of
    /// the same value filled with `recorded` strings: the same string
    /// objects, with no hashing or interning. The value must be the one
    /// recorded (the caller knows it by its revision); should it need more
    /// strings than were recorded, the rest are made and `stale` is set (the
    /// caller then checks `count` against `recorded` too).
    Replay {
        /// The pool table's stack index.
        pool: c_int,
        /// How many strings were taken so far.
        count: c_int,
        /// How many strings the pool holds.
        recorded: c_int,
        /// Set when the value needed more strings than the pool holds.
        stale: bool,
    },
}

/// Pushes `s` as a Lua string, made, recorded or replayed as `strings` says.
///
/// # Safety
/// `state` is a live Lua state inside a protected call; a pool that
/// `strings` names is a table at that stack index.
pub(crate) unsafe fn push_str(state: *mut ffi::lua_State, s: &str, strings: &mut Strings) {
    match strings {
        Strings::Made => push_bytes(state, s),
        Strings::Record { pool, count } => {
            push_bytes(state, s);
            *count += 1;
            ffi::lua_pushvalue(state, -1);
            ffi::lua_rawseti_(state, *pool, *count);
        }
        Strings::Replay {
            pool,
            count,
            recorded,
            stale,
        } => {
            if *count < *recorded {
                *count += 1;
                ffi::lua_rawgeti_(state, *pool, *count);
            } else {
                // More strings than were recorded: not the same value.
                push_bytes(state, s);
                *stale = true;
            }
        }
    }
}

fn table_size(n: usize) -> c_int {
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

/// Pushes `value` as a Lua value. Returns `false` (with something pushed)
/// when the data is nested too deeply for the Lua stack.
///
/// # Safety
/// `state` is a live Lua state inside a protected call.
pub(crate) unsafe fn push(state: *mut ffi::lua_State, value: &Value, marks: Marks) -> bool {
    push_at(state, value, marks, 0, &mut Strings::Made)
}

/// `push`, with its strings made, recorded or replayed as `strings` says
/// (`push_str`); the tables, their sizes, their order of insertion and their
/// metatables are the same whichever it is.
///
/// # Safety
/// As `push`; a pool that `strings` names is a table at that stack index.
pub(crate) unsafe fn push_with(
    state: *mut ffi::lua_State,
    value: &Value,
    marks: Marks,
    strings: &mut Strings,
) -> bool {
    push_at(state, value, marks, 0, strings)
}

unsafe fn push_at(
    state: *mut ffi::lua_State,
    value: &Value,
    marks: Marks,
    depth: usize,
    strings: &mut Strings,
) -> bool {
    match value {
        Value::Null => push_ref(state, marks.nil),
        Value::Bool(b) => ffi::lua_pushboolean(state, c_int::from(*b)),
        Value::Number(n) => ffi::lua_pushnumber(state, n.as_f64().unwrap_or(0.0)),
        Value::String(s) => push_str(state, s, strings),
        Value::Array(items) => {
            // Room for the table, a key, a value and a recorded copy.
            if depth >= MAX_DEPTH || ffi::lua_checkstack(state, 4) == 0 {
                ffi::lua_pushnil(state);
                return false;
            }
            ffi::lua_createtable(state, table_size(items.len()), 0);
            for (i, item) in items.iter().enumerate() {
                let ok = push_at(state, item, marks, depth + 1, strings);
                #[allow(clippy::cast_possible_wrap)]
                ffi::lua_rawseti(state, -2, (i + 1) as ffi::lua_Integer);
                if !ok {
                    return false;
                }
            }
        }
        Value::Object(map) => {
            if depth >= MAX_DEPTH || ffi::lua_checkstack(state, 4) == 0 {
                ffi::lua_pushnil(state);
                return false;
            }
            ffi::lua_createtable(state, 0, table_size(map.len()));
            if map.is_empty() {
                push_ref(state, marks.dict);
                ffi::lua_setmetatable(state, -2);
            }
            for (key, item) in map {
                push_str(state, key, strings);
                let ok = push_at(state, item, marks, depth + 1, strings);
                ffi::lua_rawset(state, -3);
                if !ok {
                    return false;
                }
            }
        }
    }
    true
}
