//! Agent sessions for C hosts: the events of a session's turns pushed to a
//! callback (`radium_session_subscribe`). Sessions are opened, prompted,
//! answered and closed with `radium_request` (`session-new`,
//! `session-prompt`, `session-permission`, `session-cancel`,
//! `session-close`); a host that prefers to poll uses `session-events`.

use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::engine::{engine_arg, RadiumEngine};
use crate::errors::{guard, Failure, RadiumError, RadiumStatus};
use crate::hooks::RadiumDestroyFn;
use crate::strings::str_arg;

/// Receives one event of a session (see docs/sessions.md for the events):
/// `event_json` is a JSON object with `type`, NUL-terminated, `event_len`
/// bytes without the NUL, valid only during the call.
///
/// It runs on a thread radium starts for the subscription (never the
/// thread that subscribed), one call at a time, in the order the agent sent
/// them; text chunks that wait because the callback is slower than the
/// agent arrive joined into one event (up to 1 MiB). It may call any radium function, `radium_request` included (answer
/// a `permission` event with `session-permission` there or later from any
/// thread), except `radium_engine_free` of its own engine.
pub type RadiumSessionEventFn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, event_json: *const c_char, event_len: usize),
>;

struct UserData(*mut c_void);
// SAFETY: the contract makes the host responsible for its callback and user
// data being usable from the subscription's thread.
unsafe impl Send for UserData {}

/// Calls `callback` with every event of session `session_id` (the `session`
/// a `session-new` request answered), from now until the session ends: it
/// is closed (`session-close`), its agent is gone, its engine is freed, or
/// another subscription to it takes its place. Then `destroy` (when not
/// NULL) is called once with `user_data`, from the same thread, after the
/// last event. Events that arrived before this call and were not polled come
/// first. While subscribed, `session-events` finds nothing to poll; a
/// `session-prompt` with `wait: true` still answers with its own events.
///
/// Fails with `RADIUM_STATUS_INVALID_ARGUMENT` for a NULL callback or an
/// unknown session (the message lists the open ones), and with
/// `RADIUM_STATUS_INTERNAL` when the thread cannot start; the caller then
/// keeps `user_data` and `destroy` is not called.
#[no_mangle]
pub unsafe extern "C" fn radium_session_subscribe(
    engine: *const RadiumEngine,
    session_id: *const c_char,
    callback: RadiumSessionEventFn,
    user_data: *mut c_void,
    destroy: RadiumDestroyFn,
    error: *mut *mut RadiumError,
) -> RadiumStatus {
    guard(error, || {
        // SAFETY: forwarded contract.
        let engine = engine_arg(engine)?;
        let id = unsafe { str_arg(session_id, "session_id") }?;
        let Some(callback) = callback else {
            return Err(Failure::new(
                RadiumStatus::InvalidArgument,
                "argument `callback` is NULL",
            ));
        };
        let entry = engine.session(id)?;
        let mut rx = entry.queue.subscribe_joined();
        let data = UserData(user_data);
        std::thread::Builder::new()
            .name(format!("radium-{id}-events"))
            .spawn(move || {
                let data = data;
                while let Some(event) = rx.blocking_recv() {
                    let text = CString::new(event.to_string()).unwrap_or_default();
                    let len = text.as_bytes().len();
                    // SAFETY: the host gave this callback for this user data;
                    // the text lives until the call returns. A panic cannot
                    // come out of a C function; the catch keeps the thread's
                    // own code from unwinding into the host.
                    let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
                        callback(data.0, text.as_ptr(), len);
                    }));
                }
                if let Some(destroy) = destroy {
                    // SAFETY: the host gave this destructor for this user data.
                    unsafe { destroy(data.0) };
                }
            })
            .map_err(|e| {
                Failure::new(
                    RadiumStatus::Internal,
                    format!("cannot start the session's event thread: {e}"),
                )
            })?;
        Ok(())
    })
}
