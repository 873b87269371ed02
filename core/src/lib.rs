//! # radium-core
//!
//! The engine behind every radium door (Rust, C, Lua in Neovim, Node in
//! VS Code, the `rad` CLI). This crate holds the hook engine of seed 002:
//!
//! - [`HookType`]: the 13 points at which hooks run;
//! - [`Hook`]: a hook, synchronous ([`HookCall::Ready`]) or asynchronous
//!   ([`HookCall::Pending`]); [`FnHook`] and [`AsyncFnHook`] make one from a
//!   closure; [`ModelHook`], [`ToolHook`], [`ErrorHook`] and
//!   [`TelemetryHook`] are typed variants with adapters;
//! - [`HookContext`] and the specialised contexts; [`HookResult`];
//! - [`HookRegistry`]: register, enable/disable, list and execute chains,
//!   returning a [`ChainOutcome`];
//! - [`HookConfigFile`] / [`HookLoader`]: `.radium/hooks.toml`;
//! - [`OrchestratorHooks`]: the chains around model calls, tool calls and errors.
//!
//! ```
//! use radium_core::{FnHook, HookContext, HookRegistry, HookResult, HookType};
//! use serde_json::json;
//!
//! let registry = HookRegistry::new();
//! registry
//!     .register(FnHook::new("add-flag", HookType::BeforeTool, |ctx| {
//!         let mut data = ctx.data.clone();
//!         data["arguments"]["dry_run"] = json!(true);
//!         Ok(HookResult::with_data(data))
//!     }))
//!     .unwrap();
//! let outcome = registry.execute(HookContext::new(
//!     HookType::BeforeTool,
//!     json!({"tool_name": "create", "arguments": {"path": "a.rs"}}),
//! ));
//! assert!(outcome.completed());
//! assert_eq!(outcome.data["arguments"]["dry_run"], json!(true));
//! ```

pub mod agent;
mod chain;
mod clock;
mod config;
mod context;
pub mod daemon;
pub mod edit;
pub mod editor;
mod engine;
mod error;
pub mod extension;
mod hook;
mod hook_type;
mod matcher;
mod orchestration;
mod outcome;
mod process;
mod protocol;
mod registry;
mod result;
mod script;
mod step;
pub mod trust;

pub use config::{parse_duration, HookConfigFile, HookLoader, HookSettings, WORKSPACE_CONFIG};
pub use context::{
    ErrorHookContext, HookContext, ModelHookContext, TelemetryHookContext, ToolHookContext,
};
pub use editor::apply::{apply_block, write_atomic, ApplyPreview};
pub use editor::context::{surrounding_lines, ContextLimits, EditorContext, SelectionRange};
pub use editor::extract::{extract_code_blocks, CodeBlock, ExtractedAnswer};
pub use editor::language::detect_language;
pub use engine::{Engine, EngineConfig, ABI_VERSION, COMMANDS};
pub use error::{Error, Result};
pub use hook::{
    AsyncFnHook, ErrorHook, ErrorHookAdapter, FnHook, Hook, HookCall, HookFuture, HookOutput,
    ModelHook, ModelHookAdapter, TelemetryHook, TelemetryHookAdapter, ToolHook, ToolHookAdapter,
};
pub use hook_type::{HookPriority, HookType};
pub use matcher::ToolMatcher;
pub use orchestration::{
    ErrorHandling, HookDecision, HookExecutor, HookRegistryAdapter, OrchestratorHooks,
};
pub use outcome::{ChainOutcome, ChainStatus, HookRun, HookRunStatus, StopInfo};
pub use protocol::{Request, Response};
pub use registry::{
    ExecuteOptions, HookInfo, HookOptions, HookRegistry, DEFAULT_ASYNC_TIMEOUT, MAX_HOOK_NAME_LEN,
};
pub use result::{HookError, HookResult};
pub use script::{ScriptHook, DEFAULT_MAX_OUTPUT};
pub use step::StepRequest;

/// Re-exported so hosts can cancel chains without depending on `tokio-util`.
pub use tokio_util::sync::CancellationToken;

/// The engine's version (the crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
