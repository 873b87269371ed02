//! Atomic file writes: a temporary file in the same folder, flushed, then
//! renamed over the target; and the clean-up of temporaries that killed
//! writers left behind.

use std::io::Write as _;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `text` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over the target. An existing file keeps its
/// permissions. Readers see the old content or the new one, never a mix.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut temp = tempfile::Builder::new()
        .prefix(".radium-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    temp.write_all(text.as_bytes()).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    if let Some(permissions) = permissions {
        std::fs::set_permissions(temp.path(), permissions).map_err(io)?;
    }
    temp.persist(path).map_err(|e| io(e.error))?;
    // Make the rename itself durable.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    remove_stale_temporaries(dir);
    Ok(())
}

/// A temporary file of `write_atomic` older than this was left by a writer
/// that was killed mid-write (a live write takes milliseconds).
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the temporary files that killed writers left in `dir` (only ours,
/// `.radium-*.tmp`, and only old ones, so a write in flight is never touched).
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        // Exactly the names tempfile makes for us (case matters).
        let ours = name
            .strip_prefix(".radium-")
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some();
        if !ours {
            continue;
        }
        let old = entry
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE_TEMPORARY);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
