//! The per-thread state of the door: which environment is live, which native
//! call is running (so JS hooks can reach JavaScript), and the non-blocking
//! chains in flight with the thread-safe function that wakes them.
//!
//! The rules:
//! - JavaScript is only touched on the thread that loaded the addon, inside a
//!   native call made by JavaScript or a callback N-API runs there.
//! - Chain futures are polled only there. Their waker may fire on any thread
//!   (the engine's runtime threads finish script hooks and Promise waits); it
//!   calls one thread-safe function in non-blocking mode, whose callback
//!   polls the chains on the JS thread. The event loop never waits for a hook.
//! - The thread-safe function is referenced (keeps Node alive) only while
//!   chains are pending.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use napi::sys;
use radium_core::{ChainOutcome, Response};

use crate::convert;
use crate::errors::error_value;
use crate::js::{Js, JsResult};

/// How JS hooks may answer in the chain being run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `execute` / `request`: the chain must finish now; a Promise is an error.
    Sync,
    /// `executeAsync`: a Promise is awaited without blocking the loop.
    Async,
}

thread_local! {
    /// The environment whose references this thread may still delete
    /// (null before the first engine and after the environment's teardown).
    static LIVE_ENV: Cell<sys::napi_env> = const { Cell::new(ptr::null_mut()) };
    /// The native call running now, for JS hooks.
    static CURRENT: Cell<Option<(sys::napi_env, Mode)>> = const { Cell::new(None) };
    /// This thread's host state.
    static HOST: RefCell<Option<Rc<Host>>> = const { RefCell::new(None) };
}

/// Whether `env` is this thread's live environment.
pub(crate) fn is_live(env: sys::napi_env) -> bool {
    !env.is_null() && LIVE_ENV.try_with(Cell::get).ok() == Some(env)
}

/// The native call running now on this thread, if any.
pub(crate) fn current() -> Option<(sys::napi_env, Mode)> {
    CURRENT.try_with(Cell::get).ok().flatten()
}

/// Marks a native call as running (JS hooks may run) until dropped.
pub(crate) struct Enter {
    previous: Option<(sys::napi_env, Mode)>,
}

impl Enter {
    pub(crate) fn new(js: Js, mode: Mode) -> Self {
        Enter {
            previous: CURRENT.replace(Some((js.env(), mode))),
        }
    }
}

impl Drop for Enter {
    fn drop(&mut self) {
        CURRENT.set(self.previous);
    }
}

/// The raw thread-safe function, shareable with the threads that wake chains.
struct Tsfn(sys::napi_threadsafe_function);

// SAFETY: N-API thread-safe functions are made to be called from any thread;
// the pointer is only used under `Signal::tsfn`'s lock and forgotten (set to
// None) by the finalizer before N-API frees it.
unsafe impl Send for Tsfn {}

/// Work for the JS thread sent from another one: a JS hook called in a
/// chain the engine runs on its own threads (a session's permission check,
/// Claude Code's PreToolUse relay). Run inside a native call (`Mode::Async`).
pub(crate) type HostCall = Box<dyn FnOnce(Js) + Send>;

/// The wake-up signal: at most one queued call at a time.
struct Signal {
    queued: AtomicBool,
    tsfn: Mutex<Option<Tsfn>>,
    /// Host calls waiting for the JS thread.
    calls: Mutex<Vec<HostCall>>,
}

/// Where other threads send work for this JS thread ([`HostCall`]s).
#[derive(Clone)]
pub(crate) struct Remote(Arc<Signal>);

impl Remote {
    /// Queues `call` for the JS thread and wakes it; the call is dropped
    /// unrun (and its senders with it) once the environment is gone.
    pub(crate) fn send(&self, call: HostCall) {
        let closed = self
            .0
            .tsfn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none();
        if closed {
            return;
        }
        self.0
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(call);
        self.0.wake_by_ref();
    }
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        let tsfn = self.tsfn.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Tsfn(raw)) = &*tsfn {
            // SAFETY: the function is alive while it is in `tsfn` (the
            // finalizer takes it out under this lock). Non-blocking: this
            // never waits, whatever thread calls it.
            let status = unsafe {
                sys::napi_call_threadsafe_function(
                    *raw,
                    ptr::null_mut(),
                    sys::ThreadsafeFunctionCallMode::nonblocking,
                )
            };
            if status != sys::Status::napi_ok {
                // Closing (the environment is going away): nothing will poll.
                self.queued.store(false, Ordering::Release);
            }
        }
    }
}

/// What a non-blocking call produces.
pub(crate) enum Done {
    /// `executeAsync`: a chain outcome, or the error that refused the chain
    /// (a broken `hooks.toml`), which rejects the Promise.
    Outcome(radium_core::Result<ChainOutcome>),
    /// `requestAsync`: a response.
    Response(Response),
    /// `sessionEvents`: a batch of a session's events; `None` once it ended.
    Events(Option<Vec<serde_json::Value>>),
}

type WorkFuture = Pin<Box<dyn Future<Output = Done> + Send>>;

/// The `internal` error of a result that cannot be converted to JS.
fn cannot_convert(js: Js, e: &impl std::fmt::Display) -> Option<crate::js::Raw> {
    error_value(js, "internal", &format!("cannot convert the result: {e}"))
}

/// A chain (or request) in flight and the Promise it settles.
pub(crate) struct PendingChain {
    future: WorkFuture,
    deferred: sys::napi_deferred,
}

impl PendingChain {
    pub(crate) fn new(
        future: impl Future<Output = Done> + Send + 'static,
        deferred: sys::napi_deferred,
    ) -> Self {
        PendingChain {
            future: Box::pin(future),
            deferred,
        }
    }
}

/// The door's state on one JS thread.
pub(crate) struct Host {
    env: sys::napi_env,
    signal: Arc<Signal>,
    waker: Waker,
    pending: RefCell<Vec<PendingChain>>,
    referenced: Cell<bool>,
    /// A poll is asked of `setImmediate` (`start_later`).
    scheduled: Cell<bool>,
}

impl Host {
    /// This thread's host, made on first use.
    pub(crate) fn get(js: Js) -> JsResult<Rc<Host>> {
        if let Some(host) = HOST.with_borrow(Clone::clone) {
            if host.env == js.env() {
                return Ok(host);
            }
            return Err(
                "radium supports one Node.js environment per thread; this addon was first used by another"
                    .to_owned(),
            );
        }
        let host = Rc::new(Host::create(js)?);
        HOST.set(Some(Rc::clone(&host)));
        LIVE_ENV.set(js.env());
        Ok(host)
    }

    fn create(js: Js) -> JsResult<Host> {
        let signal = Arc::new(Signal {
            queued: AtomicBool::new(false),
            tsfn: Mutex::new(None),
            calls: Mutex::new(Vec::new()),
        });
        let name = js.string("radium")?;
        let finalize_data = Arc::into_raw(Arc::clone(&signal))
            .cast_mut()
            .cast::<c_void>();
        let mut raw = ptr::null_mut();
        // SAFETY: live environment. No JS function: `on_wake` does the work.
        // The finalizer gets back the `Arc` leaked into `finalize_data`.
        let status = unsafe {
            sys::napi_create_threadsafe_function(
                js.env(),
                ptr::null_mut(),
                ptr::null_mut(),
                name,
                0,
                1,
                finalize_data,
                Some(on_tsfn_finalize),
                ptr::null_mut(),
                Some(on_wake),
                &raw mut raw,
            )
        };
        if let Err(e) = js.check(status, "napi_create_threadsafe_function") {
            // SAFETY: not handed to N-API: reclaim the leaked `Arc`.
            drop(unsafe { Arc::from_raw(finalize_data.cast_const().cast::<Signal>()) });
            return Err(e);
        }
        // SAFETY: live environment; `raw` was just created in it. Idle, the
        // function must not keep the process alive. The cleanup hook takes no data.
        let ready = js
            .check(
                unsafe { sys::napi_unref_threadsafe_function(js.env(), raw) },
                "napi_unref_threadsafe_function",
            )
            .and_then(|()| {
                js.check(
                    unsafe {
                        sys::napi_add_env_cleanup_hook(
                            js.env(),
                            Some(on_env_cleanup),
                            ptr::null_mut(),
                        )
                    },
                    "napi_add_env_cleanup_hook",
                )
            });
        if let Err(e) = ready {
            // SAFETY: `raw` is ours and unused; aborting it lets N-API
            // finalize it (which reclaims the `Arc`).
            unsafe {
                sys::napi_release_threadsafe_function(
                    raw,
                    sys::ThreadsafeFunctionReleaseMode::abort,
                )
            };
            return Err(e);
        }
        *signal.tsfn.lock().unwrap_or_else(PoisonError::into_inner) = Some(Tsfn(raw));
        Ok(Host {
            env: js.env(),
            waker: Waker::from(Arc::clone(&signal)),
            signal,
            pending: RefCell::new(Vec::new()),
            referenced: Cell::new(false),
            scheduled: Cell::new(false),
        })
    }

    /// Where other threads send work for this thread.
    pub(crate) fn remote(&self) -> Remote {
        Remote(Arc::clone(&self.signal))
    }

    /// Chains in flight.
    pub(crate) fn pending(&self) -> usize {
        self.pending.borrow().len()
    }

    /// Polls a new chain once, right away (its synchronous JS hooks run now,
    /// as an async function runs up to its first `await`), and keeps it if
    /// it is not finished.
    pub(crate) fn start(&self, js: Js, chain: PendingChain) {
        let _enter = Enter::new(js, Mode::Async);
        if let Some(chain) = self.poll_one(js, chain) {
            self.pending.borrow_mut().push(chain);
        }
        self.update_ref(js);
    }

    /// Keeps a new chain without polling it now: it is first polled on a
    /// later turn of the event loop (`later`), so a caller that starts the
    /// next chain as soon as the last settles lets timers and I/O run in
    /// between.
    pub(crate) fn start_later(&self, js: Js, chain: PendingChain) {
        self.pending.borrow_mut().push(chain);
        self.update_ref(js);
        if !self.scheduled.get() {
            if crate::later::schedule(js).is_ok() {
                self.scheduled.set(true);
            } else {
                // No `setImmediate`: the thread-safe function polls it.
                self.waker.wake_by_ref();
            }
        }
    }

    /// The poll `start_later` asked for.
    pub(crate) fn poll_scheduled(&self, js: Js) {
        self.scheduled.set(false);
        self.poll_all(js);
    }

    /// Polls every pending chain once; settles the finished ones.
    fn poll_all(&self, js: Js) {
        self.signal.queued.store(false, Ordering::Release);
        let _enter = Enter::new(js, Mode::Async);
        let calls = std::mem::take(
            &mut *self
                .signal
                .calls
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for call in calls {
            let _scope = js.scope();
            let _ = catch_unwind(AssertUnwindSafe(|| call(js)));
        }
        let chains = std::mem::take(&mut *self.pending.borrow_mut());
        let mut still = Vec::with_capacity(chains.len());
        for chain in chains {
            if let Some(chain) = self.poll_one(js, chain) {
                still.push(chain);
            }
        }
        {
            // Chains started by hooks during this round were queued meanwhile.
            let mut pending = self.pending.borrow_mut();
            still.append(&mut pending);
            *pending = still;
        }
        self.update_ref(js);
    }

    fn poll_one(&self, js: Js, mut chain: PendingChain) -> Option<PendingChain> {
        let _scope = js.scope();
        let mut cx = Context::from_waker(&self.waker);
        let polled = catch_unwind(AssertUnwindSafe(|| chain.future.as_mut().poll(&mut cx)));
        let settled = match polled {
            Ok(Poll::Pending) => return Some(chain),
            Ok(Poll::Ready(Done::Outcome(Err(e)))) => {
                Err(error_value(js, e.code(), &e.to_string()))
            }
            Ok(Poll::Ready(Done::Outcome(Ok(outcome)))) => {
                convert::outcome_to_js(js, &outcome).map_err(|e| cannot_convert(js, &e))
            }
            Ok(Poll::Ready(Done::Response(response))) => {
                convert::to_js(js, &response.into_json()).map_err(|e| cannot_convert(js, &e))
            }
            Ok(Poll::Ready(Done::Events(events))) => {
                let value = events.map_or(serde_json::Value::Null, serde_json::Value::Array);
                convert::to_js(js, &value).map_err(|e| cannot_convert(js, &e))
            }
            Err(_) => Err(error_value(
                js,
                "internal",
                "internal error: radium panicked while running a chain (please report this bug)",
            )),
        };
        match settled {
            Ok(value) => js.settle(chain.deferred, Ok(value)),
            Err(Some(error)) => js.settle(chain.deferred, Err(error)),
            Err(None) => {}
        }
        None
    }

    /// References the thread-safe function while chains are pending, so Node
    /// stays alive for them; unreferences it when none are.
    fn update_ref(&self, js: Js) {
        let want = !self.pending.borrow().is_empty();
        if want == self.referenced.get() {
            return;
        }
        let tsfn = self
            .signal
            .tsfn
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(Tsfn(raw)) = &*tsfn {
            // SAFETY: live environment (we run in its native call); the
            // function belongs to it and is not finalized (it is in `tsfn`).
            let status = unsafe {
                if want {
                    sys::napi_ref_threadsafe_function(js.env(), *raw)
                } else {
                    sys::napi_unref_threadsafe_function(js.env(), *raw)
                }
            };
            if status == sys::Status::napi_ok {
                self.referenced.set(want);
            }
        }
    }
}

/// The thread-safe function's callback: runs on the JS thread, polls the chains.
unsafe extern "C" fn on_wake(
    env: sys::napi_env,
    _js_callback: sys::napi_value,
    _context: *mut c_void,
    _data: *mut c_void,
) {
    // A NULL environment means the function is being torn down.
    if env.is_null() || !is_live(env) {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: N-API calls this on the JS thread with its live environment.
        let js = unsafe { Js::new(env) };
        if let Some(host) = HOST.with_borrow(Clone::clone) {
            if host.env == env {
                host.poll_all(js);
            }
        }
    }));
}

/// Called by N-API when the thread-safe function is destroyed.
unsafe extern "C" fn on_tsfn_finalize(
    _env: sys::napi_env,
    finalize_data: *mut c_void,
    _hint: *mut c_void,
) {
    if finalize_data.is_null() {
        return;
    }
    // SAFETY: `finalize_data` is the `Arc<Signal>` leaked in `Host::create`,
    // given back exactly once, here.
    let signal = unsafe { Arc::from_raw(finalize_data.cast_const().cast::<Signal>()) };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        *signal.tsfn.lock().unwrap_or_else(PoisonError::into_inner) = None;
        // Never run now: their hooks get an error rather than wait.
        signal
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }));
}

/// Called when the environment is torn down: from now on nothing is deleted
/// in it (references are leaked rather than touched), and pending chains are
/// dropped (their Promises can no longer be settled).
unsafe extern "C" fn on_env_cleanup(_arg: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        LIVE_ENV.set(ptr::null_mut());
        let host = HOST.with_borrow_mut(Option::take);
        drop(host);
    }));
}
