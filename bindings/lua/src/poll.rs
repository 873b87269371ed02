//! Non-blocking work for Lua: chains and requests queued as futures, polled
//! on the main thread by `poll`, and woken through a socket that the Lua
//! side watches with `vim.uv`.

use std::cell::RefCell;
use std::future::Future;
use std::io::Write as _;
use std::os::fd::IntoRawFd as _;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use mlua::{Function, Lua, Result as LuaResult};
use serde_json::Value;

use crate::values::{lua_err, to_lua};

/// Wakes the Lua side: one byte on a socket that `vim.uv` watches.
struct Signal {
    writer: UnixStream,
    notified: AtomicBool,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if !self.notified.swap(true, Ordering::AcqRel) {
            // Non-blocking; a full socket already has a wake-up pending.
            let _ = (&self.writer).write(&[1]);
        }
    }
}

/// Work for the main thread sent from another one: a Lua hook called in a
/// chain the engine runs on its own threads (a session's permission check).
pub(crate) type HostCall = Box<dyn FnOnce(&Lua) + Send>;

/// The queue of [`HostCall`]s of one Lua state, drained at each poll.
pub(crate) struct HostCalls {
    calls: Mutex<Vec<HostCall>>,
    signal: Arc<Signal>,
}

impl HostCalls {
    /// Queues `call` for the main thread and wakes its loop.
    pub(crate) fn send(&self, call: HostCall) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(call);
        self.signal.wake_by_ref();
    }

    fn take(&self) -> Vec<HostCall> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A non-blocking piece of work: its result as a JSON value.
pub(crate) type PendingFuture = Pin<Box<dyn Future<Output = Value> + Send>>;

/// The non-blocking chains of one Lua state, polled on its main thread.
pub(crate) struct AsyncState {
    signal: Arc<Signal>,
    pub(crate) reader_fd: RefCell<Option<i32>>,
    pub(crate) pending: RefCell<Vec<(PendingFuture, Function)>>,
    /// Event streams (a session's events), each with its callback.
    pub(crate) streams: RefCell<Vec<(EventStream, Function)>>,
    /// Lua hooks called from the engine's threads, run at the next poll.
    pub(crate) host_calls: Arc<HostCalls>,
}

/// A stream of JSON events delivered on the main loop.
pub(crate) type EventStream = tokio::sync::mpsc::UnboundedReceiver<Value>;

impl AsyncState {
    fn new() -> LuaResult<Self> {
        let (reader, writer) = UnixStream::pair()
            .map_err(|e| lua_err(format!("cannot create the wake-up socket: {e}")))?;
        writer
            .set_nonblocking(true)
            .and_then(|()| reader.set_nonblocking(true))
            .map_err(|e| lua_err(format!("cannot configure the wake-up socket: {e}")))?;
        let signal = Arc::new(Signal {
            writer,
            notified: AtomicBool::new(false),
        });
        Ok(AsyncState {
            host_calls: Arc::new(HostCalls {
                calls: Mutex::new(Vec::new()),
                signal: Arc::clone(&signal),
            }),
            signal,
            reader_fd: RefCell::new(Some(reader.into_raw_fd())),
            pending: RefCell::new(Vec::new()),
            streams: RefCell::new(Vec::new()),
        })
    }
}

/// The non-blocking state of `lua`, made on first use.
pub(crate) fn async_state(lua: &Lua) -> LuaResult<mlua::AppDataRef<'_, AsyncState>> {
    if lua.app_data_ref::<AsyncState>().is_none() {
        lua.set_app_data(AsyncState::new()?);
    }
    lua.app_data_ref::<AsyncState>()
        .ok_or_else(|| lua_err("radium: async state missing"))
}

/// Runs the Lua hooks other threads asked for, then polls every pending
/// chain once and calls the callbacks of finished ones; then, unless
/// `streams` is `false`, delivers the events the streams hold (the Lua side
/// does so at most once a frame: the events that come in between are
/// joined and drawn once). Answers the number of chains still pending and
/// whether a stream holds more events than one poll takes (a flood: the Lua
/// side polls again at the next turn of the loop instead of a frame later).
pub(crate) fn poll(lua: &Lua, streams: Option<bool>) -> LuaResult<(usize, bool)> {
    let (signal, pending, calls) = {
        let state = async_state(lua)?;
        state.signal.notified.store(false, Ordering::Release);
        let pending = std::mem::take(&mut *state.pending.borrow_mut());
        (Arc::clone(&state.signal), pending, state.host_calls.take())
    };
    for call in calls {
        call(lua);
    }
    let waker = Waker::from(signal);
    let mut cx = Context::from_waker(&waker);
    let mut still = Vec::new();
    let mut first_error = None;
    for (mut future, callback) in pending {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => {
                if let Err(e) = to_lua(lua, &value).and_then(|v| callback.call::<()>(v)) {
                    first_error.get_or_insert(e);
                }
            }
            Poll::Pending => still.push((future, callback)),
        }
    }
    let state = async_state(lua)?;
    let mut queue = state.pending.borrow_mut();
    still.append(&mut queue);
    *queue = still;
    let left = queue.len();
    drop(queue);
    drop(state);
    let mut more = false;
    if streams != Some(false) {
        match poll_streams(lua, &mut cx) {
            Ok(m) => more = m,
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok((left, more)),
    }
}

/// Queues work to be polled on the main loop; nothing runs before the next turn.
pub(crate) fn queue(lua: &Lua, future: PendingFuture, callback: Function) -> LuaResult<()> {
    let state = async_state(lua)?;
    state.pending.borrow_mut().push((future, callback));
    state.signal.wake_by_ref();
    Ok(())
}

/// At most this many events, or events carrying this many bytes of text
/// (once joined: the outputs of folded updates count once), of one stream
/// are taken in one poll, so a flood never holds the main
/// loop long; the rest wait for the next poll (the stream wakes it again).
const EVENTS_PER_POLL: usize = 8192;
/// See [`EVENTS_PER_POLL`].
const TEXT_PER_POLL: usize = 256 << 10;

/// The bytes of text `event` carries (its `text`, or a tool call's `output`).
fn text_len(event: &Value) -> usize {
    ["text", "output"]
        .iter()
        .filter_map(|k| event.get(*k).and_then(Value::as_str))
        .map(str::len)
        .sum()
}

/// Folds tool call update `event` into `last` when both update the same
/// call and neither brings diffs (each diff is drawn once, so none may be
/// lost): the later fields win, as they would on screen (an `output` is the
/// whole output so far). Answers whether it did.
fn merge_update(last: &mut Value, event: &Value) -> bool {
    let is_update = |v: &Value| {
        v.get("type").and_then(Value::as_str) == Some("tool_call_update")
            && v.get("diffs").is_none()
    };
    if !(is_update(last) && is_update(event) && last.get("id") == event.get("id")) {
        return false;
    }
    if let (Value::Object(a), Value::Object(b)) = (last, event) {
        for (k, v) in b {
            a.insert(k.clone(), v.clone());
        }
        return true;
    }
    false
}

/// Appends `event` to `batch`, joining it to the last event when both are
/// text chunks with the same fields (a flood of small chunks reaches Lua as
/// one chunk a poll, not hundreds of handler calls), or both update the
/// same tool call ([`merge_update`]).
fn push_joined(batch: &mut Vec<Value>, event: Value) {
    if let Some(last) = batch.last_mut() {
        if merge_update(last, &event) {
            return;
        }
    }
    let is_text = |v: &Value| v.get("type").and_then(Value::as_str) == Some("text");
    if let (Some(last), true) = (batch.last_mut(), is_text(&event)) {
        if is_text(last) {
            if let (Value::Object(a), Value::Object(b)) = (&mut *last, &event) {
                let same_fields =
                    a.len() == b.len() && a.iter().all(|(k, v)| k == "text" || b.get(k) == Some(v));
                if same_fields {
                    if let (Some(Value::String(text)), Some(more)) =
                        (a.get_mut("text"), b.get("text").and_then(Value::as_str))
                    {
                        text.push_str(more);
                        return;
                    }
                }
            }
        }
    }
    batch.push(event);
}

/// Delivers the events that arrived on each stream (consecutive text
/// chunks joined); a stream that ended gets one last call with `nil` and
/// is dropped. Answers whether a stream was left with more than one poll
/// takes.
fn poll_streams(lua: &Lua, cx: &mut Context<'_>) -> LuaResult<bool> {
    let streams = std::mem::take(&mut *async_state(lua)?.streams.borrow_mut());
    let mut still = Vec::new();
    let mut first_error = None;
    let mut more = false;
    for (mut rx, callback) in streams {
        let mut open = true;
        let mut batch = Vec::new();
        let mut bytes = 0;
        for n in 0..=EVENTS_PER_POLL {
            if n == EVENTS_PER_POLL || bytes >= TEXT_PER_POLL {
                cx.waker().wake_by_ref();
                more = true;
                break;
            }
            match rx.poll_recv(cx) {
                Poll::Ready(Some(event)) => {
                    // The text that reaches Lua: an update folded into the
                    // last one replaces its output, it does not add to it.
                    let (len, last) = (batch.len(), batch.last().map_or(0, text_len));
                    push_joined(&mut batch, event);
                    bytes += batch.last().map_or(0, text_len);
                    if batch.len() == len {
                        bytes -= last;
                    }
                }
                Poll::Ready(None) => {
                    open = false;
                    break;
                }
                Poll::Pending => break,
            }
        }
        for event in batch {
            if let Err(e) = to_lua(lua, &event).and_then(|v| callback.call::<()>(v)) {
                first_error.get_or_insert(e);
            }
        }
        if open {
            still.push((rx, callback));
        } else if let Err(e) = callback.call::<()>(mlua::Value::Nil) {
            first_error.get_or_insert(e);
        }
    }
    let state = async_state(lua)?;
    let mut streams = state.streams.borrow_mut();
    still.append(&mut streams);
    *streams = still;
    first_error.map_or(Ok(more), Err)
}

/// Delivers `stream`'s events to `callback` on the main loop, then `nil`
/// when it ends.
pub(crate) fn subscribe(lua: &Lua, stream: EventStream, callback: Function) -> LuaResult<()> {
    let state = async_state(lua)?;
    state.streams.borrow_mut().push((stream, callback));
    state.signal.wake_by_ref();
    Ok(())
}
