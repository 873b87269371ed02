//! The [`Hook`] trait, closure hooks, and the specialised hook traits with their adapters.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::hooks::context::{
    ErrorHookContext, HookContext, ModelHookContext, TelemetryHookContext, ToolHookContext,
};
use crate::hooks::hook_type::{HookPriority, HookType};
use crate::hooks::result::{HookError, HookResult};

/// What a hook's answer resolves to.
pub type HookOutput = std::result::Result<HookResult, HookError>;

/// The future of an asynchronous hook. It owns everything it needs
/// (`'static`), so the engine can run it on its own runtime.
pub type HookFuture = Pin<Box<dyn Future<Output = HookOutput> + Send + 'static>>;

/// A hook's answer to [`Hook::call`]: ready now, or a future to wait for.
///
/// Synchronous hooks answer [`HookCall::Ready`] and run on the caller's
/// thread with no allocation and no runtime. Hooks that wait (scripts,
/// network) answer [`HookCall::Pending`]; the engine runs that future on the
/// runtime it owns, under the hook's time limit. Hooks that only wait for
/// the host to answer (a JavaScript Promise settled on the JS thread) answer
/// [`HookCall::OnHost`]: that future is polled where the chain is polled,
/// which saves two thread hops.
#[non_exhaustive]
pub enum HookCall {
    /// The answer, computed synchronously.
    Ready(HookOutput),
    /// A future that will produce the answer, run on the engine's runtime.
    Pending(HookFuture),
    /// A future that will produce the answer, polled on the thread that
    /// polls the chain (under the hook's time limit, like `Pending`). It
    /// must never block: it should only wait for something the host will
    /// do on that thread.
    OnHost(HookFuture),
}

impl HookCall {
    /// Wraps a future as a pending answer (run on the engine's runtime).
    pub fn pending<F>(future: F) -> Self
    where
        F: Future<Output = HookOutput> + Send + 'static,
    {
        HookCall::Pending(Box::pin(future))
    }

    /// Wraps a future that waits for the host as a pending answer, polled
    /// on the thread that polls the chain (see [`HookCall::OnHost`]).
    pub fn pending_on_host<F>(future: F) -> Self
    where
        F: Future<Output = HookOutput> + Send + 'static,
    {
        HookCall::OnHost(Box::pin(future))
    }
}

impl From<HookOutput> for HookCall {
    fn from(output: HookOutput) -> Self {
        HookCall::Ready(output)
    }
}

impl From<HookResult> for HookCall {
    fn from(result: HookResult) -> Self {
        HookCall::Ready(Ok(result))
    }
}

/// What identifies a hook: its name (unique in a registry), the point at
/// which it runs and its priority (higher runs first; 100 by default).
/// Every [`Hook`] holds one and answers it from [`Hook::meta`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookMeta {
    /// The hook's name.
    pub name: String,
    /// The point at which the hook runs.
    pub hook_type: HookType,
    /// The hook's priority.
    pub priority: HookPriority,
}

impl HookMeta {
    /// A hook named `name` of `hook_type`, priority 100.
    pub fn new(name: impl Into<String>, hook_type: HookType) -> Self {
        HookMeta {
            name: name.into(),
            hook_type,
            priority: HookPriority::DEFAULT,
        }
    }

    /// The same with another priority.
    #[must_use]
    pub fn with_priority(mut self, priority: impl Into<HookPriority>) -> Self {
        self.priority = priority.into();
        self
    }
}

/// A hook: something that runs at one [`HookType`] point and may change the
/// data the next hook sees.
///
/// Unlike seed 002's `async fn execute`, [`call`](Hook::call) is a plain
/// function that either answers at once or hands back a future: a chain of
/// synchronous hooks then costs a virtual call per hook, not a boxed future.
pub trait Hook: Send + Sync + 'static {
    /// The hook's name, type and priority, held once (see [`HookMeta`]).
    fn meta(&self) -> &HookMeta;

    /// The hook's name, unique in a registry.
    fn name(&self) -> &str {
        &self.meta().name
    }

    /// The point at which the hook runs.
    fn hook_type(&self) -> HookType {
        self.meta().hook_type
    }

    /// The hook's priority (higher runs first).
    fn priority(&self) -> HookPriority {
        self.meta().priority
    }

    /// Runs the hook on `context`.
    fn call(&self, context: &HookContext) -> HookCall;

    /// Receives the `[hooks.config]` table of `.radium/hooks.toml` for this
    /// hook (as JSON) when configuration is applied. The default ignores it.
    fn configure(&self, config: &Value) -> std::result::Result<(), HookError> {
        let _ = config;
        Ok(())
    }
}

/// A synchronous hook made from a closure.
///
/// ```
/// use radium_core::{FnHook, HookResult, HookType};
/// let hook = FnHook::new("shout", HookType::BeforeModel, |ctx| {
///     let input = ctx.data["input"].as_str().unwrap_or_default().to_uppercase();
///     Ok(HookResult::with_data(serde_json::json!({ "input": input })))
/// })
/// .with_priority(150);
/// ```
pub struct FnHook<F> {
    meta: HookMeta,
    f: F,
}

impl<F> FnHook<F>
where
    F: Fn(&HookContext) -> HookOutput + Send + Sync + 'static,
{
    /// A hook named `name` of `hook_type`, priority 100, running `f`.
    pub fn new(name: impl Into<String>, hook_type: HookType, f: F) -> Self {
        FnHook {
            meta: HookMeta::new(name, hook_type),
            f,
        }
    }

    /// The same hook with another priority.
    #[must_use]
    pub fn with_priority(mut self, priority: impl Into<HookPriority>) -> Self {
        self.meta.priority = priority.into();
        self
    }
}

impl<F> Hook for FnHook<F>
where
    F: Fn(&HookContext) -> HookOutput + Send + Sync + 'static,
{
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        HookCall::Ready((self.f)(context))
    }
}

/// An asynchronous hook made from a closure returning a future; the future
/// gets its own copy of the context and runs on the engine's runtime.
pub struct AsyncFnHook<F> {
    meta: HookMeta,
    f: F,
}

impl<F, Fut> AsyncFnHook<F>
where
    F: Fn(HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HookOutput> + Send + 'static,
{
    /// A hook named `name` of `hook_type`, priority 100, running `f`.
    pub fn new(name: impl Into<String>, hook_type: HookType, f: F) -> Self {
        AsyncFnHook {
            meta: HookMeta::new(name, hook_type),
            f,
        }
    }

    /// The same hook with another priority.
    #[must_use]
    pub fn with_priority(mut self, priority: impl Into<HookPriority>) -> Self {
        self.meta.priority = priority.into();
        self
    }
}

impl<F, Fut> Hook for AsyncFnHook<F>
where
    F: Fn(HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HookOutput> + Send + 'static,
{
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        HookCall::pending((self.f)(context.clone()))
    }
}

fn check_category(name: &str, hook_type: HookType, category: &str) -> Result<()> {
    if hook_type.category() == category {
        Ok(())
    } else {
        Err(Error::InvalidContext(format!(
            "hook `{name}` is a {category} hook and cannot run as `{hook_type}` (a {} hook)",
            hook_type.category()
        )))
    }
}

macro_rules! adapter {
    ($(#[$doc:meta])* $adapter:ident, $trait_:ident, $category:literal) => {
        $(#[$doc])*
        pub struct $adapter<H: ?Sized> {
            inner: Arc<H>,
            meta: HookMeta,
        }

        impl<H: $trait_ + ?Sized> $adapter<H> {
            /// Adapts `inner` to run as `hook_type`, which must be of the
            /// adapter's category (an error otherwise). The adapter takes the
            /// inner hook's name; use [`with_name`](Self::with_name) to
            /// register one hook under several types.
            pub fn new(inner: Arc<H>, hook_type: HookType) -> Result<Self> {
                let name = inner.name().to_owned();
                check_category(&name, hook_type, $category)?;
                let meta = HookMeta::new(name, hook_type).with_priority(inner.priority());
                Ok($adapter { inner, meta })
            }

            /// The same adapter registered under another name.
            #[must_use]
            pub fn with_name(mut self, name: impl Into<String>) -> Self {
                self.meta.name = name.into();
                self
            }
        }
    };
}

/// A hook around model calls, reading [`ModelHookContext`].
pub trait ModelHook: Send + Sync + 'static {
    /// The hook's name.
    fn name(&self) -> &str;
    /// The hook's priority; 100 unless overridden.
    fn priority(&self) -> HookPriority {
        HookPriority::DEFAULT
    }
    /// Runs before a model call. Return modified data (with a new `input`) to change the prompt.
    fn before_model(&self, context: &ModelHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
    /// Runs after a model call. Return modified data (with a new `response`) to change the answer.
    fn after_model(&self, context: &ModelHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
}

adapter!(
    /// Runs a [`ModelHook`] as a [`Hook`] of type `before_model` or `after_model`.
    ModelHookAdapter,
    ModelHook,
    "model"
);

impl<H: ModelHook + ?Sized> Hook for ModelHookAdapter<H> {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        HookCall::Ready(ModelHookContext::from_hook_context(context).map_or_else(
            |e| Err(e.into()),
            |ctx| match self.meta.hook_type {
                HookType::AfterModel => self.inner.after_model(&ctx),
                _ => self.inner.before_model(&ctx),
            },
        ))
    }
}

/// A hook around tool calls, reading [`ToolHookContext`].
pub trait ToolHook: Send + Sync + 'static {
    /// The hook's name.
    fn name(&self) -> &str;
    /// The hook's priority; 100 unless overridden.
    fn priority(&self) -> HookPriority {
        HookPriority::DEFAULT
    }
    /// Runs before a tool. Return modified data (with new `arguments`) to change the call, or stop to refuse it.
    fn before_tool(&self, context: &ToolHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
    /// Runs after a tool. Return modified data (with a new `result`) to change what the agent sees.
    fn after_tool(&self, context: &ToolHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
    /// Runs when the agent has chosen a tool. Return modified data (another `tool_name` or `arguments`) or stop to veto it.
    fn tool_selection(&self, context: &ToolHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
}

adapter!(
    /// Runs a [`ToolHook`] as a [`Hook`] of type `before_tool`, `after_tool` or `tool_selection`.
    ToolHookAdapter,
    ToolHook,
    "tool"
);

impl<H: ToolHook + ?Sized> Hook for ToolHookAdapter<H> {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        HookCall::Ready(ToolHookContext::from_hook_context(context).map_or_else(
            |e| Err(e.into()),
            |ctx| match self.meta.hook_type {
                HookType::AfterTool => self.inner.after_tool(&ctx),
                HookType::ToolSelection => self.inner.tool_selection(&ctx),
                _ => self.inner.before_tool(&ctx),
            },
        ))
    }
}

/// A hook in the error chain, reading [`ErrorHookContext`].
pub trait ErrorHook: Send + Sync + 'static {
    /// The hook's name.
    fn name(&self) -> &str;
    /// The hook's priority; 100 unless overridden.
    fn priority(&self) -> HookPriority {
        HookPriority::DEFAULT
    }
    /// `error_interception`: stop to mark the error handled (it does not propagate).
    fn intercept_error(&self, context: &ErrorHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
    /// `error_transformation`: return modified data with a new `error_message`.
    fn transform_error(&self, context: &ErrorHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
    /// `error_recovery`: return modified data with a `recovery` value to recover.
    fn recover_error(&self, context: &ErrorHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
    /// `error_logging`: log the error; the result is ignored.
    fn log_error(&self, context: &ErrorHookContext) -> HookOutput {
        let _ = context;
        Ok(HookResult::Continue)
    }
}

adapter!(
    /// Runs an [`ErrorHook`] as a [`Hook`] of one of the four error types.
    ErrorHookAdapter,
    ErrorHook,
    "error"
);

impl<H: ErrorHook + ?Sized> Hook for ErrorHookAdapter<H> {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        HookCall::Ready(ErrorHookContext::from_hook_context(context).map_or_else(
            |e| Err(e.into()),
            |ctx| match self.meta.hook_type {
                HookType::ErrorTransformation => self.inner.transform_error(&ctx),
                HookType::ErrorRecovery => self.inner.recover_error(&ctx),
                HookType::ErrorLogging => self.inner.log_error(&ctx),
                _ => self.inner.intercept_error(&ctx),
            },
        ))
    }
}

/// A telemetry hook, reading [`TelemetryHookContext`].
pub trait TelemetryHook: Send + Sync + 'static {
    /// The hook's name.
    fn name(&self) -> &str;
    /// The hook's priority; 100 unless overridden.
    fn priority(&self) -> HookPriority {
        HookPriority::DEFAULT
    }
    /// Receives an event of one of the four telemetry types.
    fn on_event(&self, hook_type: HookType, context: &TelemetryHookContext) -> HookOutput;
}

adapter!(
    /// Runs a [`TelemetryHook`] as a [`Hook`] of one of the four telemetry types.
    TelemetryHookAdapter,
    TelemetryHook,
    "telemetry"
);

impl<H: TelemetryHook + ?Sized> Hook for TelemetryHookAdapter<H> {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        HookCall::Ready(
            TelemetryHookContext::from_hook_context(context).map_or_else(
                |e| Err(e.into()),
                |ctx| self.inner.on_event(self.meta.hook_type, &ctx),
            ),
        )
    }
}
