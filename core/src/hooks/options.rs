//! How hooks are registered and chains are run: [`HookOptions`],
//! [`ExecuteOptions`], and [`HookInfo`] as the registry lists a hook.

use std::time::{Duration, Instant};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::hooks::hook_type::{HookPriority, HookType};
use crate::hooks::matcher::ToolMatcher;
#[cfg(doc)]
use crate::hooks::outcome::ChainStatus;
#[cfg(doc)]
use crate::hooks::registry::HookRegistry;

/// The default time limit of an asynchronous hook: 30 seconds.
pub const DEFAULT_ASYNC_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest hook name accepted, in bytes.
pub const MAX_HOOK_NAME_LEN: usize = 128;

/// Registration settings that are not part of the hook itself.
#[derive(Debug, Clone, Default)]
pub struct HookOptions {
    /// Overrides the hook's own priority.
    pub priority: Option<HookPriority>,
    /// Registers the hook disabled.
    pub disabled: bool,
    /// Limits a tool hook to some tools (tool hook types only).
    pub matcher: Option<ToolMatcher>,
    /// The hook's time limit. Asynchronous hooks are stopped when it passes
    /// (default [`DEFAULT_ASYNC_TIMEOUT`]); a synchronous hook cannot be
    /// interrupted, so one that returns after its limit is recorded as timed
    /// out and its answer is discarded.
    pub timeout: Option<Duration>,
}

/// How to run one chain.
#[derive(Debug, Clone, Default)]
pub struct ExecuteOptions {
    /// The chain ends with [`ChainStatus::DeadlineExceeded`] once this passes.
    pub deadline: Option<Instant>,
    /// The chain ends with [`ChainStatus::Cancelled`] once this fires.
    pub cancel: Option<CancellationToken>,
}

impl ExecuteOptions {
    /// Options with a deadline `timeout` from now.
    /// A time-out too large for the clock means no deadline.
    pub fn with_timeout(timeout: Duration) -> Self {
        ExecuteOptions {
            deadline: Instant::now().checked_add(timeout),
            cancel: None,
        }
    }

    /// Options with a cancellation token.
    pub fn with_cancel(cancel: CancellationToken) -> Self {
        ExecuteOptions {
            deadline: None,
            cancel: Some(cancel),
        }
    }
}

/// A registered hook, as [`HookRegistry::list`] reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookInfo {
    /// The hook's name.
    pub name: String,
    /// Its type.
    pub hook_type: HookType,
    /// Its effective priority.
    pub priority: HookPriority,
    /// Whether it runs.
    pub enabled: bool,
    /// Its tool matcher pattern, if any.
    pub matcher: Option<String>,
    /// Its time limit in milliseconds, if one was set.
    pub timeout_ms: Option<u64>,
}
