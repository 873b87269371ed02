//! The errors radium throws: `ErrorCode`, `Throw` and the helpers that make
//! them, `guard` (a panic becomes an `internal` error) and `reject` (an
//! error settles a Promise instead).

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::sys;

use crate::js::{Js, Raw};

/// The `code` of an error radium throws: the engine's codes
/// (`unknown_hook_type`, `duplicate_hook`, `unknown_hook`,
/// `invalid_hook_name`, `invalid_matcher`, `invalid_argument`, `config`,
/// `io`, ...) and `internal` for a bug in radium.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(&'static str);

impl AsRef<str> for ErrorCode {
    fn as_ref(&self) -> &str {
        self.0
    }
}

/// What the exported functions throw: a JS `Error` with `code`.
pub(crate) type Throw = napi::Error<ErrorCode>;

/// An error with `code` and `message`.
pub(crate) fn throw(code: &'static str, message: impl std::fmt::Display) -> Throw {
    napi::Error::new(ErrorCode(code), message)
}

/// An engine error, with the engine's code.
pub(crate) fn engine_error(e: &radium_core::Error) -> Throw {
    throw(e.code(), e)
}

/// An `internal` error: a bug in radium.
pub(crate) fn internal(message: impl std::fmt::Display) -> Throw {
    throw("internal", format!("internal error: {message}"))
}

/// An `Error` value with `code` (for rejections); `None` if it cannot be made.
pub(crate) fn error_value(js: Js, code: &str, message: &str) -> Option<Raw> {
    js.error(code, message).ok()
}

/// Runs an entry point's body; a panic becomes an `internal` error.
pub(crate) fn guard<T>(body: impl FnOnce() -> Result<T, Throw>) -> Result<T, Throw> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| {
        Err(internal(
            "radium panicked (please report this bug); the engine is still usable",
        ))
    })
}

/// Rejects a Promise with the error (thrown instead if no error value can be made).
pub(crate) fn reject(js: Js, deferred: sys::napi_deferred, e: Throw) -> Result<(), Throw> {
    match error_value(js, e.status.as_ref(), &e.reason) {
        Some(error) => {
            js.settle(deferred, Err(error));
            Ok(())
        }
        None => Err(e),
    }
}
