//! A session's events for JavaScript: each `sessionEvents` call settles a
//! Promise on the JS thread with the events that arrived since the last one
//! (waiting for the first), or `null` once the session has ended. The
//! engine keeps one subscription per session between calls.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::host::Done;

/// The subscriptions of one engine, by session id.
#[derive(Default, Clone)]
pub(crate) struct Streams(Arc<Mutex<HashMap<String, Stream>>>);

type Stream = Arc<tokio::sync::Mutex<UnboundedReceiver<Value>>>;

/// At most this many events settle one Promise (a flood is cut in batches).
const MAX_BATCH: usize = 1024;

impl Streams {
    /// The next batch of session `id`'s events; the first call subscribes
    /// to the session `entry` finds (later calls keep reading the same
    /// subscription, to its end, even once the session is closed).
    pub(crate) fn next(
        &self,
        id: &str,
        entry: impl FnOnce() -> radium_core::Result<radium_core::sessions::Entry>,
    ) -> radium_core::Result<impl std::future::Future<Output = Done> + Send + 'static> {
        let stream = {
            let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(stream) = map.get(id) {
                Arc::clone(stream)
            } else {
                let stream = Arc::new(tokio::sync::Mutex::new(entry()?.queue.subscribe()));
                map.insert(id.to_owned(), Arc::clone(&stream));
                stream
            }
        };
        let streams = self.clone();
        let id = id.to_owned();
        Ok(async move {
            let mut rx = stream.lock().await;
            let Some(first) = rx.recv().await else {
                streams
                    .0
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&id);
                return Done::Events(None);
            };
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(event) => batch.push(event),
                    Err(_) => break,
                }
            }
            Done::Events(Some(batch))
        })
    }
}
