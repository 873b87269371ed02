//! A thin layer over the raw N-API calls the door makes.
//!
//! Every call that can run JavaScript (a function call, a getter, `toJSON`)
//! checks for an exception, clears it and turns it into a message, so no
//! exception is ever left pending by radium and none escapes where it
//! should not.
//!
//! The `Js` methods are grouped by what they do: `values` (primitives,
//! strings and typed arrays), `objects` (properties, calls, errors,
//! references and Promises) and `exceptions` (pending exceptions and how a
//! thrown value is described); handle scopes are here.

use std::ptr;

use napi::sys;

mod exceptions;
mod objects;
mod values;

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
