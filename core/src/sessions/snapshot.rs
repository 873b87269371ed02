//! The text of the files a tool call names, read before it runs so that
//! what the agent changes itself can be recorded: shared between calls that
//! name the same text, and capped a file and a session.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::support::atomic::read_text_file;

/// The largest file radium reads before a tool call runs: 16 MiB. A larger
/// one is not read (a `notice` says so), and a change the agent makes to it
/// itself is not recorded.
pub const MAX_SNAPSHOT_FILE: u64 = 16 << 20;

/// The most text a session holds from before its tool calls, all files
/// together: 64 MiB. Calls naming a file whose text is held already share it.
pub const MAX_SNAPSHOTS: usize = 64 << 20;

/// A file's text before a tool call ran; what it holds is counted in the
/// session's total while it lives.
pub(crate) struct Snapshot {
    text: String,
    held: Arc<AtomicUsize>,
}

impl Snapshot {
    pub(crate) fn new(text: String, held: &Arc<AtomicUsize>) -> Arc<Self> {
        held.fetch_add(text.len(), Ordering::Relaxed);
        Arc::new(Snapshot {
            text,
            held: Arc::clone(held),
        })
    }

    /// The text.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        self.held.fetch_sub(self.text.len(), Ordering::Relaxed);
    }
}

/// What radium knows of a file before a tool call.
pub(crate) enum Before {
    /// Not read: over a cap (a notice says so).
    Skipped,
    /// Missing, or not text.
    Missing,
    /// Its text.
    Text(Arc<Snapshot>),
}

/// The text of `file` before a tool call: `shared` (another call's text of
/// it) when the file still holds it, else read within [`MAX_SNAPSHOT_FILE`]
/// and what the session may still hold of [`MAX_SNAPSHOTS`]; past them, a
/// notice (once a turn for a file) says why it was not read.
pub(crate) fn snapshot_of(
    file: &PathBuf,
    shared: Option<Arc<Snapshot>>,
    held: &Arc<AtomicUsize>,
    notices: &mut Vec<(PathBuf, String)>,
    skipped: &[PathBuf],
) -> Before {
    let Ok(size) = std::fs::metadata(file).map(|m| m.len()) else {
        return Before::Missing;
    };
    let mut skip = |why: String| {
        if !skipped.contains(file) && !notices.iter().any(|(f, _)| f == file) {
            notices.push((
                file.clone(),
                format!(
                    "radium did not read `{}` before the agent's tool call ({why}): a change the agent makes to it itself is not recorded, so undo cannot take it back",
                    file.display()
                ),
            ));
        }
        Before::Skipped
    };
    if size > MAX_SNAPSHOT_FILE {
        return skip(format!(
            "{} MiB, over the {} MiB radium reads",
            size >> 20,
            MAX_SNAPSHOT_FILE >> 20
        ));
    }
    if let Some(shared) = shared.filter(|s| s.text.len() as u64 == size) {
        let now = read_text_file(file).ok();
        if now.as_deref() == Some(shared.text()) {
            return Before::Text(shared);
        }
    }
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    if held.load(Ordering::Relaxed).saturating_add(size) > MAX_SNAPSHOTS {
        return skip(format!(
            "the session holds {} MiB of files from before its tool calls already",
            MAX_SNAPSHOTS >> 20
        ));
    }
    match read_text_file(file) {
        Ok(text) => Before::Text(Snapshot::new(text, held)),
        Err(_) => Before::Missing,
    }
}
