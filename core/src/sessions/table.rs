//! The open sessions of an engine, by id, each with the queue its turn's
//! events wait in for a door that polls (`session-events`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, Notify};

use super::events::SessionEvent;
use super::session::{lock, AgentSession};
use crate::error::{Error, Result};

/// Events of a session's turns, waiting for the door.
#[derive(Default)]
pub struct EventQueue {
    events: Mutex<VecDeque<SessionEvent>>,
    arrived: Notify,
}

impl EventQueue {
    /// Moves `rx`'s events into the queue until the turn ends.
    pub fn forward(self: &Arc<Self>, mut rx: mpsc::UnboundedReceiver<SessionEvent>) {
        let queue = Arc::clone(self);
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                lock(&queue.events).push_back(event);
                queue.arrived.notify_waiters();
            }
        });
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

/// The sessions of one engine.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<BTreeMap<String, Entry>>,
    next: AtomicU64,
}

impl Sessions {
    /// A new session id (`s1`, `s2`, ...).
    pub fn next_id(&self) -> String {
        format!("s{}", self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Adds an opened session.
    pub fn insert(&self, session: Arc<AgentSession>) -> Entry {
        let entry = Entry {
            session,
            queue: Arc::default(),
        };
        let session = &entry.session;
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

    /// Closes and forgets session `id` (its agent's process group is killed).
    pub fn close(&self, id: &str) -> Result<()> {
        let entry = self.get(id)?;
        lock(&self.open).remove(id);
        entry.session.close();
        Ok(())
    }

    /// Every open session: id, agent, workspace, whether a turn runs, its tag.
    pub fn list(&self) -> Value {
        let open = lock(&self.open);
        Value::Array(
            open.values()
                .map(|e| {
                    json!({
                        "session": e.session.id,
                        "agent": e.session.agent.id,
                        "workspace": e.session.workspace,
                        "busy": e.session.busy(),
                        "tag": e.session.tag(),
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
