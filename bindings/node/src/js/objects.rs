//! Objects and functions: running a script, properties and elements, the
//! global object, identity and type checks, calls, `Error` values, strong
//! references, and Promises.

use std::ffi::CStr;
use std::ptr;

use napi::sys;

use super::{Js, JsResult, Raw};

impl Js {
    /// Runs `source` as a script of this environment and returns its value.
    pub(crate) fn run_script(self, source: &str) -> JsResult<Raw> {
        let script = self.string(source)?;
        let mut v = ptr::null_mut();
        // SAFETY: live environment; `script` is a string of it.
        self.check(
            unsafe { sys::napi_run_script(self.0, script, &raw mut v) },
            "napi_run_script",
        )?;
        Ok(v)
    }

    /// `object[name]` (may run a getter).
    pub(crate) fn get_named(self, object: Raw, name: &CStr) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment; `name` is NUL-terminated.
        self.check(
            unsafe { sys::napi_get_named_property(self.0, object, name.as_ptr(), &raw mut v) },
            "napi_get_named_property",
        )?;
        Ok(v)
    }

    /// `array[index]`.
    pub(crate) fn get_element(self, array: Raw, index: u32) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_get_element(self.0, array, index, &raw mut v) },
            "napi_get_element",
        )?;
        Ok(v)
    }

    /// Whether two values are the same (`===`).
    pub(crate) fn same(self, a: Raw, b: Raw) -> bool {
        let mut same = false;
        // SAFETY: live environment; both values belong to it.
        let status = unsafe { sys::napi_strict_equals(self.0, a, b, &raw mut same) };
        status == sys::Status::napi_ok && same
    }

    /// The global object.
    pub(crate) fn global(self) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_get_global(self.0, &raw mut v) },
            "napi_get_global",
        )?;
        Ok(v)
    }

    /// Whether `value` is the global object.
    pub(crate) fn is_global(self, value: Raw) -> bool {
        self.global().is_ok_and(|global| self.same(value, global))
    }

    /// Calls `function` with `this` and `args`; a thrown exception becomes its description.
    pub(crate) fn call(self, function: Raw, this: Raw, args: &[Raw]) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment; `args` holds `args.len()` values of this environment.
        self.check(
            unsafe {
                sys::napi_call_function(
                    self.0,
                    this,
                    function,
                    args.len(),
                    args.as_ptr(),
                    &raw mut v,
                )
            },
            "napi_call_function",
        )?;
        Ok(v)
    }

    /// Whether `value` is a native Promise.
    pub(crate) fn is_promise(self, value: Raw) -> bool {
        let mut yes = false;
        // SAFETY: live environment.
        let status = unsafe { sys::napi_is_promise(self.0, value, &raw mut yes) };
        status == sys::Status::napi_ok && yes
    }

    /// Whether `value` is an `Error`.
    pub(crate) fn is_error(self, value: Raw) -> bool {
        let mut yes = false;
        // SAFETY: live environment.
        let status = unsafe { sys::napi_is_error(self.0, value, &raw mut yes) };
        status == sys::Status::napi_ok && yes
    }

    /// Whether `value` is an array.
    pub(crate) fn is_array(self, value: Raw) -> bool {
        let mut yes = false;
        // SAFETY: live environment.
        let status = unsafe { sys::napi_is_array(self.0, value, &raw mut yes) };
        status == sys::Status::napi_ok && yes
    }

    /// An `Error` with `message` and a `code` property.
    pub(crate) fn error(self, code: &str, message: &str) -> JsResult<Raw> {
        let code = self.string(code)?;
        let message = self.string(message)?;
        let mut v = ptr::null_mut();
        // SAFETY: live environment; `code` and `message` are strings of it.
        self.check(
            unsafe { sys::napi_create_error(self.0, code, message, &raw mut v) },
            "napi_create_error",
        )?;
        Ok(v)
    }

    /// A strong reference to `value` (it stays alive until the reference is deleted).
    pub(crate) fn reference(self, value: Raw) -> JsResult<sys::napi_ref> {
        let mut r = ptr::null_mut();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_create_reference(self.0, value, 1, &raw mut r) },
            "napi_create_reference",
        )?;
        Ok(r)
    }

    /// The value a reference holds.
    pub(crate) fn reference_value(self, reference: sys::napi_ref) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment; `reference` was made in it and not deleted.
        self.check(
            unsafe { sys::napi_get_reference_value(self.0, reference, &raw mut v) },
            "napi_get_reference_value",
        )?;
        if v.is_null() {
            return Err("a referenced value is gone".to_owned());
        }
        Ok(v)
    }

    /// A new Promise and the deferred that settles it.
    pub(crate) fn promise(self) -> JsResult<(sys::napi_deferred, Raw)> {
        let mut deferred = ptr::null_mut();
        let mut promise = ptr::null_mut();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_create_promise(self.0, &raw mut deferred, &raw mut promise) },
            "napi_create_promise",
        )?;
        Ok((deferred, promise))
    }

    /// Resolves (`Ok`) or rejects (`Err`) a deferred; consumes it.
    pub(crate) fn settle(self, deferred: sys::napi_deferred, value: Result<Raw, Raw>) {
        // SAFETY: live environment; `deferred` comes from `promise` in this
        // environment and is settled once (the caller gives it up).
        let status = unsafe {
            match value {
                Ok(v) => sys::napi_resolve_deferred(self.0, deferred, v),
                Err(e) => sys::napi_reject_deferred(self.0, deferred, e),
            }
        };
        if status != sys::Status::napi_ok {
            let _ = self.take_exception();
        }
    }
}
