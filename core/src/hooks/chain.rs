//! Running one chain: [`ChainRun`] steps through the hooks synchronously and
//! hands back a [`PendingHook`] whenever a hook answers with a future.
//!
//! Both the blocking door ([`HookRegistry::execute_with`](crate::HookRegistry::execute_with))
//! and the future door ([`HookRegistry::execute_async`](crate::HookRegistry::execute_async))
//! drive the same state machine; only the way they wait on a pending hook differs.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::hooks::clock::Tick;
use std::future::Future;
use std::task::Poll;

use tokio_util::sync::CancellationToken;

use crate::error::Error;
use crate::hooks::config::ConfigFault;
use crate::hooks::context::HookContext;
use crate::hooks::hook::{HookCall, HookFuture, HookOutput};
use crate::hooks::outcome::{ChainOutcome, ChainStatus, HookRun, HookRunStatus, StopInfo};
use crate::hooks::registry::{Chain, ExecuteOptions, Inner, DEFAULT_ASYNC_TIMEOUT};
use crate::hooks::result::HookResult;

/// How one hook's run ended, before it is recorded.
pub(crate) struct Settled {
    status: HookRunStatus,
    result: Option<HookResult>,
    error: Option<String>,
    /// Set when the chain itself must end (cancelled, deadline).
    interrupted: Option<ChainStatus>,
}

impl Settled {
    fn failed(status: HookRunStatus, error: String) -> Self {
        Settled {
            status,
            result: None,
            error: Some(error),
            interrupted: None,
        }
    }

    fn interrupted(chain: ChainStatus, error: &str) -> Self {
        Settled {
            status: HookRunStatus::Cancelled,
            result: None,
            error: Some(error.to_owned()),
            interrupted: Some(chain),
        }
    }

    #[inline]
    fn from_output(output: HookOutput) -> Self {
        let (status, result, error) = match output {
            Ok(HookResult::Continue) => (HookRunStatus::Continued, None, None),
            Ok(result @ HookResult::Modify { .. }) => (HookRunStatus::Modified, Some(result), None),
            Ok(result @ HookResult::Stop { .. }) => (HookRunStatus::Stopped, Some(result), None),
            Ok(HookResult::Error { message }) => (HookRunStatus::Error, None, Some(message)),
            Err(e) => (HookRunStatus::Error, None, Some(e.to_string())),
        };
        Settled {
            status,
            result,
            error,
            interrupted: None,
        }
    }
}

/// A hook that answered with a future: what to wait on, and for how long.
pub(crate) struct PendingHook {
    future: Option<HookFuture>,
    /// Poll the future here instead of on the runtime ([`HookCall::OnHost`]).
    on_host: bool,
    index: usize,
    limit: Duration,
    limit_is_deadline: bool,
    cancel: Option<CancellationToken>,
}

/// How an asynchronous hook's wait ended.
enum AsyncEnd {
    Done(HookOutput),
    TimedOut,
    DeadlineExceeded,
    Cancelled,
}

/// Aborts a spawned hook task if the chain is dropped while waiting on it.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn cancelled(token: Option<CancellationToken>) {
    match token {
        Some(token) => token.cancelled_owned().await,
        None => std::future::pending().await,
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("hook panicked: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("hook panicked: {s}")
    } else {
        "hook panicked".to_owned()
    }
}

impl PendingHook {
    /// Runs the hook's future on the engine's runtime under its time limit,
    /// the chain's deadline and cancellation. The returned future is
    /// executor-agnostic: it only awaits the spawned task's handle.
    pub(crate) async fn wait(&mut self, inner: &Inner) -> Settled {
        let Some(future) = self.future.take() else {
            return Settled::failed(HookRunStatus::Error, "hook future polled twice".to_owned());
        };
        let runtime = match inner.runtime() {
            Ok(runtime) => runtime,
            Err(e) => return Settled::failed(HookRunStatus::Error, e.to_string()),
        };
        let (limit, limit_is_deadline, cancel) =
            (self.limit, self.limit_is_deadline, self.cancel.take());
        if self.on_host {
            return wait_on_host(future, runtime, limit, limit_is_deadline, cancel).await;
        }
        let mut task = AbortOnDrop(runtime.spawn(async move {
            tokio::select! {
                output = future => AsyncEnd::Done(output),
                () = tokio::time::sleep(limit) => if limit_is_deadline {
                    AsyncEnd::DeadlineExceeded
                } else {
                    AsyncEnd::TimedOut
                },
                () = cancelled(cancel) => AsyncEnd::Cancelled,
            }
        }));
        match (&mut task.0).await {
            Ok(end) => end.settled(limit),
            Err(e) if e.is_panic() => {
                Settled::failed(HookRunStatus::Panicked, panic_message(&*e.into_panic()))
            }
            Err(e) => Settled::failed(HookRunStatus::Error, e.to_string()),
        }
    }
}

impl AsyncEnd {
    fn settled(self, limit: Duration) -> Settled {
        match self {
            AsyncEnd::Done(output) => Settled::from_output(output),
            AsyncEnd::TimedOut => Settled::failed(
                HookRunStatus::TimedOut,
                format!("hook exceeded its time limit of {limit:?}"),
            ),
            AsyncEnd::DeadlineExceeded => Settled::interrupted(
                ChainStatus::DeadlineExceeded,
                "the chain's deadline passed while the hook ran",
            ),
            AsyncEnd::Cancelled => Settled::interrupted(
                ChainStatus::Cancelled,
                "the chain was cancelled while the hook ran",
            ),
        }
    }
}

/// Polls a [`HookCall::OnHost`] future right here, with only its time limit
/// on the runtime (a timer task), so the host's answer reaches the chain
/// without crossing threads.
async fn wait_on_host(
    mut future: HookFuture,
    runtime: &tokio::runtime::Runtime,
    limit: Duration,
    limit_is_deadline: bool,
    cancel: Option<CancellationToken>,
) -> Settled {
    // The sleep is made inside the task: it needs the runtime's context.
    let mut timer = AbortOnDrop(runtime.spawn(async move { tokio::time::sleep(limit).await }));
    let mut cancel = std::pin::pin!(cancelled(cancel));
    let end = std::future::poll_fn(|cx| {
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => return Poll::Ready(Ok(AsyncEnd::Done(output))),
            Ok(Poll::Pending) => {}
            Err(payload) => return Poll::Ready(Err(panic_message(&*payload))),
        }
        if cancel.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Ok(AsyncEnd::Cancelled));
        }
        if std::pin::Pin::new(&mut timer.0).poll(cx).is_ready() {
            return Poll::Ready(Ok(if limit_is_deadline {
                AsyncEnd::DeadlineExceeded
            } else {
                AsyncEnd::TimedOut
            }));
        }
        Poll::Pending
    })
    .await;
    match end {
        Ok(end) => end.settled(limit),
        Err(message) => Settled::failed(HookRunStatus::Panicked, message),
    }
}

/// The state of one chain being run.
pub(crate) struct ChainRun {
    chain: Chain,
    next: usize,
    context: HookContext,
    options: ExecuteOptions,
    runs: Vec<HookRun>,
    start: Tick,
    now: Tick,
    /// The deadline on the same clock as `now`.
    deadline: Option<Tick>,
    status: ChainStatus,
    stopped_by: Option<StopInfo>,
    done: bool,
    /// The registry's broken configuration, if any: the chain ends with
    /// [`ChainStatus::ConfigError`] before its first hook that would run.
    fault: Option<Arc<ConfigFault>>,
    /// Set when the chain ended that way.
    refused: Option<Arc<ConfigFault>>,
}

impl ChainRun {
    /// The outcome of a chain with no hooks: the data unchanged, no clock read.
    pub(crate) fn empty(context: HookContext) -> ChainOutcome {
        ChainOutcome {
            hook_type: context.hook_type,
            status: ChainStatus::Completed,
            data: context.data,
            stopped_by: None,
            hooks: Vec::new(),
            duration: Duration::ZERO,
        }
    }

    pub(crate) fn new(
        chain: Chain,
        mut context: HookContext,
        options: ExecuteOptions,
        fault: Option<Arc<ConfigFault>>,
    ) -> Self {
        // The caller may have changed the public fields since any text was made.
        context.forget_json();
        let now = Tick::start();
        let deadline = options
            .deadline
            .and_then(|d| now.checked_add(d.saturating_duration_since(Instant::now())));
        ChainRun {
            deadline,
            runs: Vec::with_capacity(chain.len()),
            done: chain.is_empty(),
            chain,
            next: 0,
            context,
            options,
            start: now,
            now,
            status: ChainStatus::Completed,
            stopped_by: None,
            fault,
            refused: None,
        }
    }

    /// Runs synchronous hooks until the chain ends (`None`) or a hook
    /// answers with a future, which the caller waits on and then passes to
    /// [`complete`](Self::complete).
    pub(crate) fn advance(&mut self) -> Option<PendingHook> {
        while !self.done && self.next < self.chain.len() {
            let index = self.next;
            self.next += 1;
            let entry = &self.chain[index];
            if !entry.would_run(self.context.tool_name()) {
                continue;
            }
            if let Some(fault) = self.fault.take() {
                self.stopped_by = Some(fault.stop_info());
                self.refused = Some(fault);
                self.end(ChainStatus::ConfigError);
                return None;
            }
            if self
                .options
                .cancel
                .as_ref()
                .is_some_and(CancellationToken::is_cancelled)
            {
                self.end(ChainStatus::Cancelled);
                return None;
            }
            if self.deadline.is_some_and(|d| self.now >= d) {
                self.end(ChainStatus::DeadlineExceeded);
                return None;
            }
            let call = catch_unwind(AssertUnwindSafe(|| entry.hook.call(&self.context)));
            let (future, on_host) = match call {
                Ok(HookCall::Ready(output)) => {
                    self.record(index, Settled::from_output(output));
                    continue;
                }
                Err(payload) => {
                    let message = panic_message(&*payload);
                    self.record(index, Settled::failed(HookRunStatus::Panicked, message));
                    continue;
                }
                Ok(HookCall::Pending(future)) => (future, false),
                Ok(HookCall::OnHost(future)) => (future, true),
            };
            let timeout = entry.timeout.unwrap_or(DEFAULT_ASYNC_TIMEOUT);
            let remaining = self
                .options
                .deadline
                .map(|d| d.saturating_duration_since(Instant::now()));
            let (limit, limit_is_deadline) = match remaining {
                Some(r) if r < timeout => (r, true),
                _ => (timeout, false),
            };
            return Some(PendingHook {
                future: Some(future),
                on_host,
                index,
                limit,
                limit_is_deadline,
                cancel: self.options.cancel.clone(),
            });
        }
        self.done = true;
        None
    }

    /// Records the end of a pending hook.
    pub(crate) fn complete(&mut self, pending: &PendingHook, settled: Settled) {
        self.record(pending.index, settled);
    }

    fn end(&mut self, status: ChainStatus) {
        self.status = status;
        self.done = true;
    }

    #[inline]
    fn record(&mut self, index: usize, mut settled: Settled) {
        let entry = &self.chain[index];
        let started = self.now;
        self.now = self.now.now();
        let duration = self.now - started;
        if let Some(limit) = entry.timeout {
            if duration > limit
                && settled.status != HookRunStatus::TimedOut
                && settled.interrupted.is_none()
            {
                settled = Settled::failed(
                    HookRunStatus::TimedOut,
                    format!(
                        "hook exceeded its time limit of {limit:?} (ran {duration:?}); its answer was discarded"
                    ),
                );
            }
        }
        self.runs.push(HookRun {
            name: Arc::clone(&entry.name),
            status: settled.status,
            duration,
            error: settled.error,
        });
        if let Some(interrupted) = settled.interrupted {
            self.end(interrupted);
            return;
        }
        match settled.result {
            Some(HookResult::Modify { data }) => {
                self.context.data = data;
                self.context.forget_json();
            }
            Some(HookResult::Stop { reason }) => {
                self.stopped_by = Some(StopInfo {
                    hook: entry.name.to_string(),
                    reason,
                });
                self.end(ChainStatus::Stopped);
            }
            _ => {}
        }
    }

    /// The configuration error, when the chain ended with
    /// [`ChainStatus::ConfigError`].
    pub(crate) fn refusal(&self) -> Option<Error> {
        self.refused.as_ref().map(|fault| fault.error())
    }

    pub(crate) fn finish(self) -> ChainOutcome {
        ChainOutcome {
            hook_type: self.context.hook_type,
            status: self.status,
            data: self.context.data,
            stopped_by: self.stopped_by,
            duration: self.now - self.start,
            hooks: self.runs,
        }
    }
}
