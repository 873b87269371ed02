//! Atomic file writes: a temporary file in the same folder, flushed, then
//! renamed over the target; and the clean-up of temporaries that killed
//! writers left behind.

use std::io::Write as _;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `text` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over the target. Readers see the old content
/// or the new one, never a mix. An existing file keeps its permissions; a new
/// one gets `0666` less the process's umask, like any file a program creates.
/// A symlink is written through to its target (the link stays a link).
/// Anything but a regular file (a folder, FIFO, socket or device) is refused
/// before it is opened, so a write never blocks on one.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        std::fs::canonicalize(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?
    } else {
        path.to_owned()
    };
    let path = target.as_path();
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let existing = std::fs::metadata(path).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return Err(io(not_regular()));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let permissions = existing.map_or_else(new_file_permissions, |m| m.permissions());
    let mut temp = tempfile::Builder::new()
        .prefix(".radium-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    temp.write_all(text.as_bytes()).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    std::fs::set_permissions(temp.path(), permissions).map_err(io)?;
    temp.persist(path).map_err(|e| io(e.error))?;
    // Make the rename itself durable.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    remove_stale_temporaries(dir);
    Ok(())
}

/// The error for a path that is not a regular file.
pub(crate) fn not_regular() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "not a regular file (a folder, FIFO, socket or device): refused",
    )
}

/// `0666` less the process's umask, read from `/proc/self/status` (setting
/// and restoring the umask to read it would race with other threads).
fn new_file_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    let umask = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Umask:"))
                .and_then(|mask| u32::from_str_radix(mask.trim(), 8).ok())
        })
        .unwrap_or(0o022);
    std::fs::Permissions::from_mode(0o666 & !umask)
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

/// Reads a regular file as UTF-8 text. It is opened without blocking and
/// refused unless it is a regular file, so a FIFO or device never hangs the
/// caller (who may hold the project lock).
pub(crate) fn read_text_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text)
}
