//! Strings across the boundary: NULL checks, borrowed UTF-8 and JSON
//! arguments, JSON text handed to the caller, and `radium_string_free`.

use std::ffi::{c_char, CStr, CString};

use serde_json::Value;

use crate::errors::{Failure, Outcome, RadiumStatus};

/// Borrows a required string argument.
pub(crate) unsafe fn str_arg<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::new(
            RadiumStatus::NullArgument,
            format!("argument `{name}` is NULL"),
        ));
    }
    // SAFETY: the contract requires a NUL-terminated string.
    unsafe { CStr::from_ptr(ptr) }.to_str().map_err(|e| {
        Failure::new(
            RadiumStatus::InvalidUtf8,
            format!("argument `{name}` is not valid UTF-8 ({e})"),
        )
    })
}

/// Parses a required JSON argument.
pub(crate) unsafe fn json_arg(ptr: *const c_char, name: &str) -> Result<Value, Failure> {
    // SAFETY: forwarded contract.
    let text = unsafe { str_arg(ptr, name) }?;
    radium_core::parse_json(text).map_err(|e| {
        Failure::new(
            RadiumStatus::InvalidJson,
            format!("argument `{name}` is not valid JSON: {e}"),
        )
    })
}

/// Fails with `RADIUM_STATUS_NULL_ARGUMENT` when a required pointer is NULL.
pub(crate) fn null_check<T>(ptr: *const T, name: &str) -> Outcome {
    if ptr.is_null() {
        Err(Failure::new(
            RadiumStatus::NullArgument,
            format!("argument `{name}` is NULL"),
        ))
    } else {
        Ok(())
    }
}

/// Writes JSON text (as a serialiser wrote it) for the caller to free with
/// `radium_string_free`.
pub(crate) unsafe fn write_json(out: *mut *mut c_char, text: String) {
    debug_assert!(!text.as_bytes().contains(&0));
    // SAFETY: serialised JSON never contains a NUL byte: a NUL in a string
    // is escaped as \u0000, and nothing else can hold one. (Not scanning
    // the text again matters for large answers.)
    let c = unsafe { CString::from_vec_unchecked(text.into_bytes()) };
    // SAFETY: `out` was checked non-NULL by the caller.
    unsafe { *out = c.into_raw() };
}

/// Frees a string returned by this library. NULL is harmless.
#[no_mangle]
pub unsafe extern "C" fn radium_string_free(string: *mut c_char) {
    if !string.is_null() {
        // SAFETY: a non-NULL string comes from CString::into_raw in this library.
        drop(unsafe { CString::from_raw(string) });
    }
}
