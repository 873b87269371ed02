//! The native half of the Neovim door: `require("radium_native")`.
//!
//! Tables cross as the engine's JSON values, converted directly on the Lua
//! stack (`convert`) with `vim.json`'s rules, with no JSON text in between.
//! Lua hooks run only on the thread that loaded the module (Neovim's main
//! thread); non-blocking chains are polled there too, woken through a socket
//! that the Lua side watches with `vim.uv`.
//!
//! The modules: `engine` (the engine userdata and its methods), `hook`
//! (hooks written in Lua), `context` (a hook's context as a table, its
//! strings made once per revision), `poll` (non-blocking work and its wake-ups),
//! `values` (Lua values and errors at the mlua level) and `convert` (the
//! conversion on the Lua stack).

use mlua::{ffi, Lua, Result as LuaResult, Table};
use radium_core::{Engine, EngineConfig};

mod context;
mod convert;
mod engine;
mod hook;
mod poll;
mod values;

use std::rc::Rc;

use crate::context::Pool;
use crate::convert::Marks;
use crate::engine::LuaEngine;
use crate::poll::{async_state, poll};
use crate::values::{lua_err, parse_json};

/// The module table of `require("radium_native")`.
///
/// # Errors
/// Never in practice; mlua reports table creation failures.
#[cfg_attr(feature = "module", mlua::lua_module)]
pub fn radium_native(lua: &Lua) -> LuaResult<Table> {
    let exports = lua.create_table()?;
    exports.set("version", radium_core::VERSION)?;
    exports.set("abi_version", radium_core::ABI_VERSION)?;
    exports.set(
        "new",
        lua.create_function(|_, config: Option<String>| {
            let config = match config {
                Some(text) => EngineConfig::from_json(&parse_json(&text, "the engine options")?)
                    .map_err(lua_err)?,
                None => EngineConfig::default(),
            };
            Ok(LuaEngine {
                engine: Engine::new(config).map_err(lua_err)?,
            })
        })?,
    )?;
    exports.set(
        "wake_fd",
        lua.create_function(|lua, ()| {
            let state = async_state(lua)?;
            let fd = state.reader_fd.borrow_mut().take();
            fd.ok_or_else(|| lua_err("the wake-up descriptor was already taken"))
        })?,
    )?;
    exports.set("poll", lua.create_function(poll)?)?;
    exports.set(
        "setup",
        lua.create_function(|lua, (nil, dict): (mlua::Value, Table)| {
            // SAFETY: a protected call that only stores the two arguments
            // and a new table (the hook contexts' string pool) in the
            // registry.
            let refs = unsafe {
                let mut refs = None;
                lua.exec_raw::<()>((nil, dict), |state| {
                    let dict = ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
                    let nil = ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
                    ffi::lua_createtable(state, 0, 0);
                    let pool = ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
                    refs = Some((Marks { nil, dict }, pool));
                })?;
                refs
            };
            if let Some((marks, pool)) = refs {
                lua.set_app_data(marks);
                lua.set_app_data(Rc::new(Pool::new(pool)));
            }
            Ok(())
        })?,
    )?;
    exports.set(
        "pending",
        lua.create_function(|lua, ()| Ok(async_state(lua)?.pending.borrow().len()))?,
    )?;
    Ok(exports)
}
