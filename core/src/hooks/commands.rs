//! The hook commands of the protocol: `hooks-list`, `hooks-enable`,
//! `hooks-disable` and `hooks-execute`.

use std::future::Future;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::context::HookContext;
use super::hook_type::HookType;
use super::outcome::ChainOutcome;
use super::registry::{ExecuteOptions, HookRegistry};
use crate::error::{Error, Result};
use crate::support::json::{args_object, json_kind, string_arg};

/// `hooks-list`: every registered hook (a broken hook configuration is the
/// response's warning: see `Engine::handle_request_async`).
pub(crate) fn list(registry: &HookRegistry) -> Value {
    serde_json::to_value(registry.list()).unwrap_or_default()
}

/// `hooks-enable` / `hooks-disable` (`command` says which): `{name}`.
pub(crate) fn set_enabled(
    registry: &HookRegistry,
    command: &str,
    args: &Map<String, Value>,
) -> Result<Value> {
    let name = string_arg(command, args, "name")?;
    let enabled = command == "hooks-enable";
    registry.set_enabled(name, enabled)?;
    Ok(json!({"name": name, "enabled": enabled}))
}

/// `hooks-execute`: `{hook_type, data?, metadata?, timeout_ms?}` → the
/// chain as a future. `data` and `metadata` are moved out of `args`. With a
/// broken hook configuration, a chain that has a hook to run answers the
/// configuration error (see [`HookRegistry::set_config_error`]).
pub(crate) fn execute(
    registry: &HookRegistry,
    args: &mut Value,
) -> Result<impl Future<Output = Result<ChainOutcome>> + Send + 'static> {
    let command = "hooks-execute";
    let map = args_object(command, args)?;
    let hook_type: HookType = string_arg(command, map, "hook_type")?.parse()?;
    let options = match map.get("timeout_ms") {
        None | Some(Value::Null) => ExecuteOptions::default(),
        Some(Value::Number(n)) if n.as_u64().is_some() => {
            ExecuteOptions::with_timeout(Duration::from_millis(n.as_u64().unwrap_or(0)))
        }
        Some(other) => {
            return Err(Error::InvalidArgument(format!(
                "`hooks-execute`: argument `timeout_ms` must be a non-negative integer, got {}",
                json_kind(other)
            )))
        }
    };
    let mut take = |name: &str| match args {
        Value::Object(map) => map.remove(name).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    let data = take("data");
    let metadata = take("metadata");
    let context = HookContext::new(hook_type, data).with_metadata(metadata);
    Ok(registry.try_execute_async(context, options))
}
