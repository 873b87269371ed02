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

pub mod agents;
pub mod edit;
pub mod editor;
mod error;
pub mod extensions;
pub mod hooks;
pub mod protocol;
mod support;

pub use agents::StepRequest;
pub use editor::apply::{apply_block, ApplyPreview};
pub use editor::context::{surrounding_lines, ContextLimits, EditorContext, SelectionRange};
pub use editor::extract::{extract_code_blocks, CodeBlock, ExtractedAnswer};
pub use editor::language::detect_language;
pub use error::{Error, Result};
pub use hooks::{
    parse_duration, AsyncFnHook, ChainOutcome, ChainStatus, ErrorHandling, ErrorHook,
    ErrorHookAdapter, ErrorHookContext, ExecuteOptions, FnHook, Hook, HookCall, HookConfigFile,
    HookContext, HookDecision, HookError, HookExecutor, HookFuture, HookInfo, HookLoader, HookMeta,
    HookOptions, HookOutput, HookPriority, HookRegistry, HookRegistryAdapter, HookResult, HookRun,
    HookRunStatus, HookSettings, HookType, ModelHook, ModelHookAdapter, ModelHookContext,
    OrchestratorHooks, ScriptHook, StopInfo, TelemetryHook, TelemetryHookAdapter,
    TelemetryHookContext, ToolHook, ToolHookAdapter, ToolHookContext, ToolMatcher,
    DEFAULT_ASYNC_TIMEOUT, DEFAULT_MAX_OUTPUT, MAX_HOOK_NAME_LEN, WORKSPACE_CONFIG,
};
pub use protocol::{Engine, EngineConfig, Request, Response, ABI_VERSION, COMMANDS};
pub use support::atomic::write_atomic;

/// Agent configuration (the path before the parts had folders; see [`agents::config`]).
pub use agents::config as agent;
/// Extension manifests and discovery (also [`extensions::manifest`]).
pub use extensions::manifest as extension;
/// The trust store (also [`extensions::trust`]).
pub use extensions::trust;
/// The daemon (also [`protocol::daemon`]).
pub use protocol::daemon;

/// Re-exported so hosts can cancel chains without depending on `tokio-util`.
pub use tokio_util::sync::CancellationToken;

/// The engine's version (the crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
