//! The Node.js door of radium: a napi-rs addon loaded by `require("radium-node")`
//! (VS Code's extension host included).
//!
//! - [`Engine`] wraps a `radium_core::Engine`: JS hooks (functions, sync or
//!   returning Promises), script hooks, enable/disable/list, `execute`
//!   (synchronous), `executeAsync` (a Promise; never blocks the event loop)
//!   and the JSON `request` door.
//! - JavaScript is only touched on the thread that loaded the addon, inside
//!   native calls JavaScript makes or callbacks N-API runs there
//!   (see `host.rs`). Errors are JS `Error`s with a stable `code`.
//! - No panic crosses into Node: every entry point runs under [`guard`].

mod convert;
mod hook;
mod host;
mod js;
mod tape;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use napi::bindgen_prelude::{Env, This, ToNapiValue, Unknown};
use napi::{sys, JsValue as _};
use napi_derive::napi;
use radium_core::{
    EngineConfig, ExecuteOptions, HookContext, HookOptions, HookPriority, HookType, ScriptHook,
    ToolMatcher,
};
use serde_json::{Map, Value};

use crate::hook::JsHook;
use crate::host::{Done, Enter, Host, Mode, PendingChain};
use crate::js::{Js, Kind, Raw};

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
type Throw = napi::Error<ErrorCode>;

fn throw(code: &'static str, message: impl std::fmt::Display) -> Throw {
    napi::Error::new(ErrorCode(code), message)
}

fn engine_error(e: &radium_core::Error) -> Throw {
    throw(e.code(), e)
}

fn internal(message: impl std::fmt::Display) -> Throw {
    throw("internal", format!("internal error: {message}"))
}

/// An `Error` value with `code` (for rejections); `None` if it cannot be made.
pub(crate) fn error_value(js: Js, code: &str, message: &str) -> Option<Raw> {
    js.error(code, message).ok()
}

/// Runs an entry point's body; a panic becomes an `internal` error.
fn guard<T>(body: impl FnOnce() -> Result<T, Throw>) -> Result<T, Throw> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| {
        Err(internal(
            "radium panicked (please report this bug); the engine is still usable",
        ))
    })
}

/// A JS value made by radium, returned as is.
pub struct Out(sys::napi_value);

impl ToNapiValue for Out {
    unsafe fn to_napi_value(_env: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        Ok(value.0)
    }
}

fn js_of(env: &Env) -> Js {
    // SAFETY: `env` is the environment napi-rs passed to the entry point now
    // running on this thread; the `Js` is used only during that call.
    unsafe { Js::new(env.raw()) }
}

fn raw(value: &Unknown<'_>) -> Raw {
    value.raw()
}

/// A required string argument.
fn string_arg(js: Js, value: Raw, what: &str) -> Result<String, Throw> {
    match js.kind(value) {
        Kind::String => js.get_string(value).map_err(internal),
        other => Err(throw(
            "invalid_argument",
            format!("{what} must be a string, got {}", other.describe()),
        )),
    }
}

fn hook_type_arg(js: Js, value: Raw) -> Result<HookType, Throw> {
    string_arg(js, value, "the hook type")?
        .parse()
        .map_err(|e| engine_error(&e))
}

/// Any JSON-convertible argument (`undefined` is `null`).
fn json_arg(js: Js, value: Raw, what: &str) -> Result<Value, Throw> {
    convert::from_js(js, value).map_err(|e| {
        throw(
            "invalid_argument",
            format!("{what} cannot be converted to JSON: {e}"),
        )
    })
}

/// An optional options object (`undefined` and `null` mean none).
fn options_arg(js: Js, value: Raw, what: &str) -> Result<Map<String, Value>, Throw> {
    match js.kind(value) {
        Kind::Undefined | Kind::Null => Ok(Map::new()),
        Kind::Object if !js.is_array(value) => match json_arg(js, value, what)? {
            Value::Object(map) => Ok(map),
            _ => Ok(Map::new()),
        },
        Kind::Object => Err(throw(
            "invalid_argument",
            format!("{what} must be an object, got an array"),
        )),
        other => Err(throw(
            "invalid_argument",
            format!("{what} must be an object, got {}", other.describe()),
        )),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn bad_option(key: &str, expected: &str, got: &Value) -> Throw {
    throw(
        "invalid_argument",
        format!("option `{key}` must be {expected}, got {}", json_kind(got)),
    )
}

/// A non-negative whole number of milliseconds.
fn millis(key: &str, value: &Value) -> Result<Duration, Throw> {
    value
        .as_u64()
        .map(Duration::from_millis)
        .ok_or_else(|| bad_option(key, "a non-negative whole number of milliseconds", value))
}

/// Options shared by `register` and `registerScript`.
fn hook_options(
    mut options: Map<String, Value>,
    script: bool,
) -> Result<(HookPriority, HookOptions, Option<String>), Throw> {
    let mut priority = HookPriority::DEFAULT;
    let mut hook_options = HookOptions::default();
    let mut cwd = None;
    let known = if script {
        "priority, matcher, timeoutMs, enabled, cwd"
    } else {
        "priority, matcher, timeoutMs, enabled"
    };
    for (key, value) in std::mem::take(&mut options) {
        match key.as_str() {
            "priority" => {
                priority = HookPriority(
                    value
                        .as_i64()
                        .and_then(|n| i32::try_from(n).ok())
                        .ok_or_else(|| bad_option(&key, "a whole number (32-bit)", &value))?,
                );
            }
            "matcher" => match &value {
                Value::String(pattern) => {
                    hook_options.matcher =
                        Some(ToolMatcher::new(pattern).map_err(|e| engine_error(&e))?);
                }
                other => return Err(bad_option(&key, "a string", other)),
            },
            "timeoutMs" => hook_options.timeout = Some(millis(&key, &value)?),
            "enabled" => match value {
                Value::Bool(enabled) => hook_options.disabled = !enabled,
                other => return Err(bad_option(&key, "a boolean", &other)),
            },
            "cwd" if script => match value {
                Value::String(dir) => cwd = Some(dir),
                other => return Err(bad_option(&key, "a string (a directory)", &other)),
            },
            other => {
                let hint = match other {
                    "timeout_ms" | "timeout" => " (did you mean `timeoutMs`?)",
                    "cwd" => " (`cwd` is for registerScript)",
                    _ => "",
                };
                return Err(throw(
                    "invalid_argument",
                    format!("unknown option `{other}`{hint}; known options: {known}"),
                ));
            }
        }
    }
    Ok((priority, hook_options, cwd))
}

/// The version of radium, e.g. `"0.1.0"`.
#[napi]
pub fn version() -> String {
    radium_core::VERSION.to_owned()
}

/// The ABI version (the same number as the C header's `RADIUM_ABI_VERSION`).
#[napi]
pub fn abi_version() -> u32 {
    radium_core::ABI_VERSION
}

/// The 13 hook types, in order.
#[napi(ts_return_type = "HookType[]")]
pub fn hook_types() -> Vec<&'static str> {
    HookType::ALL.iter().map(|t| t.as_str()).collect()
}

/// How many `executeAsync` chains are in flight on this thread.
#[napi]
pub fn pending_chains(env: Env) -> Result<u32, Throw> {
    guard(|| {
        let host = Host::get(js_of(&env)).map_err(internal)?;
        Ok(u32::try_from(host.pending()).unwrap_or(u32::MAX))
    })
}

/// A radium engine: hooks, settings, chains and the JSON request door.
///
/// Methods throw a JS `Error` with a `code` for bad arguments and refusals
/// (see the README). Inside a chain, a failing hook never throws: it is
/// listed in the outcome with status `error`.
#[napi]
pub struct Engine {
    engine: radium_core::Engine,
}

#[napi]
impl Engine {
    /// Creates an engine. `options.workspace`: a directory whose
    /// `.radium/hooks.toml` is applied (now, and to hooks registered later).
    #[napi(constructor, ts_args_type = "options?: EngineOptions | null")]
    pub fn new(env: Env, this: This<Unknown<'_>>, options: Unknown<'_>) -> Result<Self, Throw> {
        guard(|| {
            let js = js_of(&env);
            if js.is_global(raw(&this)) {
                return Err(throw(
                    "invalid_argument",
                    "Engine is a class: create engines with `new Engine(options)`",
                ));
            }
            Host::get(js).map_err(internal)?;
            let config = match js.kind(raw(&options)) {
                Kind::Undefined | Kind::Null => EngineConfig::default(),
                Kind::Object if !js.is_array(raw(&options)) => {
                    let value = json_arg(js, raw(&options), "the engine options")?;
                    EngineConfig::from_json(&value).map_err(|e| engine_error(&e))?
                }
                other => {
                    return Err(throw(
                        "invalid_argument",
                        format!(
                            "the engine options must be an object, got {}",
                            if other == Kind::Object {
                                "an array"
                            } else {
                                other.describe()
                            }
                        ),
                    ))
                }
            };
            Ok(Engine {
                engine: radium_core::Engine::new(config).map_err(|e| engine_error(&e))?,
            })
        })
    }

    /// Registers a JS hook. `fn(ctx)` gets `{hook_type, data, metadata}` and
    /// returns `undefined` (continue), a result object, or a Promise of one
    /// (awaited by `executeAsync`; an error under `execute`). A hook that
    /// throws, rejects or returns something else is recorded as failed and
    /// the chain goes on.
    #[napi(
        ts_args_type = "name: string, hookType: HookType, fn: HookFn, options?: HookOptions | null"
    )]
    pub fn register(
        &self,
        env: Env,
        name: Unknown<'_>,
        hook_type: Unknown<'_>,
        function: Unknown<'_>,
        options: Unknown<'_>,
    ) -> Result<(), Throw> {
        guard(|| {
            let js = js_of(&env);
            let name = string_arg(js, raw(&name), "the hook name")?;
            let hook_type = hook_type_arg(js, raw(&hook_type))?;
            if js.kind(raw(&function)) != Kind::Function {
                return Err(throw(
                    "invalid_argument",
                    format!(
                        "the hook must be a function, got {}",
                        js.kind(raw(&function)).describe()
                    ),
                ));
            }
            let options = options_arg(js, raw(&options), "the hook options")?;
            let (priority, options, _) = hook_options(options, false)?;
            let hook =
                JsHook::new(js, name, hook_type, priority, raw(&function)).map_err(internal)?;
            self.engine
                .registry()
                .register_with(hook, options)
                .map_err(|e| engine_error(&e))
        })
    }

    /// Registers a script hook: `command` is the program and its arguments
    /// (run directly, no shell). It gets the context as JSON on stdin and
    /// answers a result on stdout (or nothing), or exits 2 to stop the chain
    /// (stderr is the reason). Options as for `register`, plus `cwd`.
    #[napi(
        ts_args_type = "name: string, hookType: HookType, command: string[], options?: ScriptHookOptions | null"
    )]
    pub fn register_script(
        &self,
        env: Env,
        name: Unknown<'_>,
        hook_type: Unknown<'_>,
        command: Unknown<'_>,
        options: Unknown<'_>,
    ) -> Result<(), Throw> {
        guard(|| {
            let js = js_of(&env);
            let name = string_arg(js, raw(&name), "the hook name")?;
            let hook_type = hook_type_arg(js, raw(&hook_type))?;
            let bad_command = || {
                throw(
                    "invalid_argument",
                    "the command must be an array of strings, program first",
                )
            };
            if !js.is_array(raw(&command)) {
                return Err(bad_command());
            }
            let Value::Array(words) = json_arg(js, raw(&command), "the command")? else {
                return Err(bad_command());
            };
            let words = words
                .into_iter()
                .map(|w| match w {
                    Value::String(s) => Ok(s),
                    _ => Err(bad_command()),
                })
                .collect::<Result<Vec<String>, Throw>>()?;
            let Some((program, args)) = words.split_first() else {
                return Err(throw("invalid_argument", "the command must not be empty"));
            };
            let options = options_arg(js, raw(&options), "the hook options")?;
            let (priority, options, cwd) = hook_options(options, true)?;
            let mut hook = ScriptHook::new(name, hook_type, program)
                .with_args(args.iter().cloned())
                .with_priority(priority);
            if let Some(cwd) = cwd {
                hook = hook.with_cwd(cwd);
            }
            self.engine
                .registry()
                .register_with(hook, options)
                .map_err(|e| engine_error(&e))
        })
    }

    /// Removes a hook.
    #[napi(ts_args_type = "name: string")]
    pub fn unregister(&self, env: Env, name: Unknown<'_>) -> Result<(), Throw> {
        guard(|| {
            let name = string_arg(js_of(&env), raw(&name), "the hook name")?;
            self.engine
                .registry()
                .unregister(&name)
                .map_err(|e| engine_error(&e))
        })
    }

    /// Enables a hook.
    #[napi(ts_args_type = "name: string")]
    pub fn enable(&self, env: Env, name: Unknown<'_>) -> Result<(), Throw> {
        self.set_enabled(&env, &name, true)
    }

    /// Disables a hook (it is skipped and not listed in outcomes).
    #[napi(ts_args_type = "name: string")]
    pub fn disable(&self, env: Env, name: Unknown<'_>) -> Result<(), Throw> {
        self.set_enabled(&env, &name, false)
    }

    /// The registered hooks, by type then priority:
    /// `{name, hook_type, priority, enabled, matcher, timeout_ms}`.
    #[napi(ts_return_type = "HookInfo[]")]
    pub fn list(&self, env: Env) -> Result<Out, Throw> {
        guard(|| {
            let js = js_of(&env);
            let list = serde_json::to_value(self.engine.registry().list()).map_err(internal)?;
            convert::to_js(js, &list).map(Out).map_err(internal)
        })
    }

    /// Runs a chain now, on this thread, and returns its outcome. Blocks
    /// while a script hook runs; a JS hook returning a Promise is an error
    /// here (use `executeAsync`).
    #[napi(
        ts_args_type = "hookType: HookType, data?: unknown",
        ts_return_type = "ChainOutcome"
    )]
    pub fn execute(
        &self,
        env: Env,
        hook_type: Unknown<'_>,
        data: Unknown<'_>,
    ) -> Result<Out, Throw> {
        guard(|| {
            let js = js_of(&env);
            let hook_type = hook_type_arg(js, raw(&hook_type))?;
            let data = json_arg(js, raw(&data), "the data")?;
            let outcome = {
                let _enter = Enter::new(js, Mode::Sync);
                self.engine
                    .registry()
                    .execute(HookContext::new(hook_type, data))
            };
            convert::outcome_to_js(js, &outcome)
                .map(Out)
                .map_err(internal)
        })
    }

    /// Runs a chain without blocking the event loop. Synchronous JS hooks
    /// run on this thread (the first ones right away, like an async function
    /// up to its first `await`); script hooks and Promises are awaited in the
    /// background. Rejects (with a `code`) on bad arguments; never rejects
    /// because a hook failed. `options.timeoutMs` ends the chain with status
    /// `deadline_exceeded`.
    #[napi(
        ts_args_type = "hookType: HookType, data?: unknown, options?: ExecuteOptions | null",
        ts_return_type = "Promise<ChainOutcome>"
    )]
    pub fn execute_async(
        &self,
        env: Env,
        hook_type: Unknown<'_>,
        data: Unknown<'_>,
        options: Unknown<'_>,
    ) -> Result<Out, Throw> {
        guard(|| {
            let js = js_of(&env);
            let host = Host::get(js).map_err(internal)?;
            let (deferred, promise) = js.promise().map_err(internal)?;
            let prepared = (|| {
                let hook_type = hook_type_arg(js, raw(&hook_type))?;
                let data = json_arg(js, raw(&data), "the data")?;
                let mut execute = ExecuteOptions::default();
                for (key, value) in options_arg(js, raw(&options), "the options")? {
                    match key.as_str() {
                        "timeoutMs" => {
                            execute = ExecuteOptions::with_timeout(millis(&key, &value)?);
                        }
                        other => {
                            return Err(throw(
                                "invalid_argument",
                                format!("unknown option `{other}`; known options: timeoutMs"),
                            ))
                        }
                    }
                }
                Ok((HookContext::new(hook_type, data), execute))
            })();
            match prepared {
                Ok((context, execute)) => {
                    let future = self.engine.registry().execute_async(context, execute);
                    let future = async move { Done::Outcome(future.await) };
                    host.start(js, PendingChain::new(future, deferred));
                }
                Err(e) => reject(js, deferred, e)?,
            }
            Ok(Out(promise))
        })
    }

    /// The JSON request door shared with C, Lua and the CLI:
    /// `{command, args?, tag?, cwd?}` in, `{ok, data?, error?, code?, tag?, warnings?}`
    /// out. A failed command is a response (`ok: false`), not an exception.
    /// Runs on this thread and blocks while the command waits (a script
    /// hook, an agent's `step`): use `requestAsync` for those.
    #[napi(ts_args_type = "request: Request", ts_return_type = "Response")]
    pub fn request(&self, env: Env, request: Unknown<'_>) -> Result<Out, Throw> {
        guard(|| {
            let js = js_of(&env);
            let request = request_arg(js, raw(&request))?;
            let response = {
                let _enter = Enter::new(js, Mode::Sync);
                self.engine.handle_json(request)
            };
            convert::to_js(js, &response.into_json())
                .map(Out)
                .map_err(internal)
        })
    }

    /// `request` without blocking the event loop: the response comes as a
    /// Promise (JS hooks of a `hooks-execute` may return Promises here).
    /// Rejects only when the request is not an object.
    #[napi(
        ts_args_type = "request: Request",
        ts_return_type = "Promise<Response>"
    )]
    pub fn request_async(&self, env: Env, request: Unknown<'_>) -> Result<Out, Throw> {
        guard(|| {
            let js = js_of(&env);
            let host = Host::get(js).map_err(internal)?;
            let (deferred, promise) = js.promise().map_err(internal)?;
            match request_arg(js, raw(&request)) {
                Ok(request) => {
                    let future = match radium_core::Request::from_json(request) {
                        Ok(request) => Box::pin(self.engine.handle_async(&request))
                            as std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>>,
                        Err(e) => Box::pin(std::future::ready(radium_core::Response::failure(&e))),
                    };
                    let future = async move { Done::Response(future.await) };
                    host.start(js, PendingChain::new(future, deferred));
                }
                Err(e) => reject(js, deferred, e)?,
            }
            Ok(Out(promise))
        })
    }
}

/// The request argument: a plain object, as JSON.
fn request_arg(js: Js, request: Raw) -> Result<Value, Throw> {
    let kind = js.kind(request);
    if kind != Kind::Object || js.is_array(request) {
        let got = if kind == Kind::Object {
            "an array"
        } else {
            kind.describe()
        };
        return Err(throw(
            "invalid_argument",
            format!("the request must be an object like {{ command: \"ping\" }}, got {got}"),
        ));
    }
    json_arg(js, request, "the request")
}

/// Rejects a Promise with the error (thrown instead if no error value can be made).
fn reject(js: Js, deferred: sys::napi_deferred, e: Throw) -> Result<(), Throw> {
    match error_value(js, e.status.as_ref(), &e.reason) {
        Some(error) => {
            js.settle(deferred, Err(error));
            Ok(())
        }
        None => Err(e),
    }
}

impl Engine {
    fn set_enabled(&self, env: &Env, name: &Unknown<'_>, enabled: bool) -> Result<(), Throw> {
        guard(|| {
            let name = string_arg(js_of(env), raw(name), "the hook name")?;
            self.engine
                .registry()
                .set_enabled(&name, enabled)
                .map_err(|e| engine_error(&e))
        })
    }
}
