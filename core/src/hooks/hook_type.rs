//! The 13 hook types and hook priorities.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;
use crate::support::names::HOOK_TYPES;

/// The point in an agent's run at which a hook fires.
///
/// In configuration and JSON a hook type is written in `snake_case`
/// (`before_model`, `error_recovery`, ...). Parsing an unknown name is an
/// error that lists every valid name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum HookType {
    /// Before a model call; may rewrite the prompt or refuse the call.
    BeforeModel = 0,
    /// After a model call; may rewrite the response.
    AfterModel = 1,
    /// Before a tool runs; may rewrite the arguments or refuse the call.
    BeforeTool = 2,
    /// After a tool ran; may rewrite the result.
    AfterTool = 3,
    /// While the agent chooses among tools; may narrow or reorder them.
    ToolSelection = 4,
    /// First look at an error before it propagates.
    ErrorInterception = 5,
    /// Rewrites an error message.
    ErrorTransformation = 6,
    /// Attempts to recover from an error.
    ErrorRecovery = 7,
    /// Logs an error.
    ErrorLogging = 8,
    /// Collects telemetry events.
    TelemetryCollection = 9,
    /// Custom logging.
    CustomLogging = 10,
    /// Aggregates metrics.
    MetricsAggregation = 11,
    /// Watches timings.
    PerformanceMonitoring = 12,
}

impl HookType {
    /// Every hook type, in declaration order.
    pub const ALL: [HookType; 13] = [
        HookType::BeforeModel,
        HookType::AfterModel,
        HookType::BeforeTool,
        HookType::AfterTool,
        HookType::ToolSelection,
        HookType::ErrorInterception,
        HookType::ErrorTransformation,
        HookType::ErrorRecovery,
        HookType::ErrorLogging,
        HookType::TelemetryCollection,
        HookType::CustomLogging,
        HookType::MetricsAggregation,
        HookType::PerformanceMonitoring,
    ];

    /// The number of hook types.
    pub const COUNT: usize = 13;

    /// The `snake_case` name used in configuration and JSON.
    pub const fn as_str(self) -> &'static str {
        HOOK_TYPES[self as usize]
    }

    /// The index of this type in [`HookType::ALL`] (also its integer code).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The hook type with integer code `code`, if there is one.
    pub fn from_index(code: usize) -> Option<HookType> {
        HookType::ALL.get(code).copied()
    }

    /// Whether hooks of this type carry a tool name that a
    /// [`ToolMatcher`](crate::ToolMatcher) can select on.
    pub const fn is_tool_hook(self) -> bool {
        matches!(
            self,
            HookType::BeforeTool | HookType::AfterTool | HookType::ToolSelection
        )
    }

    /// The category of this type: `model`, `tool`, `error` or `telemetry`.
    pub const fn category(self) -> &'static str {
        match self {
            HookType::BeforeModel | HookType::AfterModel => "model",
            HookType::BeforeTool | HookType::AfterTool | HookType::ToolSelection => "tool",
            HookType::ErrorInterception
            | HookType::ErrorTransformation
            | HookType::ErrorRecovery
            | HookType::ErrorLogging => "error",
            _ => "telemetry",
        }
    }

    /// The valid names, comma separated, for error messages.
    pub fn valid_names() -> String {
        HOOK_TYPES.join(", ")
    }
}

impl fmt::Display for HookType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for HookType {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HookType::ALL
            .iter()
            .copied()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| Error::UnknownHookType(s.to_owned()))
    }
}

impl Serialize for HookType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for HookType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// A hook's priority: higher runs first. The default is 100.
///
/// Conventional bands (from seed 002): 200 and above for hooks that must run
/// first, 100–199 for standard hooks, below 100 for optional ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HookPriority(pub i32);

impl HookPriority {
    /// The default priority, 100.
    pub const DEFAULT: HookPriority = HookPriority(100);
}

impl Default for HookPriority {
    fn default() -> Self {
        HookPriority::DEFAULT
    }
}

impl From<i32> for HookPriority {
    fn from(value: i32) -> Self {
        HookPriority(value)
    }
}

impl fmt::Display for HookPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
