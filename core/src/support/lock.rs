//! Locks: whole-file locks (`flock`) that serialise processes (the project's
//! write lock and the daemon's one-per-home lock; released when the file is
//! closed, and so when the process ends, however it ends), and taking a
//! mutex that a panicking thread left poisoned.

use std::fs::File;
use std::os::fd::AsRawFd as _;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::error::{Error, Result};

/// Locks `mutex`, going on with its data if a thread panicked holding it
/// (the engine's state stays usable after a hook or a door panicked).
pub(crate) fn unpoisoned<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Opens (creating) `path` and takes an exclusive lock on it, waiting for it
/// when `wait`; without `wait`, `Ok(None)` means another holder has it.
pub(crate) fn lock_file(path: &Path, wait: bool) -> Result<Option<File>> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io)?;
    let how = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    // SAFETY: flock on a file descriptor we own; no memory is involved.
    let rc = unsafe { libc::flock(file.as_raw_fd(), how) };
    if rc == 0 {
        return Ok(Some(file));
    }
    let e = std::io::Error::last_os_error();
    if !wait && e.kind() == std::io::ErrorKind::WouldBlock {
        return Ok(None);
    }
    Err(io(e))
}
