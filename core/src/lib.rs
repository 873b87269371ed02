//! # radium-core
//!
//! The engine behind every radium door (Rust, C, Lua in Neovim, Node in
//! VS Code, the `rad` CLI). Hosts usually need only the re-exports at the
//! crate root; the parts live in one module each, and dependencies run one
//! way (`protocol` on top, `hooks` under every other part, `support` at the
//! bottom; see `docs/architecture.md`):
//!
//! | part | what it is |
//! |---|---|
//! | [`hooks`] | the hook engine (seed 002): [`HookType`], the [`Hook`] trait and [`HookMeta`], [`FnHook`] / [`AsyncFnHook`], typed hooks ([`ModelHook`], [`ToolHook`], [`ErrorHook`], [`TelemetryHook`]) with adapters, [`HookContext`], [`HookResult`], the [`HookRegistry`] and its [`ChainOutcome`]s, `.radium/hooks.toml` ([`HookLoader`]), [`OrchestratorHooks`], [`ScriptHook`] |
//! | [`editor`] | the editor context ([`EditorContext`]), code blocks of an answer ([`ExtractedAnswer`]), [`apply_block`], language detection, the built-in `editor-context` and `code-apply` hooks |
//! | [`edit`] | the edit tools with history, undo/redo and dog-tag sessions (seed 001) |
//! | [`code`] | code intelligence (seed 001): `read-var`, `modify-var`, `rename-file`, `lsp-list` through language servers, with a tree-sitter fallback |
//! | [`agents`] | `agents.toml` and the one-shot agent step ([`StepRequest`]) |
//! | [`extensions`] | extension manifests, discovery, install/remove, workspace trust |
//! | [`protocol`] | the [`Request`] / [`Response`] envelope, the [`Engine`] that answers requests, the daemon |
//!
//! The hook engine on its own:
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
pub mod clipboard;
pub mod code;
pub mod edit;
pub mod editor;
mod error;
pub mod extensions;
pub mod hooks;
pub mod protocol;
pub mod sessions;
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
pub use protocol::{
    Engine, EngineConfig, Request, Response, ABI_VERSION, COMMANDS, MAX_CHECKED_AGENTS,
};
pub use support::atomic::write_atomic;
pub use support::json::{check_json_depth, json_kind, parse_json, MAX_JSON_DEPTH};
pub use support::log::{Entry as LogEntry, Level as LogLevel, Listener as LogListener, Log};
pub use support::names::{ENV_TRUNCATED, MAX_ENV_VALUE};
pub use support::paths::{PROTECTED_FOLDERS, SETTINGS_FILE};

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
