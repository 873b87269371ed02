//! Values: `undefined`, booleans, numbers, strings (made and read), and
//! `Float64Array`s (made, and read in bulk).

use std::ffi::c_char;
use std::ptr;

use napi::sys;

use super::{Js, JsResult, Raw};

impl Js {
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

    /// The text of a large string (lone surrogates become U+FFFD) as UTF-8
    /// in `buf` (emptied first), with one pass of V8's over it instead of
    /// two: the buffer is sized from the string's length in UTF-16 units (at
    /// most 3 bytes of UTF-8 each). `buf` may come from an earlier read, to
    /// skip the allocation.
    pub(crate) fn get_long_string_into(self, value: Raw, buf: &mut Vec<u8>) -> JsResult<()> {
        let mut units = 0usize;
        // SAFETY: live environment; a NULL buffer asks for the length.
        self.check(
            unsafe {
                sys::napi_get_value_string_utf16(self.0, value, ptr::null_mut(), 0, &raw mut units)
            },
            "napi_get_value_string_utf16",
        )?;
        let capacity = units * 3 + 1;
        buf.clear();
        buf.reserve(capacity);
        let mut written = 0usize;
        // SAFETY: live environment; `buf` has room for `capacity` bytes (the
        // NUL included), of which N-API writes `written` and the NUL.
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
        Ok(())
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
}
