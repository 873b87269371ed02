//! Polling the chains on a later turn of the event loop, through the
//! realm's `setImmediate`. `sessionEvents` starts its chain this way: a
//! host that asks for the next batch as soon as one settles (the usual
//! `for (;;) { await engine.sessionEvents(id) }` loop) would otherwise get
//! every batch of a backlog in one macrotask (each Promise already settled
//! when it is made, its continuation a microtask), and a 17 MB backlog cut
//! in 1 MiB batches still held the event loop for half a second
//! (2026-11-27). Through `setImmediate`, timers and I/O run between two
//! batches.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::sys;

use crate::host::Host;
use crate::js::{Js, JsResult, Kind};

/// Asks the realm's `setImmediate` to poll the host's chains on the next
/// turn of the event loop. An error when there is no such function or it
/// threw (the caller then polls another way).
pub(crate) fn schedule(js: Js) -> JsResult<()> {
    let global = js.global()?;
    let set_immediate = js.get_named(global, c"setImmediate")?;
    if js.kind(set_immediate) != Kind::Function {
        return Err("this realm has no setImmediate".to_owned());
    }
    let name = c"radiumPoll";
    let len = isize::try_from(name.count_bytes()).map_err(|_| "name too long".to_owned())?;
    let mut callback = ptr::null_mut();
    // SAFETY: live environment; `name` is NUL-terminated; `on_immediate`
    // takes no data.
    js.check(
        unsafe {
            sys::napi_create_function(
                js.env(),
                name.as_ptr(),
                len,
                Some(on_immediate),
                ptr::null_mut(),
                &raw mut callback,
            )
        },
        "napi_create_function",
    )?;
    js.call(set_immediate, global, &[callback]).map(drop)
}

/// The `setImmediate` callback: polls the host's chains.
unsafe extern "C" fn on_immediate(
    env: sys::napi_env,
    _info: sys::napi_callback_info,
) -> sys::napi_value {
    // An environment being torn down polls nothing (and makes no new host).
    if !crate::host::is_live(env) {
        return ptr::null_mut();
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: N-API calls this on the JS thread with its live environment.
        let js = unsafe { Js::new(env) };
        if let Ok(host) = Host::get(js) {
            host.poll_scheduled(js);
        }
    }));
    ptr::null_mut()
}
