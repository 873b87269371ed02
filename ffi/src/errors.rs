//! Statuses and error objects: `RadiumStatus`, `RadiumError` and its
//! accessors, the internal `Failure` every function reports, and `guard`,
//! which turns failures and panics into a status and an error object.

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The result of a fallible call. 0 is success.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RadiumStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullArgument = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// A JSON argument was not valid JSON.
    InvalidJson = 3,
    /// A hook type name that is not one of the 13.
    UnknownHookType = 4,
    /// A hook with this name is already registered.
    DuplicateHook = 5,
    /// No hook with this name is registered.
    UnknownHook = 6,
    /// An argument with a wrong value (bad name, matcher, configuration...),
    /// or a chain refused because the workspace `hooks.toml` is broken.
    InvalidArgument = 7,
    /// An engine handle that is not live (already destroyed, or never created).
    InvalidHandle = 8,
    /// A file could not be read.
    Io = 9,
    /// An internal failure (a bug in radium); the message says what.
    Internal = 10,
}

/// An error: a status and a message. Free with `radium_error_free`.
pub struct RadiumError {
    status: RadiumStatus,
    message: CString,
}

/// A failed call, before it becomes a status and a `RadiumError`.
pub(crate) struct Failure {
    status: RadiumStatus,
    message: String,
}

impl Failure {
    pub(crate) fn new(status: RadiumStatus, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }
}

impl From<radium_core::Error> for Failure {
    fn from(e: radium_core::Error) -> Self {
        let status = match e.code() {
            "unknown_hook_type" => RadiumStatus::UnknownHookType,
            "duplicate_hook" => RadiumStatus::DuplicateHook,
            "unknown_hook" => RadiumStatus::UnknownHook,
            "io" => RadiumStatus::Io,
            "runtime" => RadiumStatus::Internal,
            _ => RadiumStatus::InvalidArgument,
        };
        Failure::new(status, e.to_string())
    }
}

/// What the body of an exported function returns.
pub(crate) type Outcome = Result<(), Failure>;

/// Runs `body`, turning failures into a status (and an error object) and
/// panics into `RADIUM_STATUS_INTERNAL`.
pub(crate) fn guard(error: *mut *mut RadiumError, body: impl FnOnce() -> Outcome) -> RadiumStatus {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return RadiumStatus::Ok,
        Ok(Err(failure)) => failure,
        Err(_) => Failure::new(
            RadiumStatus::Internal,
            "internal error: radium panicked (please report this bug)",
        ),
    };
    if !error.is_null() {
        let message = CString::new(failure.message.replace('\0', " ")).unwrap_or_default();
        let boxed = Box::new(RadiumError {
            status: failure.status,
            message,
        });
        // SAFETY: the caller passes either NULL (checked) or a valid `RadiumError **`.
        unsafe { *error = Box::into_raw(boxed) };
    }
    failure.status
}

/// The status of an error (`RADIUM_STATUS_NULL_ARGUMENT` for NULL).
#[no_mangle]
pub unsafe extern "C" fn radium_error_status(error: *const RadiumError) -> RadiumStatus {
    if error.is_null() {
        return RadiumStatus::NullArgument;
    }
    // SAFETY: a non-NULL error comes from this library.
    unsafe { (*error).status }
}

/// The message of an error, owned by the error (valid until it is freed);
/// an empty string for NULL.
#[no_mangle]
pub unsafe extern "C" fn radium_error_message(error: *const RadiumError) -> *const c_char {
    if error.is_null() {
        return c"".as_ptr();
    }
    // SAFETY: a non-NULL error comes from this library.
    unsafe { (*error).message.as_ptr() }
}

/// Frees an error. NULL is harmless.
#[no_mangle]
pub unsafe extern "C" fn radium_error_free(error: *mut RadiumError) {
    if !error.is_null() {
        // SAFETY: a non-NULL error comes from Box::into_raw in this library.
        drop(unsafe { Box::from_raw(error) });
    }
}
