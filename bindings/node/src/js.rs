//! A thin layer over the raw N-API calls the door makes.
//!
//! Every call that can run JavaScript (a function call, a getter, `toJSON`)
//! checks for an exception, clears it and turns it into a message, so no
//! exception is ever left pending by radium and none escapes where it
//! should not.

use std::cell::Cell;
use std::ffi::{c_char, CStr};
use std::ptr;

use napi::sys;

/// A JavaScript value, valid in the handle scope that made it.
pub(crate) type Raw = sys::napi_value;

/// A failed call: a thrown JavaScript value (described) or an N-API status.
pub(crate) type JsResult<T> = Result<T, String>;

/// The `typeof` of a value, as N-API reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    Symbol,
    Object,
    Function,
    External,
    BigInt,
}

impl Kind {
    /// How error messages name a value of this kind.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Undefined => "undefined",
            Kind::Null => "null",
            Kind::Boolean => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Symbol => "a symbol",
            Kind::Object => "an object",
            Kind::Function => "a function",
            Kind::External => "an external value",
            Kind::BigInt => "a bigint",
        }
    }
}

/// The environment of the native call or callback that is running.
///
/// A `Js` is only made (with [`Js::new`]) from the `napi_env` that N-API
/// handed to the current call, on the JavaScript thread, and it does not
/// outlive that call: every method relies on that.
#[derive(Clone, Copy)]
pub(crate) struct Js(sys::napi_env);

impl Js {
    /// # Safety
    /// `env` must be the environment N-API passed to the native call or
    /// callback now running on this thread, and the `Js` must not be used
    /// after that call returns.
    pub(crate) unsafe fn new(env: sys::napi_env) -> Self {
        Js(env)
    }

    /// The raw environment.
    pub(crate) fn env(self) -> sys::napi_env {
        self.0
    }

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

    /// The `typeof` of `value`.
    pub(crate) fn kind(self, value: Raw) -> Kind {
        let mut t = 0;
        // SAFETY: live environment; `value` belongs to it.
        let status = unsafe { sys::napi_typeof(self.0, value, &raw mut t) };
        if status != sys::Status::napi_ok {
            return Kind::Undefined;
        }
        match t {
            sys::ValueType::napi_null => Kind::Null,
            sys::ValueType::napi_boolean => Kind::Boolean,
            sys::ValueType::napi_number => Kind::Number,
            sys::ValueType::napi_string => Kind::String,
            sys::ValueType::napi_symbol => Kind::Symbol,
            sys::ValueType::napi_object => Kind::Object,
            sys::ValueType::napi_function => Kind::Function,
            sys::ValueType::napi_external => Kind::External,
            9 => Kind::BigInt,
            _ => Kind::Undefined,
        }
    }

    /// `undefined`.
    pub(crate) fn undefined(self) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_get_undefined(self.0, &raw mut v) },
            "napi_get_undefined",
        )?;
        Ok(v)
    }

    /// A string. ASCII text (the usual case: code, paths, keys) is copied
    /// as Latin-1, which skips V8's UTF-8 decoding.
    pub(crate) fn string(self, s: &str) -> JsResult<Raw> {
        let len = isize::try_from(s.len()).map_err(|_| "string too long".to_owned())?;
        let mut v = ptr::null_mut();
        let status = if s.is_ascii() {
            // SAFETY: live environment; `s` is `len` bytes, all ASCII (valid Latin-1).
            unsafe {
                sys::napi_create_string_latin1(self.0, s.as_ptr().cast::<c_char>(), len, &raw mut v)
            }
        } else {
            // SAFETY: live environment; `s` is `len` bytes of UTF-8.
            unsafe {
                sys::napi_create_string_utf8(self.0, s.as_ptr().cast::<c_char>(), len, &raw mut v)
            }
        };
        self.check(status, "napi_create_string")?;
        Ok(v)
    }

    /// The text of a string value (lone surrogates become U+FFFD).
    pub(crate) fn get_string(self, value: Raw) -> JsResult<String> {
        let mut len = 0usize;
        // SAFETY: live environment; a NULL buffer asks for the length.
        self.check(
            unsafe {
                sys::napi_get_value_string_utf8(self.0, value, ptr::null_mut(), 0, &raw mut len)
            },
            "napi_get_value_string_utf8",
        )?;
        let mut buf = vec![0u8; len + 1];
        let mut written = 0usize;
        // SAFETY: live environment; `buf` has room for `len` bytes and the NUL.
        self.check(
            unsafe {
                sys::napi_get_value_string_utf8(
                    self.0,
                    value,
                    buf.as_mut_ptr().cast::<c_char>(),
                    buf.len(),
                    &raw mut written,
                )
            },
            "napi_get_value_string_utf8",
        )?;
        buf.truncate(written);
        String::from_utf8(buf).map_err(|e| format!("a string is not valid UTF-8: {e}"))
    }

    /// The text of a large string (lone surrogates become U+FFFD), with one
    /// pass of V8's over it instead of two: the buffer is sized from the
    /// string's length in UTF-16 units (at most 3 bytes of UTF-8 each).
    pub(crate) fn get_long_string(self, value: Raw) -> JsResult<String> {
        let mut units = 0usize;
        // SAFETY: live environment; a NULL buffer asks for the length.
        self.check(
            unsafe {
                sys::napi_get_value_string_utf16(self.0, value, ptr::null_mut(), 0, &raw mut units)
            },
            "napi_get_value_string_utf16",
        )?;
        let capacity = units * 3 + 1;
        let mut buf: Vec<u8> = Vec::with_capacity(capacity);
        let mut written = 0usize;
        // SAFETY: live environment; `buf` has room for `capacity` bytes (the
        // whole text and the NUL), which N-API writes before we read them.
        self.check(
            unsafe {
                sys::napi_get_value_string_utf8(
                    self.0,
                    value,
                    buf.as_mut_ptr().cast::<c_char>(),
                    capacity,
                    &raw mut written,
                )
            },
            "napi_get_value_string_utf8",
        )?;
        // SAFETY: N-API wrote `written < capacity` bytes.
        unsafe { buf.set_len(written.min(capacity - 1)) };
        String::from_utf8(buf).map_err(|e| format!("a string is not valid UTF-8: {e}"))
    }

    /// A new `Float64Array` of `len` zeros, and where its numbers are
    /// (outside the JS heap: the address stays valid while the array lives).
    pub(crate) fn float64_array(self, len: usize) -> JsResult<(Raw, *mut f64)> {
        let mut data = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        let bytes = len * std::mem::size_of::<f64>();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_create_arraybuffer(self.0, bytes, &raw mut data, &raw mut buffer) },
            "napi_create_arraybuffer",
        )?;
        let mut array = ptr::null_mut();
        // SAFETY: live environment; `buffer` holds `len` f64s.
        self.check(
            unsafe {
                sys::napi_create_typedarray(
                    self.0,
                    sys::TypedarrayType::float64_array,
                    len,
                    buffer,
                    0,
                    &raw mut array,
                )
            },
            "napi_create_typedarray",
        )?;
        Ok((array, data.cast::<f64>()))
    }

    /// The numbers `1..=n` of a `Float64Array` whose first number is `n`,
    /// copied out (`None` for anything else).
    pub(crate) fn float64_prefix(self, value: Raw) -> Option<Vec<f64>> {
        let mut kind = 0;
        let mut len = 0usize;
        let mut data = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        let mut offset = 0usize;
        // SAFETY: live environment; N-API checks that `value` is a typed array.
        let status = unsafe {
            sys::napi_get_typedarray_info(
                self.0,
                value,
                &raw mut kind,
                &raw mut len,
                &raw mut data,
                &raw mut buffer,
                &raw mut offset,
            )
        };
        if status != sys::Status::napi_ok || kind != sys::TypedarrayType::float64_array || len == 0
        {
            let _ = self.take_exception();
            return None;
        }
        let data = data.cast::<u8>();
        let size = std::mem::size_of::<f64>();
        let mut first = [0u8; 8];
        // SAFETY: the array has `len >= 1` f64s at `data`; read bytewise (no
        // alignment needed).
        unsafe { ptr::copy_nonoverlapping(data, first.as_mut_ptr(), size) };
        let n = f64::from_ne_bytes(first);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let count = if n >= 0.0 && n.fract() == 0.0 && n < 4_294_967_296.0 {
            n as usize
        } else {
            return None;
        };
        if count >= len {
            return None;
        }
        let mut values = vec![0f64; count];
        // SAFETY: `1 + count <= len` f64s at `data`; copied bytewise.
        unsafe {
            ptr::copy_nonoverlapping(
                data.add(size),
                values.as_mut_ptr().cast::<u8>(),
                count * size,
            );
        }
        Some(values)
    }

    /// `true` or `false`.
    pub(crate) fn boolean(self, b: bool) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_get_boolean(self.0, b, &raw mut v) },
            "napi_get_boolean",
        )?;
        Ok(v)
    }

    /// A number.
    pub(crate) fn double(self, n: f64) -> JsResult<Raw> {
        let mut v = ptr::null_mut();
        // SAFETY: live environment.
        self.check(
            unsafe { sys::napi_create_double(self.0, n, &raw mut v) },
            "napi_create_double",
        )?;
        Ok(v)
    }

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

    /// Opens a handle scope: values made until it is dropped are released then.
    pub(crate) fn scope(self) -> Scope {
        let mut scope = ptr::null_mut();
        // SAFETY: live environment.
        let status = unsafe { sys::napi_open_handle_scope(self.0, &raw mut scope) };
        Scope {
            env: self.0,
            scope: (status == sys::Status::napi_ok).then_some(scope),
        }
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

/// An open handle scope, closed on drop.
pub(crate) struct Scope {
    env: sys::napi_env,
    scope: Option<sys::napi_handle_scope>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        if let Some(scope) = self.scope {
            // SAFETY: the scope was opened in `env` during this same call and
            // scopes are dropped in reverse order of opening (lexical RAII).
            unsafe { sys::napi_close_handle_scope(self.env, scope) };
        }
    }
}
