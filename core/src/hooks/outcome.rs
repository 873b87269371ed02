//! What running a chain produced: [`ChainOutcome`].

use std::sync::Arc;
use std::time::Duration;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::hooks::hook_type::HookType;

/// How a chain ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainStatus {
    /// Every enabled, matching hook ran.
    Completed,
    /// A hook answered stop; see [`ChainOutcome::stopped_by`].
    Stopped,
    /// The chain's cancellation token fired.
    Cancelled,
    /// The chain's deadline passed.
    DeadlineExceeded,
    /// No hook ran: the registry's hook configuration (`hooks.toml`) is
    /// broken, and the chain had a hook to run, which would have run without
    /// the user's settings. `stopped_by` holds the file and the whole error
    /// message (`<file>:<line>:<column>: <message>`); the data is unchanged.
    /// See [`HookRegistry::set_config_error`](crate::hooks::registry::HookRegistry::set_config_error).
    ConfigError,
}

impl ChainStatus {
    /// The `snake_case` name used in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            ChainStatus::Completed => "completed",
            ChainStatus::Stopped => "stopped",
            ChainStatus::Cancelled => "cancelled",
            ChainStatus::DeadlineExceeded => "deadline_exceeded",
            ChainStatus::ConfigError => "config_error",
        }
    }
}

/// How one hook's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookRunStatus {
    /// It answered continue.
    Continued,
    /// It replaced the data.
    Modified,
    /// It stopped the chain.
    Stopped,
    /// It reported an error (or its answer could not be used).
    Error,
    /// It panicked; the panic was caught.
    Panicked,
    /// It outlived its time limit; its answer, if any, was discarded.
    TimedOut,
    /// The chain was cancelled or reached its deadline while it ran.
    Cancelled,
}

impl HookRunStatus {
    /// The `snake_case` name used in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            HookRunStatus::Continued => "continued",
            HookRunStatus::Modified => "modified",
            HookRunStatus::Stopped => "stopped",
            HookRunStatus::Error => "error",
            HookRunStatus::Panicked => "panicked",
            HookRunStatus::TimedOut => "timed_out",
            HookRunStatus::Cancelled => "cancelled",
        }
    }

    /// Whether this run counts as the hook's failure.
    pub const fn is_failure(self) -> bool {
        matches!(
            self,
            HookRunStatus::Error | HookRunStatus::Panicked | HookRunStatus::TimedOut
        )
    }
}

/// One hook's run in a chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookRun {
    /// The hook's name.
    #[serde(serialize_with = "ser_arc_str")]
    pub name: Arc<str>,
    /// How it ended.
    pub status: HookRunStatus,
    /// How long it ran.
    #[serde(rename = "duration_ns", serialize_with = "ser_nanos")]
    pub duration: Duration,
    /// The error message, for failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl HookRun {
    /// The documented JSON form (what `Serialize` gives), built directly.
    pub fn into_json(self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("name".into(), Value::from(&*self.name));
        map.insert("status".into(), Value::from(self.status.as_str()));
        map.insert(
            "duration_ns".into(),
            Value::from(u64::try_from(self.duration.as_nanos()).unwrap_or(u64::MAX)),
        );
        if let Some(error) = self.error {
            map.insert("error".into(), Value::String(error));
        }
        Value::Object(map)
    }
}

/// Which hook stopped a chain, and why (for a chain refused because the hook
/// configuration is broken: the configuration file, and the error message).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StopInfo {
    /// The hook that answered stop.
    pub hook: String,
    /// Its reason.
    pub reason: String,
}

/// The result of running a chain.
///
/// JSON form (`to_json`):
/// `{"hook_type": "before_tool", "status": "completed", "data": ...,
///   "stopped_by": null | {"hook", "reason"},
///   "hooks": [{"name", "status", "duration_ns", "error"?}], "duration_ns": 1234}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainOutcome {
    /// The chain's type.
    pub hook_type: HookType,
    /// How it ended.
    pub status: ChainStatus,
    /// The data after the last hook that changed it.
    pub data: Value,
    /// The hook that stopped the chain, if one did; for
    /// [`ChainStatus::ConfigError`], the broken file and its error.
    pub stopped_by: Option<StopInfo>,
    /// Every hook that ran, in order. Disabled hooks and tool hooks whose
    /// matcher did not match are not listed.
    pub hooks: Vec<HookRun>,
    /// The whole chain's duration.
    #[serde(rename = "duration_ns", serialize_with = "ser_nanos")]
    pub duration: Duration,
}

impl ChainOutcome {
    /// Whether every enabled hook ran (no stop, no cancellation, no
    /// deadline, no broken configuration).
    pub fn completed(&self) -> bool {
        self.status == ChainStatus::Completed
    }

    /// The runs that failed (error, panic, time-out).
    pub fn failures(&self) -> impl Iterator<Item = &HookRun> {
        self.hooks.iter().filter(|run| run.status.is_failure())
    }

    /// The documented JSON form.
    pub fn to_json(&self) -> Value {
        // Every field serialises infallibly (strings, numbers, JSON values).
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The documented JSON form, moving the data instead of copying it.
    pub fn into_json(self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("hook_type".into(), Value::from(self.hook_type.as_str()));
        map.insert("status".into(), Value::from(self.status.as_str()));
        map.insert("data".into(), self.data);
        map.insert(
            "stopped_by".into(),
            self.stopped_by.map_or(Value::Null, |stop| {
                let mut map = serde_json::Map::new();
                map.insert("hook".into(), Value::String(stop.hook));
                map.insert("reason".into(), Value::String(stop.reason));
                Value::Object(map)
            }),
        );
        map.insert(
            "hooks".into(),
            Value::Array(self.hooks.into_iter().map(HookRun::into_json).collect()),
        );
        map.insert(
            "duration_ns".into(),
            Value::from(u64::try_from(self.duration.as_nanos()).unwrap_or(u64::MAX)),
        );
        Value::Object(map)
    }
}

#[allow(clippy::ref_option)]
fn ser_arc_str<S: Serializer>(value: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(value)
}

fn ser_nanos<S: Serializer>(value: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(value.as_nanos()).unwrap_or(u64::MAX))
}
