//! The `Engine` class: hooks (JS and script), enable/disable/list,
//! `execute`, `executeAsync`, and the JSON request door (`request`,
//! `requestAsync`).

use napi::bindgen_prelude::{Env, This, ToNapiValue, Unknown};
use napi::sys;
use napi_derive::napi;
use radium_core::{EngineConfig, ExecuteOptions, HookContext, ScriptHook};
use serde_json::Value;

use crate::args::{
    hook_options, hook_type_arg, js_of, json_arg, millis, options_arg, raw, request_arg, string_arg,
};
use crate::convert;
use crate::errors::{engine_error, guard, internal, reject, throw, Throw};
use crate::hook::JsHook;
use crate::host::{Done, Enter, Host, Mode, PendingChain};
use crate::js::Kind;

/// A JS value made by radium, returned as is.
pub struct Out(sys::napi_value);

impl ToNapiValue for Out {
    unsafe fn to_napi_value(_env: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        Ok(value.0)
    }
}

/// A radium engine: hooks, settings, chains and the JSON request door.
///
/// Methods throw a JS `Error` with a `code` for bad arguments and refusals
/// (see the README). Inside a chain, a failing hook never throws: it is
/// listed in the outcome with status `error`.
#[napi]
pub struct Engine {
    engine: radium_core::Engine,
    streams: crate::sessions::Streams,
}

#[napi]
impl Engine {
    /// Creates an engine. `options.workspace`: a directory whose
    /// `.radium/hooks.toml` is applied (now, and to hooks registered later).
    /// A broken `hooks.toml` does not stop the engine: none of it is
    /// applied, and every chain with a hook to run throws (or rejects) with
    /// code `config` and the file's error (`hooks.toml:LINE:COLUMN: ...`)
    /// until a new engine reads the fixed file; the `hooks-list` request
    /// carries it in `warnings`.
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
                streams: crate::sessions::Streams::default(),
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
    /// here (use `executeAsync`). Throws with code `config` when the
    /// workspace `hooks.toml` is broken and the chain has a hook to run.
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
                    .try_execute(HookContext::new(hook_type, data))
                    .map_err(|e| engine_error(&e))?
            };
            convert::outcome_to_js(js, &outcome)
                .map(Out)
                .map_err(internal)
        })
    }

    /// Runs a chain without blocking the event loop. Synchronous JS hooks
    /// run on this thread (the first ones right away, like an async function
    /// up to its first `await`); script hooks and Promises are awaited in the
    /// background. Rejects (with a `code`) on bad arguments, and with code
    /// `config` when the workspace `hooks.toml` is broken and the chain has a
    /// hook to run; never rejects because a hook failed. `options.timeoutMs`
    /// ends the chain with status `deadline_exceeded`.
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
                    let future = self.engine.registry().try_execute_async(context, execute);
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

    /// The events of agent session `session` (opened with a `session-new`
    /// request) that arrived since the last call, as a Promise settled on
    /// the JS thread as soon as there is one (the event loop never waits),
    /// or `null` once the session has ended (closed, or its agent gone).
    /// A batch holds at most about 1 MiB of text; it is settled on a later
    /// turn of the event loop (`setImmediate`), never within this call, so
    /// a backlog read in a loop lets timers and I/O run between batches.
    /// The first call subscribes: from then on `session-events` polls find
    /// nothing. Throws `invalid_argument` for an unknown session. See
    /// `session.js` for the async iterator over a turn built on it.
    #[napi(
        ts_args_type = "session: string",
        ts_return_type = "Promise<Array<{ type: string, [field: string]: any }> | null>"
    )]
    pub fn session_events(&self, env: Env, session: Unknown<'_>) -> Result<Out, Throw> {
        guard(|| {
            let js = js_of(&env);
            let id = string_arg(js, raw(&session), "the session id")?;
            let next = self
                .streams
                .next(&id, || self.engine.session(&id))
                .map_err(|e| engine_error(&e))?;
            let host = Host::get(js).map_err(internal)?;
            let (deferred, promise) = js.promise().map_err(internal)?;
            host.start_later(js, PendingChain::new(next, deferred));
            Ok(Out(promise))
        })
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
