//! The engine's log: what it did that a user may want to read when
//! something goes wrong (a request that failed, an agent or a language
//! server that started, stopped or wrote to its stderr), kept in memory and
//! handed to the door. Nothing is written to the host's stderr or to a
//! file: an engine lives inside an editor, which shows the log where its
//! users look (VS Code's output channel, `:RadiumLog`, the `log` request).
//!
//! The last [`CAPACITY`] entries are kept; each has a sequence number, so a
//! door that polls (`log` with `since`) sees every entry once. Listeners
//! get each entry as it is written, on the thread that writes it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

/// How many entries the log keeps.
pub const CAPACITY: usize = 1000;

/// How much an entry matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// A process's own output (an agent's or a server's stderr).
    Debug,
    /// Something the engine did (a session opened, a server started).
    Info,
    /// Something that did not work (a request that failed, a crash).
    Warn,
}

impl Level {
    /// The level's name in the protocol.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
        }
    }

    /// The level named `name`, if any.
    #[must_use]
    pub fn parse(name: &str) -> Option<Level> {
        match name {
            "debug" => Some(Level::Debug),
            "info" => Some(Level::Info),
            "warn" => Some(Level::Warn),
            _ => None,
        }
    }
}

/// One line of the log.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its number: one more than the entry before.
    pub seq: u64,
    /// When it was written, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// How much it matters.
    pub level: Level,
    /// The part that wrote it: `request`, `session`, `lsp`.
    pub source: &'static str,
    /// What happened, in one line.
    pub message: String,
}

impl Entry {
    /// The entry as the protocol gives it.
    #[must_use]
    pub fn to_json(&self) -> Value {
        json!({
            "seq": self.seq, "time_ms": self.time_ms, "level": self.level.as_str(),
            "source": self.source, "message": self.message,
        })
    }
}

/// The longest message an entry keeps, in bytes: a longer one is cut at a
/// character boundary and says how much was cut, so the log's memory stays
/// bounded (at most [`CAPACITY`] entries of this size) whatever it is given.
pub const MAX_MESSAGE: usize = 4096;

/// A function called with every entry written.
pub type Listener = Arc<dyn Fn(&Entry) + Send + Sync>;

#[derive(Default)]
struct Inner {
    entries: VecDeque<Entry>,
    next: u64,
    listeners: Vec<(u64, Listener)>,
    next_listener: u64,
}

/// The log of one engine (shared by its parts).
#[derive(Default)]
pub struct Log {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log").finish_non_exhaustive()
    }
}

impl Log {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes an entry; the listeners get it (outside the log's lock).
    pub fn write(&self, level: Level, source: &'static str, message: impl Into<String>) {
        let time_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut message: String = message.into();
        if message.len() > MAX_MESSAGE {
            let end = super::text::floor_char_boundary(&message, MAX_MESSAGE - 64);
            let cut = message.len() - end;
            message.truncate(end);
            let _ = std::fmt::Write::write_fmt(&mut message, format_args!("… ({cut} more bytes)"));
        }
        if message.contains('\n') {
            message = message.replace('\n', " ⏎ ");
        }
        let (entry, listeners) = {
            let mut inner = self.lock();
            let entry = Entry {
                seq: inner.next,
                time_ms,
                level,
                source,
                message,
            };
            inner.next += 1;
            if inner.entries.len() == CAPACITY {
                inner.entries.pop_front();
            }
            inner.entries.push_back(entry.clone());
            let listeners: Vec<Listener> =
                inner.listeners.iter().map(|(_, l)| Arc::clone(l)).collect();
            (entry, listeners)
        };
        for listener in listeners {
            // A listener that panics must not take the writer down.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener(&entry)));
        }
    }

    /// The entries from number `since` on (those still kept) at `level` or
    /// above, and the number the next entry will have.
    #[must_use]
    pub fn since(&self, since: u64, level: Level) -> (Vec<Entry>, u64) {
        let inner = self.lock();
        let entries = inner
            .entries
            .iter()
            .filter(|e| e.seq >= since && e.level >= level)
            .cloned()
            .collect();
        (entries, inner.next)
    }

    /// Calls `listener` with every entry written from now on, until
    /// [`unsubscribe`](Self::unsubscribe) with the number answered.
    pub fn subscribe(&self, listener: Listener) -> u64 {
        let mut inner = self.lock();
        let id = inner.next_listener;
        inner.next_listener += 1;
        inner.listeners.push((id, listener));
        id
    }

    /// Stops calling listener `id`; whether there was one.
    pub fn unsubscribe(&self, id: u64) -> bool {
        let mut inner = self.lock();
        let before = inner.listeners.len();
        inner.listeners.retain(|(i, _)| *i != id);
        inner.listeners.len() != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_entries_numbers_them_and_tells_listeners() {
        let log = Log::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let store = Arc::clone(&seen);
        let id = log.subscribe(Arc::new(move |e: &Entry| {
            store.lock().expect("lock").push(e.message.clone());
        }));
        log.write(Level::Info, "session", "agent `a` started");
        log.write(Level::Debug, "session", "line one\nline two");
        let (all, next) = log.since(0, Level::Debug);
        assert_eq!(next, 2);
        assert_eq!(all[1].message, "line one ⏎ line two");
        assert_eq!(log.since(0, Level::Info).0.len(), 1);
        assert_eq!(log.since(1, Level::Debug).0.len(), 1);
        assert!(log.unsubscribe(id));
        assert!(!log.unsubscribe(id));
        log.write(Level::Warn, "request", "after");
        assert_eq!(
            seen.lock().expect("lock").len(),
            2,
            "no call after unsubscribe"
        );
        for i in 0..CAPACITY {
            log.write(Level::Info, "request", format!("{i}"));
        }
        let (kept, next) = log.since(0, Level::Debug);
        assert_eq!(kept.len(), CAPACITY);
        assert_eq!(kept[0].seq, next - CAPACITY as u64);
        assert_eq!(Level::parse("warn"), Some(Level::Warn));
        assert_eq!(Level::parse("loud"), None);
    }

    #[test]
    fn a_listener_that_panics_does_not_stop_the_writer() {
        let log = Log::default();
        log.subscribe(Arc::new(|_: &Entry| panic!("listener broke")));
        log.write(Level::Info, "request", "still written");
        assert_eq!(log.since(0, Level::Debug).0.len(), 1);
    }
}
