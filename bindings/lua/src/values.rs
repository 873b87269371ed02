//! Values crossing into and out of Lua at the mlua level: errors raised as
//! Lua errors, JSON text arguments, and Lua values as the engine's JSON
//! values (through `convert`, with the marks `setup` handed over).

use mlua::{ffi, Lua, Result as LuaResult};
use serde_json::Value;

use crate::convert::{self, Marks};

/// A Lua runtime error with `message`.
pub(crate) fn lua_err(message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(message.to_string())
}

/// A JSON text argument (`what` names it in the error).
pub(crate) fn parse_json(text: &str, what: &str) -> LuaResult<Value> {
    radium_core::parse_json(text).map_err(|e| lua_err(format!("{what} is not valid JSON: {e}")))
}

/// `vim.NIL` and `vim.empty_dict()`'s metatable, from `setup`.
pub(crate) fn marks(lua: &Lua) -> LuaResult<Marks> {
    lua.app_data_ref::<Marks>().map(|m| *m).ok_or_else(|| {
        lua_err("radium_native.setup(vim.NIL, getmetatable(vim.empty_dict())) was not called")
    })
}

/// A Lua value as JSON (`what` names it in the error).
pub(crate) fn from_lua(lua: &Lua, value: mlua::Value, what: &str) -> LuaResult<Value> {
    let marks = marks(lua)?;
    let mut out = None;
    // SAFETY: `read` only uses the stack of this protected call, where the
    // value is argument 1.
    unsafe {
        lua.exec_raw::<()>(value, |state| {
            out = Some(convert::read(state, 1, marks, 0));
            ffi::lua_settop(state, 0);
        })?;
    }
    match out {
        Some(Ok(value)) => Ok(value),
        Some(Err(e)) => Err(lua_err(format!("{what} cannot be converted to JSON: {e}"))),
        None => Err(lua_err(format!("{what} cannot be converted to JSON"))),
    }
}

/// A JSON value as a Lua value.
pub(crate) fn to_lua(lua: &Lua, value: &Value) -> LuaResult<mlua::Value> {
    let marks = marks(lua)?;
    let mut ok = true;
    // SAFETY: `push` only pushes onto the stack of this protected call; its
    // one value is the result.
    let result = unsafe {
        lua.exec_raw::<mlua::Value>((), |state| {
            ok = convert::push(state, value, marks);
        })?
    };
    if ok {
        Ok(result)
    } else {
        Err(lua_err("the data is nested too deeply for Lua"))
    }
}
