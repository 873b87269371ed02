//! The open sessions of an engine, by id, each with the queue its turn's
//! events wait in for a door that polls (`session-events`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, Notify};

use super::events::{join_text, SessionEvent};
use super::session::{lock, AgentSession};
use super::subscription::{Shared, Subscriber, Subscription};
use crate::error::{Error, Result};

/// The most notices that come between turns a session's queue holds for a
/// door that has not taken them (and the most notices of a session's start).
pub const MAX_IDLE_NOTICES: usize = 64;

/// Events of a session's turns, for the door: pushed to its subscriber when
/// it has one ([`EventQueue::subscribe`]), else queued until it polls
/// ([`EventQueue::take`]).
#[derive(Default)]
pub struct EventQueue {
    events: Mutex<VecDeque<SessionEvent>>,
    arrived: Notify,
    subscriber: Mutex<Option<Subscriber>>,
}

impl EventQueue {
    /// Moves `rx`'s events (a turn of `session`) to the subscriber, or into
    /// the queue, until the turn ends; when the session has ended with it,
    /// the subscription ends too.
    pub fn forward(
        self: &Arc<Self>,
        mut rx: mpsc::UnboundedReceiver<SessionEvent>,
        session: &Arc<AgentSession>,
    ) {
        let queue = Arc::clone(self);
        let session = Arc::clone(session);
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                queue.push(event);
            }
            if session.has_ended() {
                queue.close();
            }
        });
    }

    /// Hands one event to the subscriber, else queues it (joined to the
    /// text event queued last, when both are text).
    pub fn push(&self, event: SessionEvent) {
        let mut subscriber = lock(&self.subscriber);
        let event = match subscriber.as_ref() {
            Some(to) => match to.give(event) {
                Ok(()) => return,
                Err(back) => {
                    // The subscriber went away: poll again.
                    *subscriber = None;
                    back
                }
            },
            None => event,
        };
        {
            let mut events = lock(&self.events);
            if !join_text(events.back_mut(), &event) {
                events.push_back(event);
            }
        }
        drop(subscriber);
        self.arrived.notify_waiters();
    }

    /// Every event from now on (and those queued so far, first) on the
    /// returned channel, for the session's whole life: it ends when the
    /// session closes, or when another subscriber takes its place. While a
    /// subscriber holds it, `take` finds nothing.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<SessionEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.subscribe_with(Subscriber::Channel(tx));
        rx
    }

    /// Like [`EventQueue::subscribe`], with the text events a door behind
    /// has not taken yet joined (see [`Subscription`]): a slow door holds
    /// about the text it has not read, not an event per chunk.
    pub fn subscribe_joined(&self) -> Subscription {
        let shared = Arc::new(Shared::default());
        self.subscribe_with(Subscriber::Joined(Arc::clone(&shared)));
        Subscription::new(shared)
    }

    fn subscribe_with(&self, new: Subscriber) {
        let mut subscriber = lock(&self.subscriber);
        for event in lock(&self.events).drain(..) {
            let _ = new.give(event);
        }
        if let Some(old) = subscriber.replace(new) {
            old.close();
        }
    }

    /// Ends the subscription (its channel closes).
    pub fn close(&self) {
        if let Some(old) = lock(&self.subscriber).take() {
            old.close();
        }
        self.arrived.notify_waiters();
    }

    /// Like [`EventQueue::push`], for an event that replaces one of its
    /// type still queued (the agent's `commands`, its `usage`): between
    /// turns the queue holds the latest of each, however often they come.
    pub fn push_latest(&self, event: SessionEvent) {
        let kind = event.get("type").cloned();
        lock(&self.events).retain(|e| e.get("type") != kind.as_ref());
        self.push(event);
    }

    /// Like [`EventQueue::push`], for a `notice` that comes between turns:
    /// at most [`MAX_IDLE_NOTICES`] wait for a door that does not poll (the
    /// oldest go), however many the agent causes.
    pub fn push_notice(&self, event: SessionEvent) {
        {
            let mut events = lock(&self.events);
            let queued = events.iter().filter(|e| e["type"] == "notice").count();
            if queued >= MAX_IDLE_NOTICES {
                if let Some(i) = events.iter().position(|e| e["type"] == "notice") {
                    events.remove(i);
                }
            }
        }
        self.push(event);
    }

    /// The events queued so far, waiting up to `wait` for the first.
    pub async fn take(&self, wait: Duration) -> Vec<SessionEvent> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let arrived = self.arrived.notified();
            {
                let mut events = lock(&self.events);
                if !events.is_empty() {
                    return events.drain(..).collect();
                }
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return Vec::new();
            }
        }
    }
}

/// One open session and its event queue.
#[derive(Clone)]
pub struct Entry {
    /// The session.
    pub session: Arc<AgentSession>,
    /// Its events, for doors that poll.
    pub queue: Arc<EventQueue>,
}

impl Entry {
    /// The callback form of [`EventQueue::subscribe_joined`]: `f` gets each
    /// event of the session, in order (text chunks that came while `f` was
    /// busy joined into one event), on one of the engine's runtime threads (never
    /// two calls at once), then `None` once the session has ended or
    /// another subscriber took its place.
    pub fn on_event(&self, mut f: impl FnMut(Option<SessionEvent>) + Send + 'static) -> Result<()> {
        let runtime = self.session.registry.runtime_handle()?;
        let mut rx = self.queue.subscribe_joined();
        runtime.spawn(async move {
            while let Some(event) = rx.recv().await {
                f(Some(event));
            }
            f(None);
        });
        Ok(())
    }
}

/// The last session id given in this process: ids are unique across the
/// engines of a process (the daemon keeps one engine per project and finds a
/// session's engine by its id).
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// The sessions of one engine.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<BTreeMap<String, Entry>>,
}

impl Sessions {
    /// A new session id (`s1`, `s2`, ...), unique in the process.
    pub fn next_id(&self) -> String {
        format!("s{}", NEXT_ID.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Whether no session is open.
    pub fn is_empty(&self) -> bool {
        lock(&self.open).is_empty()
    }

    /// Adds an opened session.
    pub fn insert(&self, session: Arc<AgentSession>) -> Entry {
        let entry = Entry {
            session,
            queue: Arc::default(),
        };
        let session = &entry.session;
        // What came before the session was listed opens its event stream.
        session.attach_idle(&entry.queue);
        lock(&self.open).insert(session.id.clone(), entry.clone());
        entry
    }

    /// The session `id`, or a clear error.
    pub fn get(&self, id: &str) -> Result<Entry> {
        let open = lock(&self.open);
        open.get(id).cloned().ok_or_else(|| {
            let ids: Vec<&str> = open.keys().map(String::as_str).collect();
            Error::InvalidArgument(format!(
                "no session `{id}`; open sessions: {}",
                if ids.is_empty() {
                    "none".to_owned()
                } else {
                    ids.join(", ")
                }
            ))
        })
    }

    /// Closes and forgets session `id` (its agent's process group is killed;
    /// see [`AgentSession::finish`] for an agent that offers `session/close`).
    pub fn close(&self, id: &str) -> Result<()> {
        let entry = self.get(id)?;
        lock(&self.open).remove(id);
        // Its conversation may be resumed at once, while the agent ends.
        lock(&entry.session.state).history.held = None;
        let busy = entry.session.busy();
        // An agent that keeps its sessions (and offers `session/close`) is
        // ended gently, in the background, so that it saves this one.
        if !busy && entry.session.keeps_sessions() {
            if let Ok(runtime) = entry.session.registry.runtime_handle() {
                runtime.spawn(async move {
                    entry.session.finish().await;
                    entry.queue.close();
                });
                return Ok(());
            }
        }
        entry.session.close();
        // A running turn's forwarder ends the subscription after the turn's
        // last event; with no turn, it ends now.
        if !busy {
            entry.queue.close();
        }
        Ok(())
    }

    /// Every open session: id, agent, workspace, whether a turn runs, its tag,
    /// the agent's current mode and model.
    pub fn list(&self) -> Value {
        let open = lock(&self.open);
        Value::Array(
            open.values()
                .map(|e| {
                    let controls = e.session.controls();
                    json!({
                        "session": e.session.id,
                        "agent": e.session.agent.id,
                        "workspace": e.session.workspace,
                        "busy": e.session.busy(),
                        "tag": e.session.tag(),
                        "mode": controls["mode"],
                        "model": controls["model"],
                    })
                })
                .collect(),
        )
    }

    /// Closes every session (the engine is going away).
    pub fn close_all(&self) {
        let all: Vec<Entry> = std::mem::take(&mut *lock(&self.open))
            .into_values()
            .collect();
        for entry in all {
            entry.session.close();
            entry.queue.close();
        }
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        self.close_all();
    }
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("open", &lock(&self.open).len())
            .finish_non_exhaustive()
    }
}
