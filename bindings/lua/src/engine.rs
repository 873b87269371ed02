//! The engine as Lua userdata: its methods (registering Lua and script
//! hooks, enabling, listing, executing chains, requests) and the hook
//! options they share.

use std::sync::Arc;
use std::time::Duration;

use mlua::{Function, Result as LuaResult, UserData, UserDataMethods};
use radium_core::{
    Engine, ExecuteOptions, HookContext, HookMeta, HookOptions, HookPriority, HookType, Request,
    Response, ScriptHook, ToolMatcher,
};
use serde_json::Value;

use crate::hook::{HostOnly, LuaHook};
use crate::poll::{async_state, queue, subscribe, PendingFuture};
use crate::values::{from_lua, lua_err, parse_json, to_lua};

/// An engine, as Lua userdata.
pub(crate) struct LuaEngine {
    pub(crate) engine: Engine,
}

/// Options shared by `register` and `register_script` (a JSON object).
fn hook_options(options: &Value) -> LuaResult<(HookPriority, HookOptions)> {
    let map = match options {
        Value::Null => return Ok((HookPriority::DEFAULT, HookOptions::default())),
        Value::Object(map) => map,
        _ => return Err(lua_err("hook options must be a table")),
    };
    let mut priority = HookPriority::DEFAULT;
    let mut hook_options = HookOptions::default();
    for (key, value) in map {
        match (key.as_str(), value) {
            ("priority", Value::Number(n)) => {
                priority = HookPriority(
                    n.as_i64()
                        .and_then(|n| i32::try_from(n).ok())
                        .ok_or_else(|| lua_err("option `priority` must be a whole number"))?,
                );
            }
            ("matcher", Value::String(pattern)) => {
                hook_options.matcher = Some(ToolMatcher::new(pattern).map_err(lua_err)?);
            }
            ("timeout_ms", Value::Number(n)) => {
                let ms = n.as_u64().ok_or_else(|| {
                    lua_err("option `timeout_ms` must be a whole number of milliseconds")
                })?;
                hook_options.timeout = Some(Duration::from_millis(ms));
            }
            ("enabled", Value::Bool(enabled)) => hook_options.disabled = !enabled,
            ("priority" | "matcher" | "timeout_ms" | "enabled", other) => {
                return Err(lua_err(format!(
                    "option `{key}` has the wrong type ({other})"
                )))
            }
            (other, _) => {
                return Err(lua_err(format!(
                "unknown option `{other}`; known options: priority, matcher, timeout_ms, enabled"
            )))
            }
        }
    }
    Ok((priority, hook_options))
}

/// A hook type by name.
fn hook_type(name: &str) -> LuaResult<HookType> {
    name.parse().map_err(lua_err)
}

impl UserData for LuaEngine {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method(
            "register_lua",
            |lua, this, (name, kind, wrapper, options): (String, String, Function, String)| {
                let (priority, options) = hook_options(&parse_json(&options, "options")?)?;
                let hook = LuaHook {
                    meta: HookMeta::new(name, hook_type(&kind)?).with_priority(priority),
                    wrapper: Arc::new(HostOnly::new((wrapper, lua.weak()))),
                    host: Arc::clone(&async_state(lua)?.host_calls),
                };
                this.engine
                    .registry()
                    .register_with(hook, options)
                    .map_err(lua_err)
            },
        );
        methods.add_method(
            "register_script",
            |_, this, (name, kind, command, options): (String, String, String, String)| {
                let command: Vec<String> = serde_json::from_str(&command)
                    .map_err(|_| lua_err("the command must be a list of strings, program first"))?;
                let Some((program, args)) = command.split_first() else {
                    return Err(lua_err("the command must not be empty"));
                };
                let mut options_json = parse_json(&options, "options")?;
                let cwd = options_json
                    .as_object_mut()
                    .and_then(|m| m.remove("cwd"))
                    .and_then(|v| v.as_str().map(str::to_owned));
                let (priority, options) = hook_options(&options_json)?;
                let mut hook = ScriptHook::new(name, hook_type(&kind)?, program)
                    .with_args(args.iter().cloned())
                    .with_priority(priority);
                if let Some(cwd) = cwd {
                    hook = hook.with_cwd(cwd);
                }
                this.engine
                    .registry()
                    .register_with(hook, options)
                    .map_err(lua_err)
            },
        );
        methods.add_method("unregister", |_, this, name: String| {
            this.engine.registry().unregister(&name).map_err(lua_err)
        });
        methods.add_method("set_enabled", |_, this, (name, enabled): (String, bool)| {
            this.engine
                .registry()
                .set_enabled(&name, enabled)
                .map_err(lua_err)
        });
        methods.add_method("list", |_, this, ()| {
            Ok(serde_json::to_string(&this.engine.registry().list()).unwrap_or_default())
        });
        methods.add_method(
            "execute",
            |lua, this, (kind, data): (String, mlua::Value)| {
                let context = HookContext::new(hook_type(&kind)?, from_lua(lua, data, "the data")?);
                // A broken workspace hooks.toml is an error naming its line.
                let outcome = this
                    .engine
                    .registry()
                    .try_execute(context)
                    .map_err(lua_err)?;
                to_lua(lua, &outcome.into_json())
            },
        );
        methods.add_method(
            "execute_async",
            |lua,
             this,
             (kind, data, timeout_ms, callback): (String, mlua::Value, Option<u64>, Function)| {
                let context = HookContext::new(hook_type(&kind)?, from_lua(lua, data, "the data")?);
                // A broken workspace hooks.toml is an error now, like a bad
                // argument (a chain refused later still calls back, with
                // status "config_error").
                this.engine
                    .registry()
                    .check_config(context.hook_type, context.tool_name())
                    .map_err(lua_err)?;
                let options = timeout_ms.map_or_else(ExecuteOptions::default, |ms| {
                    ExecuteOptions::with_timeout(Duration::from_millis(ms))
                });
                let chain = this.engine.registry().execute_async(context, options);
                let future: PendingFuture = Box::pin(async move { chain.await.into_json() });
                queue(lua, future, callback)
            },
        );
        methods.add_method(
            "request_async",
            |lua, this, (request, callback): (mlua::Value, Function)| {
                let request = from_lua(lua, request, "the request")?;
                let future: PendingFuture = match Request::from_json(request) {
                    Ok(request) => {
                        let response = this.engine.handle_request_async(request);
                        Box::pin(async move { response.await.into_json() })
                    }
                    Err(e) => {
                        let response = Response::failure(&e).into_json();
                        Box::pin(std::future::ready(response))
                    }
                };
                queue(lua, future, callback)
            },
        );
        methods.add_method(
            "session_subscribe",
            |lua, this, (session, callback): (String, Function)| {
                let entry = this.engine.session(&session).map_err(lua_err)?;
                subscribe(lua, entry.queue.subscribe(), callback)
            },
        );
        methods.add_method("request", |lua, this, request: mlua::Value| {
            let request = from_lua(lua, request, "the request")?;
            to_lua(lua, &this.engine.handle_json(request).into_json())
        });
    }
}
