//! A door's subscription to a session's events that joins text while the
//! door is behind: the `text` (or `thought`) events waiting for it are
//! joined into one (up to 1 MiB each, see [`join_text`]), so a door that
//! takes its events late holds about the text it has not read yet, not an
//! event object per chunk. Nothing is lost and the order is kept: only
//! neighbouring events of the same kind are joined.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TryRecvError;
use tokio::sync::Notify;

use super::events::{join_text, SessionEvent};
use super::session::lock;

/// What the queue and the subscription share.
#[derive(Default)]
pub(crate) struct Shared {
    waiting: Mutex<Waiting>,
    /// Wakes an async receiver.
    arrived: Notify,
    /// Wakes a blocking receiver.
    ready: Condvar,
}

#[derive(Default)]
struct Waiting {
    events: VecDeque<SessionEvent>,
    /// The queue ended the subscription: what waits is still taken.
    closed: bool,
    /// The subscription was dropped: the queue stops giving to it.
    dropped: bool,
}

impl Shared {
    /// Gives `event` to the subscription, joined to the text event waiting
    /// last when both are text; `Err(event)` when it has been dropped.
    pub(crate) fn push(&self, event: SessionEvent) -> Result<(), SessionEvent> {
        {
            let mut waiting = lock(&self.waiting);
            if waiting.dropped {
                return Err(event);
            }
            if !join_text(waiting.events.back_mut(), &event) {
                waiting.events.push_back(event);
            }
        }
        self.arrived.notify_one();
        self.ready.notify_one();
        Ok(())
    }

    /// Ends the subscription once what waits has been taken.
    pub(crate) fn close(&self) {
        lock(&self.waiting).closed = true;
        self.arrived.notify_one();
        self.ready.notify_one();
    }
}

/// Who gets a session's events as they come.
pub(crate) enum Subscriber {
    /// A channel ([`super::EventQueue::subscribe`], [`super::AgentSession::prompt`]): each event as it came.
    Channel(mpsc::UnboundedSender<SessionEvent>),
    /// A [`Subscription`] ([`super::EventQueue::subscribe_joined`], [`super::AgentSession::prompt_joined`]): text joined
    /// while the door is behind.
    Joined(Arc<Shared>),
}

impl Subscriber {
    /// Gives `event`; `Err(event)` when the receiving end went away.
    pub(crate) fn give(&self, event: SessionEvent) -> std::result::Result<(), SessionEvent> {
        match self {
            Subscriber::Channel(tx) => tx.send(event).map_err(|back| back.0),
            Subscriber::Joined(shared) => shared.push(event),
        }
    }

    /// Ends the subscription (what was given is still received).
    pub(crate) fn close(self) {
        if let Subscriber::Joined(shared) = self {
            shared.close();
        }
    }
}

/// The receiving end of [`super::EventQueue::subscribe_joined`] and
/// [`super::AgentSession::prompt_joined`]: the same
/// calls as a channel's receiver (`recv`, `try_recv`, `blocking_recv`).
pub struct Subscription {
    shared: Arc<Shared>,
}

impl Subscription {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Subscription { shared }
    }

    /// The next event, or `None` once the subscription has ended and every
    /// event was taken.
    pub async fn recv(&mut self) -> Option<SessionEvent> {
        let shared = Arc::clone(&self.shared);
        loop {
            let arrived = shared.arrived.notified();
            match self.try_recv() {
                Ok(event) => return Some(event),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => arrived.await,
            }
        }
    }

    /// The next event if one waits: `Empty` when none does yet,
    /// `Disconnected` once the subscription has ended.
    pub fn try_recv(&mut self) -> Result<SessionEvent, TryRecvError> {
        let mut waiting = lock(&self.shared.waiting);
        match waiting.events.pop_front() {
            Some(event) => Ok(event),
            None if waiting.closed => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    /// Like [`Subscription::recv`], blocking this thread (never call it on
    /// the engine's runtime).
    pub fn blocking_recv(&mut self) -> Option<SessionEvent> {
        let mut waiting = lock(&self.shared.waiting);
        loop {
            if let Some(event) = waiting.events.pop_front() {
                return Some(event);
            }
            if waiting.closed {
                return None;
            }
            waiting = self
                .shared
                .ready
                .wait(waiting)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// How many events wait (text joined counts once).
    pub fn len(&self) -> usize {
        lock(&self.shared.waiting).events.len()
    }

    /// Whether no event waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut waiting = lock(&self.shared.waiting);
        waiting.dropped = true;
        waiting.events.clear();
    }
}
