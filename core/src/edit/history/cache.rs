//! Parsed session files kept across requests in one process (`rad mcp`,
//! the daemon, an editor's engine), so a request whose session file did not
//! change since the last one neither parses it nor writes it: a `view` costs
//! the same with 1,000 tags as with one. The file is still read each time
//! and compared byte for byte with the text the cache was made from (another
//! process may have written it), so the cache can never answer stale state.
//!
//! A library host (C, Neovim, Node) gets its memory back with its engines:
//! when the last [`EngineHold`] is dropped, the cache is emptied.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::edit::session::Session;

/// How many projects' sessions are kept (all are dropped when one more comes).
const MAX_CACHED: usize = 16;

/// A session file's text and the session it holds.
#[derive(Debug)]
pub(super) struct Parsed {
    /// The file's text.
    pub(super) text: String,
    /// The session it holds.
    pub(super) session: Session,
    /// Whether `text` is known to be what saving `session` writes (a file
    /// of an older format is rewritten at the next save, even unchanged).
    pub(super) current: bool,
}

fn cache() -> &'static Mutex<HashMap<PathBuf, Arc<Parsed>>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Parsed>>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// The parsed session of the file at `path` when its text is `text`.
pub(super) fn get(path: &Path, text: &str) -> Option<Arc<Parsed>> {
    let cache = cache().lock().ok()?;
    cache.get(path).filter(|p| p.text == text).cloned()
}

/// Keeps `parsed` as the session of the file at `path`.
pub(super) fn put(path: &Path, parsed: Arc<Parsed>) {
    let Ok(mut cache) = cache().lock() else {
        return;
    };
    if cache.len() >= MAX_CACHED && !cache.contains_key(path) {
        cache.clear();
    }
    cache.insert(path.to_owned(), parsed);
}

/// How many engines hold the cache.
static HOLDERS: AtomicUsize = AtomicUsize::new(0);

/// An engine's hold on the cache: the last one dropped empties it (and
/// frees its table), so a host that freed its engines holds none of it.
#[derive(Debug)]
pub struct EngineHold(());

impl Default for EngineHold {
    fn default() -> Self {
        HOLDERS.fetch_add(1, Ordering::SeqCst);
        EngineHold(())
    }
}

impl Drop for EngineHold {
    fn drop(&mut self) {
        if HOLDERS.fetch_sub(1, Ordering::SeqCst) == 1 {
            if let Ok(mut cache) = cache().lock() {
                *cache = HashMap::new();
            }
        }
    }
}
