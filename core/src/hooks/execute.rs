//! Running chains on a [`HookRegistry`]: `execute`, `execute_with` and
//! `execute_async`, their `try_` forms, and the broken hook configuration a
//! registry may carry (`set_config_error`), which refuses every chain that
//! has a hook to run.

use std::future::Future;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::hooks::chain::ChainRun;
use crate::hooks::config::ConfigFault;
use crate::hooks::context::HookContext;
use crate::hooks::hook_type::HookType;
use crate::hooks::outcome::ChainOutcome;
use crate::hooks::registry::{ExecuteOptions, HookRegistry};
#[cfg(doc)]
use crate::hooks::{config::HookLoader, outcome::ChainStatus};

/// A finished chain: its outcome, and the configuration error when it was
/// refused for one.
type Finished = (ChainOutcome, Option<Error>);

fn checked((outcome, refusal): Finished) -> Result<ChainOutcome> {
    match refusal {
        Some(error) => Err(error),
        None => Ok(outcome),
    }
}

impl HookRegistry {
    /// Marks the registry's hook configuration as broken (`Some`) or fixed
    /// (`None`). While it is broken, a chain that has a hook to run (enabled
    /// and, for a tool hook, matching the tool) runs none: it ends with
    /// [`ChainStatus::ConfigError`], and the `try_` forms of `execute` answer
    /// the error. A chain with no hook to run completes as usual, since the
    /// file had nothing of it to configure.
    ///
    /// The error is kept as an [`Error::Config`] (file, line, column,
    /// message); an [`Error::Io`] (a file that could not be read) keeps its
    /// path and message, with line and column 0. An
    /// [`Engine`](crate::Engine) sets this when its workspace's
    /// `.radium/hooks.toml` cannot be applied; [`HookLoader::apply`] itself
    /// only returns the error.
    pub fn set_config_error(&self, error: Option<Error>) {
        self.inner
            .set_config_fault(error.map(|e| Arc::new(ConfigFault::new(e))));
    }

    /// The configuration error set by [`set_config_error`](Self::set_config_error), if any.
    pub fn config_error(&self) -> Option<Error> {
        self.inner.config_fault().map(|f| f.error())
    }

    /// `Err` with the configuration error when the registry's configuration
    /// is broken and the chain of `hook_type` has a hook that would run for
    /// `tool_name` (the context's `data.tool_name`): what the `try_` forms of
    /// `execute` would answer, checked without running anything. Work that
    /// runs several chains checks them all first, so it fails before doing
    /// anything rather than halfway.
    pub fn check_config(&self, hook_type: HookType, tool_name: Option<&str>) -> Result<()> {
        match self.inner.config_fault() {
            Some(fault) if self.has_hook_to_run(hook_type, tool_name) => Err(fault.error()),
            _ => Ok(()),
        }
    }

    fn has_hook_to_run(&self, hook_type: HookType, tool_name: Option<&str>) -> bool {
        self.inner
            .chain(hook_type)
            .iter()
            .any(|entry| entry.would_run(tool_name))
    }

    /// Runs the chain of `context.hook_type` on the caller's thread with
    /// default options.
    pub fn execute(&self, context: HookContext) -> ChainOutcome {
        self.execute_with(context, &ExecuteOptions::default())
    }

    /// Runs the chain of `context.hook_type` on the caller's thread.
    ///
    /// Synchronous hooks run right here; no runtime is needed or started. If
    /// the chain reaches an asynchronous hook, that hook runs on the engine's
    /// runtime and this thread waits for it (under its time limit, the
    /// chain's deadline and cancellation). Do not call this from one of the
    /// engine's own runtime threads.
    ///
    /// With a broken configuration (see [`set_config_error`](Self::set_config_error))
    /// a chain that has a hook to run ends with [`ChainStatus::ConfigError`];
    /// [`try_execute_with`](Self::try_execute_with) answers the error instead.
    pub fn execute_with(&self, context: HookContext, options: &ExecuteOptions) -> ChainOutcome {
        self.run_blocking(context, options).0
    }

    /// [`execute`](Self::execute), with a broken configuration as an error
    /// ([`Error::Config`]) instead of a [`ChainStatus::ConfigError`] outcome.
    pub fn try_execute(&self, context: HookContext) -> Result<ChainOutcome> {
        self.try_execute_with(context, &ExecuteOptions::default())
    }

    /// [`execute_with`](Self::execute_with), with a broken configuration as
    /// an error ([`Error::Config`]) instead of a [`ChainStatus::ConfigError`] outcome.
    pub fn try_execute_with(
        &self,
        context: HookContext,
        options: &ExecuteOptions,
    ) -> Result<ChainOutcome> {
        checked(self.run_blocking(context, options))
    }

    /// Runs the chain of `context.hook_type` as a future.
    ///
    /// The future is `Send + 'static` and needs no particular executor:
    /// synchronous hooks run inside `poll`, on whichever thread polls it;
    /// asynchronous hooks run on the engine's runtime, and their completion
    /// wakes the future. A host with a single-threaded event loop can poll it
    /// only on that thread, so its own hooks run there. Dropping the future
    /// stops an asynchronous hook in flight. A broken configuration is
    /// handled as in [`execute_with`](Self::execute_with).
    pub fn execute_async(
        &self,
        context: HookContext,
        options: ExecuteOptions,
    ) -> impl Future<Output = ChainOutcome> + Send + 'static {
        let run = self.run_async(context, options);
        async move { run.await.0 }
    }

    /// [`execute_async`](Self::execute_async), with a broken configuration
    /// as an error ([`Error::Config`]) instead of a [`ChainStatus::ConfigError`] outcome.
    pub fn try_execute_async(
        &self,
        context: HookContext,
        options: ExecuteOptions,
    ) -> impl Future<Output = Result<ChainOutcome>> + Send + 'static {
        let run = self.run_async(context, options);
        async move { checked(run.await) }
    }

    fn run_blocking(&self, context: HookContext, options: &ExecuteOptions) -> Finished {
        let chain = self.inner.chain(context.hook_type);
        if chain.is_empty() {
            return (ChainRun::empty(context), None);
        }
        let fault = self.inner.config_fault();
        let mut run = ChainRun::new(chain, context, options.clone(), fault);
        while let Some(mut pending) = run.advance() {
            let settled = pollster::block_on(pending.wait(&self.inner));
            run.complete(&pending, settled);
        }
        let refusal = run.refusal();
        (run.finish(), refusal)
    }

    fn run_async(
        &self,
        context: HookContext,
        options: ExecuteOptions,
    ) -> impl Future<Output = Finished> + Send + 'static {
        let chain = self.inner.chain(context.hook_type);
        let fault = if chain.is_empty() {
            None
        } else {
            self.inner.config_fault()
        };
        let inner = Arc::clone(&self.inner);
        async move {
            if chain.is_empty() {
                return (ChainRun::empty(context), None);
            }
            let mut run = ChainRun::new(chain, context, options, fault);
            while let Some(mut pending) = run.advance() {
                let settled = pending.wait(&inner).await;
                run.complete(&pending, settled);
            }
            let refusal = run.refusal();
            (run.finish(), refusal)
        }
    }
}
