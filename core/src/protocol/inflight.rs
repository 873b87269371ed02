//! The requests in flight that carry an `id`, so that `cancel` can stop them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

/// The cancel tokens of the requests in flight that carry an `id`.
#[derive(Debug, Default)]
pub(crate) struct Inflight {
    next: AtomicU64,
    by_id: Mutex<HashMap<String, Vec<(u64, CancellationToken)>>>,
}

impl Inflight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<(u64, CancellationToken)>>> {
        // A panic while the map is held cannot leave it inconsistent (each
        // change is one insert or remove), so a poisoned lock is still usable.
        self.by_id
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a request; the guard unregisters it when the request ends
    /// or is dropped.
    pub(crate) fn register(self: &Arc<Self>, id: &str) -> (CancellationToken, InflightGuard) {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        self.lock()
            .entry(id.to_owned())
            .or_default()
            .push((seq, token.clone()));
        let guard = InflightGuard {
            inflight: Arc::clone(self),
            id: id.to_owned(),
            seq,
        };
        (token, guard)
    }

    /// Whether no request with an `id` is in flight.
    pub(crate) fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Cancels every request in flight with `id`; answers how many.
    pub(crate) fn cancel(&self, id: &str) -> usize {
        let tokens = self.lock().remove(id).unwrap_or_default();
        for (_, token) in &tokens {
            token.cancel();
        }
        tokens.len()
    }
}

pub(crate) struct InflightGuard {
    inflight: Arc<Inflight>,
    pub(crate) id: String,
    seq: u64,
}

impl Drop for InflightGuard {
    fn drop(&mut self) {
        let mut map = self.inflight.lock();
        if let Some(list) = map.get_mut(&self.id) {
            list.retain(|(seq, _)| *seq != self.seq);
            if list.is_empty() {
                map.remove(&self.id);
            }
        }
    }
}
