//! Exceptions: turning an N-API status into a result, clearing a pending
//! exception, and describing a thrown value as a message (never throwing
//! while doing so).

use std::cell::Cell;
use std::ffi::CStr;
use std::ptr;

use napi::sys;

use super::{Js, JsResult, Kind, Raw};

impl Js {
    /// Turns an N-API status into a result; a pending exception is cleared
    /// and described.
    pub(crate) fn check(self, status: sys::napi_status, what: &str) -> JsResult<()> {
        if status == sys::Status::napi_ok {
            return Ok(());
        }
        match self.take_exception() {
            Some(thrown) => Err(self.describe(thrown)),
            None => Err(format!("{what} failed (N-API status {status})")),
        }
    }

    /// Clears and returns the pending exception, if there is one.
    pub(crate) fn take_exception(self) -> Option<Raw> {
        let mut pending = false;
        // SAFETY: `self.0` is the live environment of this call (see `Js::new`).
        let status = unsafe { sys::napi_is_exception_pending(self.0, &raw mut pending) };
        if status != sys::Status::napi_ok || !pending {
            return None;
        }
        let mut thrown = ptr::null_mut();
        // SAFETY: as above; an exception is pending.
        let status = unsafe { sys::napi_get_and_clear_last_exception(self.0, &raw mut thrown) };
        (status == sys::Status::napi_ok && !thrown.is_null()).then_some(thrown)
    }

    /// A readable message for a thrown value, never throwing itself:
    /// an `Error`'s message (prefixed with its name unless it is a plain
    /// `Error`), a string as is, anything else as JSON or `String(value)`.
    pub(crate) fn describe(self, thrown: Raw) -> String {
        // Describing runs JS (getters, `toJSON`) that may throw again, and a
        // hostile value can do so forever: two levels are enough.
        let depth = DESCRIBING.get();
        if depth >= 2 {
            return "an exception (thrown again while radium was describing an exception)"
                .to_owned();
        }
        DESCRIBING.set(depth + 1);
        let _restore = Restore(depth);
        self.describe_value(thrown)
    }

    fn describe_value(self, thrown: Raw) -> String {
        match self.kind(thrown) {
            Kind::String => self.get_string(thrown).unwrap_or_default(),
            Kind::Object if self.is_error(thrown) => {
                let text = |name: &CStr| {
                    self.get_named(thrown, name)
                        .ok()
                        .filter(|&v| self.kind(v) == Kind::String)
                        .and_then(|v| self.get_string(v).ok())
                };
                let message = text(c"message").unwrap_or_default();
                let name = text(c"name").filter(|n| !n.is_empty());
                match (name, message.is_empty()) {
                    (Some(name), true) => name,
                    (None, true) => "Error".to_owned(),
                    (Some(name), false) if name != "Error" => format!("{name}: {message}"),
                    _ => message,
                }
            }
            Kind::Object => crate::convert::stringify(self, thrown)
                .ok()
                .flatten()
                .unwrap_or_else(|| self.coerce_string(thrown)),
            _ => self.coerce_string(thrown),
        }
    }

    /// `String(value)`, or a placeholder when that throws.
    fn coerce_string(self, value: Raw) -> String {
        let mut s = ptr::null_mut();
        // SAFETY: live environment.
        let status = unsafe { sys::napi_coerce_to_string(self.0, value, &raw mut s) };
        if status != sys::Status::napi_ok {
            let _ = self.take_exception();
            return format!("{} that cannot be shown", self.kind(value).describe());
        }
        self.get_string(s).unwrap_or_default()
    }
}

thread_local! {
    /// How deep `describe` is nested on this thread.
    static DESCRIBING: Cell<u32> = const { Cell::new(0) };
}

/// Restores the `describe` depth, even if describing panicked.
struct Restore(u32);

impl Drop for Restore {
    fn drop(&mut self) {
        DESCRIBING.set(self.0);
    }
}
