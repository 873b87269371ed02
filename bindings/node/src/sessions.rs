//! A session's events for JavaScript: each `sessionEvents` call settles a
//! Promise on the JS thread with the events that arrived since the last one
//! (waiting for the first), or `null` once the session has ended. The
//! engine keeps one subscription per session between calls; it joins the
//! text a slow JS side has not taken yet (`subscribe_joined`), so a host
//! that falls behind holds about that text, not an event per chunk.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use radium_core::sessions::Subscription;
use serde_json::Value;

use crate::host::Done;

/// The subscriptions of one engine, by session id.
#[derive(Default, Clone)]
pub(crate) struct Streams(Arc<Mutex<HashMap<String, Stream>>>);

type Stream = Arc<tokio::sync::Mutex<Subscription>>;

/// At most this many events settle one Promise (a flood is cut in batches).
const MAX_BATCH: usize = 1024;

/// A batch stops growing past about this many bytes of strings: turning
/// one batch into JS objects is done on the JS thread, and 1,024 updates of
/// a command's 64 KiB output (64 MB) stalled VS Code's extension host for
/// up to 2.8 s (2026-11-27).
const MAX_BATCH_BYTES: usize = 1 << 20;

/// About how many bytes `value` becomes in JS: its strings, and a few per
/// value besides.
fn rough_size(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len() + 8,
        Value::Array(items) => items.iter().map(rough_size).sum::<usize>() + 8,
        Value::Object(map) => {
            map.iter()
                .map(|(k, v)| k.len() + rough_size(v))
                .sum::<usize>()
                + 8
        }
        _ => 8,
    }
}

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
                let stream = Arc::new(tokio::sync::Mutex::new(entry()?.queue.subscribe_joined()));
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
            let mut bytes = rough_size(&first);
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH && bytes < MAX_BATCH_BYTES {
                match rx.try_recv() {
                    Ok(event) => {
                        bytes += rough_size(&event);
                        batch.push(event);
                    }
                    Err(_) => break,
                }
            }
            Done::Events(Some(batch))
        })
    }
}
