//! [`HookRegistry`]: registration, enable/disable, and applying
//! configuration (running chains is in `execute.rs`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use arc_swap::{ArcSwap, ArcSwapOption};
use tokio::runtime::{Handle, Runtime};

use crate::error::{Error, Result};
use crate::hooks::config::{ConfigFault, HookConfigFile, HookSettings};
use crate::hooks::hook::Hook;
use crate::hooks::hook_type::{HookPriority, HookType};
use crate::hooks::matcher::ToolMatcher;
use crate::support::process::block_sigpipe;

pub use super::options::{
    ExecuteOptions, HookInfo, HookOptions, DEFAULT_ASYNC_TIMEOUT, MAX_HOOK_NAME_LEN,
};

pub(crate) struct Entry {
    pub(crate) name: Arc<str>,
    pub(crate) hook: Arc<dyn Hook>,
    pub(crate) hook_type: HookType,
    pub(crate) priority: HookPriority,
    pub(crate) seq: u64,
    pub(crate) enabled: AtomicBool,
    pub(crate) matcher: Option<ToolMatcher>,
    pub(crate) timeout: Option<Duration>,
}

impl Entry {
    /// Whether the hook runs in a chain for `tool_name`: it is enabled and,
    /// if it has a matcher, the tool matches.
    pub(crate) fn would_run(&self, tool_name: Option<&str>) -> bool {
        self.enabled.load(Ordering::Relaxed)
            && self
                .matcher
                .as_ref()
                .is_none_or(|m| tool_name.is_some_and(|t| m.matches(t)))
    }

    fn info(&self) -> HookInfo {
        HookInfo {
            name: self.name.to_string(),
            hook_type: self.hook_type,
            priority: self.priority,
            enabled: self.enabled.load(Ordering::Relaxed),
            matcher: self.matcher.as_ref().map(|m| m.pattern().to_owned()),
            timeout_ms: self
                .timeout
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
        }
    }
}

/// What a registration asked for, kept so configuration can be re-applied.
struct Registered {
    entry: Arc<Entry>,
    requested: HookOptions,
    base_priority: HookPriority,
}

#[derive(Default)]
struct WriteState {
    by_name: HashMap<Arc<str>, Registered>,
    next_seq: u64,
    overrides: HashMap<String, HookSettings>,
}

pub(crate) type Chain = Arc<Vec<Arc<Entry>>>;

pub(crate) struct Inner {
    chains: [ArcSwap<Vec<Arc<Entry>>>; HookType::COUNT],
    write: Mutex<WriteState>,
    runtime: OnceLock<std::result::Result<Runtime, String>>,
    /// The broken configuration every chain with a hook to run reports.
    config_error: ArcSwapOption<ConfigFault>,
    /// Whether `config_error` is set: a chain run reads this flag, and
    /// loads the pointer only when it is set.
    config_broken: AtomicBool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Dropping a runtime from inside another runtime's context panics;
        // shutting it down in the background never does.
        if let Some(Ok(runtime)) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Inner {
    /// The current snapshot of the chain of `hook_type`.
    pub(crate) fn chain(&self, hook_type: HookType) -> Chain {
        self.chains[hook_type.index()].load_full()
    }

    /// The broken configuration, if one is set.
    pub(crate) fn config_fault(&self) -> Option<Arc<ConfigFault>> {
        if self.config_broken.load(Ordering::Acquire) {
            self.config_error.load_full()
        } else {
            None
        }
    }

    /// Sets (or clears) the broken configuration.
    pub(crate) fn set_config_fault(&self, fault: Option<Arc<ConfigFault>>) {
        let broken = fault.is_some();
        self.config_error.store(fault);
        self.config_broken.store(broken, Ordering::Release);
    }

    pub(crate) fn runtime(&self) -> Result<&Runtime> {
        self.runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("radium-hooks")
                    // The engine's threads write to child processes' pipes:
                    // a child gone early must give EPIPE, never a SIGPIPE
                    // that kills a host which does not ignore it.
                    .on_thread_start(block_sigpipe)
                    .enable_time()
                    .enable_io()
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| Error::Runtime(e.clone()))
    }
}

/// The registry of hooks: safe to share across threads (it is a cheap
/// handle; clones share the same hooks).
///
/// Hooks of each type are kept sorted by priority (higher first, ties in
/// registration order) when registered, and published as an immutable
/// snapshot: executing a chain takes no lock, and registering or
/// unregistering during a run affects the next run only.
#[derive(Clone)]
pub struct HookRegistry {
    pub(crate) inner: Arc<Inner>,
}

impl Default for HookRegistry {
    fn default() -> Self {
        HookRegistry::new()
    }
}

impl std::fmt::Debug for HookRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookRegistry")
            .field("hooks", &self.list())
            .finish()
    }
}

fn validate_name(name: &str) -> Result<()> {
    let reason = if name.trim().is_empty() {
        "a hook name cannot be empty"
    } else if name.len() > MAX_HOOK_NAME_LEN {
        "a hook name is at most 128 bytes"
    } else if name.chars().any(char::is_control) {
        "a hook name cannot contain control characters"
    } else {
        return Ok(());
    };
    Err(Error::InvalidHookName {
        name: name.chars().take(MAX_HOOK_NAME_LEN).collect(),
        reason,
    })
}

fn check_matcher(name: &str, hook_type: HookType, matcher: Option<&ToolMatcher>) -> Result<()> {
    match matcher {
        Some(m) if !hook_type.is_tool_hook() => Err(Error::InvalidMatcher {
            pattern: m.pattern().to_owned(),
            reason: format!(
                "hook `{name}` is a {hook_type} hook; matchers apply only to before_tool, after_tool and tool_selection hooks"
            ),
        }),
        _ => Ok(()),
    }
}

impl HookRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        HookRegistry {
            inner: Arc::new(Inner {
                chains: std::array::from_fn(|_| ArcSwap::from_pointee(Vec::new())),
                write: Mutex::new(WriteState::default()),
                runtime: OnceLock::new(),
                config_error: ArcSwapOption::empty(),
                config_broken: AtomicBool::new(false),
            }),
        }
    }

    fn write(&self) -> MutexGuard<'_, WriteState> {
        // A panic while holding this lock cannot leave the state half-written
        // (every change is built aside and then swapped in), so a poisoned
        // lock is safe to reuse.
        self.inner
            .write
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers `hook` with its own name, type and priority.
    pub fn register(&self, hook: impl Hook) -> Result<()> {
        self.register_arc(Arc::new(hook), HookOptions::default())
    }

    /// Registers `hook` with extra options.
    pub fn register_with(&self, hook: impl Hook, options: HookOptions) -> Result<()> {
        self.register_arc(Arc::new(hook), options)
    }

    /// Registers a shared hook with extra options. A name already registered
    /// is an error; settings from applied configuration (`hooks.toml`) for
    /// this name take precedence over `options`.
    pub fn register_arc(&self, hook: Arc<dyn Hook>, options: HookOptions) -> Result<()> {
        let name: Arc<str> = Arc::from(hook.name());
        validate_name(&name)?;
        let hook_type = hook.hook_type();
        check_matcher(&name, hook_type, options.matcher.as_ref())?;
        let base_priority = hook.priority();
        let mut state = self.write();
        if state.by_name.contains_key(&name) {
            return Err(Error::DuplicateHook(name.to_string()));
        }
        let seq = state.next_seq;
        let entry = build_entry(
            &name,
            hook,
            base_priority,
            &options,
            state.overrides.get(&*name),
            seq,
        )?;
        state.next_seq += 1;
        state.by_name.insert(
            name,
            Registered {
                entry: Arc::new(entry),
                requested: options,
                base_priority,
            },
        );
        self.publish(&state, hook_type);
        Ok(())
    }

    /// Rebuilds and publishes the sorted chain of `hook_type`.
    fn publish(&self, state: &WriteState, hook_type: HookType) {
        let mut chain: Vec<Arc<Entry>> = state
            .by_name
            .values()
            .filter(|r| r.entry.hook_type == hook_type)
            .map(|r| Arc::clone(&r.entry))
            .collect();
        chain.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.seq.cmp(&b.seq)));
        self.inner.chains[hook_type.index()].store(Arc::new(chain));
    }

    /// Removes the hook named `name`. Unknown names are an error.
    pub fn unregister(&self, name: &str) -> Result<()> {
        let mut state = self.write();
        let removed = state
            .by_name
            .remove(name)
            .ok_or_else(|| Error::UnknownHook(name.to_owned()))?;
        self.publish(&state, removed.entry.hook_type);
        Ok(())
    }

    /// Enables or disables the hook named `name` at run time. Unknown names are an error.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        let state = self.write();
        let registered = state
            .by_name
            .get(name)
            .ok_or_else(|| Error::UnknownHook(name.to_owned()))?;
        registered.entry.enabled.store(enabled, Ordering::Relaxed);
        Ok(())
    }

    /// Enables the hook named `name`.
    pub fn enable(&self, name: &str) -> Result<()> {
        self.set_enabled(name, true)
    }

    /// Disables the hook named `name`.
    pub fn disable(&self, name: &str) -> Result<()> {
        self.set_enabled(name, false)
    }

    /// Whether a hook named `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.write().by_name.contains_key(name)
    }

    /// Whether the hook named `name` is enabled (`None` when unknown).
    pub fn is_enabled(&self, name: &str) -> Option<bool> {
        self.write()
            .by_name
            .get(name)
            .map(|r| r.entry.enabled.load(Ordering::Relaxed))
    }

    /// The number of registered hooks.
    pub fn len(&self) -> usize {
        self.write().by_name.len()
    }

    /// Whether no hook is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every registered hook, by type (in [`HookType::ALL`] order) and then
    /// in execution order.
    pub fn list(&self) -> Vec<HookInfo> {
        HookType::ALL
            .iter()
            .flat_map(|&t| self.list_type(t))
            .collect()
    }

    /// The hooks of `hook_type`, in execution order.
    pub fn list_type(&self, hook_type: HookType) -> Vec<HookInfo> {
        self.inner.chains[hook_type.index()]
            .load()
            .iter()
            .map(|e| e.info())
            .collect()
    }

    /// Applies a parsed `hooks.toml`: each entry's settings (priority,
    /// enabled, matcher, timeout, config) apply to the hook of that name now
    /// if it is registered, and to a hook registered later under that name.
    /// A type that contradicts the registered hook's type is an error naming
    /// the file and line, and then nothing is applied.
    pub fn apply_config(&self, config: &HookConfigFile) -> Result<()> {
        let mut state = self.write();
        // Check everything first, so a bad file changes nothing.
        let mut rebuilt = Vec::new();
        for settings in &config.hooks {
            if let Some(registered) = state.by_name.get(settings.name.as_str()) {
                let entry = &registered.entry;
                let mut options = registered.requested.clone();
                options.disabled = !entry.enabled.load(Ordering::Relaxed);
                let new_entry = build_entry(
                    &entry.name,
                    Arc::clone(&entry.hook),
                    registered.base_priority,
                    &options,
                    Some(settings),
                    entry.seq,
                )?;
                rebuilt.push(new_entry);
            }
        }
        for settings in &config.hooks {
            state
                .overrides
                .insert(settings.name.clone(), settings.clone());
        }
        let mut touched = Vec::new();
        for entry in rebuilt {
            touched.push(entry.hook_type);
            if let Some(registered) = state.by_name.get_mut(&*entry.name) {
                registered.entry = Arc::new(entry);
            }
        }
        touched.sort();
        touched.dedup();
        for hook_type in touched {
            self.publish(&state, hook_type);
        }
        Ok(())
    }

    /// A handle to the runtime the engine owns for asynchronous hooks,
    /// started on first use.
    pub fn runtime_handle(&self) -> Result<Handle> {
        Ok(self.inner.runtime()?.handle().clone())
    }
}

fn build_entry(
    name: &Arc<str>,
    hook: Arc<dyn Hook>,
    base_priority: HookPriority,
    options: &HookOptions,
    settings: Option<&HookSettings>,
    seq: u64,
) -> Result<Entry> {
    let hook_type = hook.hook_type();
    let mut entry = Entry {
        name: Arc::clone(name),
        hook,
        hook_type,
        priority: options.priority.unwrap_or(base_priority),
        seq,
        enabled: AtomicBool::new(!options.disabled),
        matcher: options.matcher.clone(),
        timeout: options.timeout,
    };
    if let Some(s) = settings {
        if let Some(configured) = s.hook_type {
            if configured != hook_type {
                return Err(s.error(format!(
                    "field `type`: hook `{name}` is configured as {configured} but registered as {hook_type}"
                )));
            }
        }
        if let Some(matcher) = &s.matcher {
            check_matcher(name, hook_type, Some(matcher))
                .map_err(|e| s.error(format!("field `matcher`: {e}")))?;
            entry.matcher = Some(matcher.clone());
        }
        if let Some(p) = s.priority {
            entry.priority = p;
        }
        if let Some(enabled) = s.enabled {
            entry.enabled = AtomicBool::new(enabled);
        }
        if let Some(t) = s.timeout {
            entry.timeout = Some(t);
        }
        if let Some(config) = &s.config {
            entry
                .hook
                .configure(config)
                .map_err(|e| s.error(format!("field `config`: hook `{name}` refused it: {e}")))?;
        }
    }
    Ok(entry)
}
