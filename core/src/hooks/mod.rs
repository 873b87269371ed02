//! The hook engine (seed 002): the 13 hook types, the [`Hook`] trait and its
//! adapters, hook contexts and results, the registry that runs chains by
//! priority, tool matchers, `.radium/hooks.toml`, the orchestration chains
//! around model and tool calls, script hooks, and the chain clock.
//!
//! Owns: every hook and every chain run. Uses: the shared error type and
//! `support` only. Every other part uses this one; this part uses none of them.

pub(crate) mod chain;
pub(crate) mod clock;
pub(crate) mod commands;
pub mod config;
pub mod context;
pub(crate) mod execute;
pub mod hook;
pub mod hook_type;
pub mod matcher;
pub(crate) mod options;
pub mod orchestration;
pub mod outcome;
pub mod registry;
pub mod result;
pub mod script;

pub use config::{parse_duration, HookConfigFile, HookLoader, HookSettings, WORKSPACE_CONFIG};
pub use context::{
    ErrorHookContext, HookContext, ModelHookContext, TelemetryHookContext, ToolHookContext,
};
pub use hook::{
    AsyncFnHook, ErrorHook, ErrorHookAdapter, FnHook, Hook, HookCall, HookFuture, HookMeta,
    HookOutput, ModelHook, ModelHookAdapter, TelemetryHook, TelemetryHookAdapter, ToolHook,
    ToolHookAdapter,
};
pub use hook_type::{HookPriority, HookType};
pub use matcher::ToolMatcher;
pub use orchestration::{
    ErrorHandling, HookDecision, HookExecutor, HookRegistryAdapter, OrchestratorHooks,
};
pub use outcome::{ChainOutcome, ChainStatus, HookRun, HookRunStatus, StopInfo};
pub use registry::{
    ExecuteOptions, HookInfo, HookOptions, HookRegistry, DEFAULT_ASYNC_TIMEOUT, MAX_HOOK_NAME_LEN,
};
pub use result::{HookError, HookResult};
pub use script::{ScriptHook, DEFAULT_MAX_OUTPUT};
