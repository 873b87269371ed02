//! A hook's context as a Lua table: `{ hook_type, data, metadata }`, a new
//! table for every hook (a hook that changes its table changes nothing the
//! next hook sees), but its strings made by Lua once per revision of the
//! context (`HookContext::revision`, which the chain renews whenever a hook
//! changes the data).
//!
//! The first push of a revision records every string it makes, in push
//! order, in a pool table kept in the registry; the next hooks of the chain
//! get new tables built the same way (same sizes, same order of insertion,
//! same metatables) from the same `Value`, with the strings taken from the
//! pool: no hashing, comparing or interning of the context's text (a 4 KiB
//! selection) for every hook. The pool holds the strings of one context at a
//! time (the one last pushed); hooks never see it.

// Short runs of Lua C API calls on the stack of a protected call, under the
// contract stated on `push`.
#![allow(unsafe_op_in_unsafe_fn)]

use std::cell::Cell;
use std::ffi::c_int;
use std::rc::Rc;

use mlua::{ffi, Lua};
use radium_core::HookContext;

use crate::convert::{self, Marks, Strings};

/// The pool's registry slot and what it holds.
pub(crate) struct Pool {
    /// The registry reference of the pool table.
    slot: c_int,
    /// The revision recorded in the pool; 0 for none (revisions start at 1).
    revision: Cell<u64>,
    /// How many strings the pool holds.
    recorded: Cell<c_int>,
}

impl Pool {
    /// A pool kept at registry reference `slot` (made by `setup`), empty.
    pub(crate) fn new(slot: c_int) -> Self {
        Pool {
            slot,
            revision: Cell::new(0),
            recorded: Cell::new(0),
        }
    }
}

/// This Lua state's pool, which `radium_native.setup` made. (Made there, not
/// on first use: a hook may run while the app data is borrowed, when no new
/// app data can be set.)
pub(crate) fn pool(lua: &Lua) -> mlua::Result<Rc<Pool>> {
    lua.app_data_ref::<Rc<Pool>>()
        .map(|pool| Rc::clone(&pool))
        .ok_or_else(|| {
            crate::values::lua_err(
                "radium_native.setup(vim.NIL, getmetatable(vim.empty_dict())) was not called",
            )
        })
}

/// Pushes `context` as a new table on top of the stack. Returns `false`
/// (with something pushed) when the data is nested too deeply for Lua.
///
/// # Safety
/// `state` is a live Lua state inside a protected call, with room for 3
/// more values; `pool` belongs to it.
pub(crate) unsafe fn push(
    state: *mut ffi::lua_State,
    context: &HookContext,
    marks: Marks,
    pool: &Pool,
) -> bool {
    let revision = context.revision();
    if revision != 0 && pool.revision.get() == revision {
        ffi::lua_rawgeti_(state, ffi::LUA_REGISTRYINDEX, pool.slot);
        let at = ffi::lua_gettop(state);
        let recorded = pool.recorded.get();
        let mut strings = Strings::Replay {
            pool: at,
            count: 0,
            recorded,
            stale: false,
        };
        let ok = push_table(state, context, marks, &mut strings);
        ffi::lua_remove(state, at);
        match strings {
            Strings::Replay {
                count,
                stale: false,
                ..
            } if ok && count == recorded => return true,
            // Not the value recorded (never expected): made afresh below.
            _ => ffi::lua_pop(state, 1),
        }
    }
    // A new pool (a fresh table drops the last context's strings).
    pool.revision.set(0);
    ffi::lua_createtable(state, 32, 0);
    ffi::lua_pushvalue(state, -1);
    ffi::lua_rawseti_(state, ffi::LUA_REGISTRYINDEX, pool.slot);
    let at = ffi::lua_gettop(state);
    let mut strings = Strings::Record { pool: at, count: 0 };
    let ok = push_table(state, context, marks, &mut strings);
    ffi::lua_remove(state, at);
    if let (true, Strings::Record { count, .. }) = (ok, strings) {
        pool.recorded.set(count);
        pool.revision.set(revision);
    }
    ok
}

/// The context table, its strings as `strings` says.
unsafe fn push_table(
    state: *mut ffi::lua_State,
    context: &HookContext,
    marks: Marks,
    strings: &mut Strings,
) -> bool {
    ffi::lua_createtable(state, 0, 3);
    for (key, value) in [("data", &context.data), ("metadata", &context.metadata)] {
        convert::push_str(state, key, strings);
        let ok = convert::push_with(state, value, marks, strings);
        ffi::lua_rawset(state, -3);
        if !ok {
            return false;
        }
    }
    convert::push_str(state, "hook_type", strings);
    convert::push_str(state, context.hook_type.as_str(), strings);
    ffi::lua_rawset(state, -3);
    true
}
