//! A project: its root, its hash, its state folder under `$RADIUM_HOME`, its
//! lock, and paths confined to the root.

use std::fs::File;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::support::lock::lock_file;
use crate::support::paths::{check_protected, resolve};

/// A project rooted at a folder.
#[derive(Debug, Clone)]
pub struct Project {
    /// The root, with symlinks resolved.
    pub root: PathBuf,
    /// 16 hex digits of the root's hash; the first 4 start every dog tag.
    pub hash: String,
    /// `$RADIUM_HOME/<hash>/`: `history/` and `session.json`.
    pub state_dir: PathBuf,
}

/// FNV-1a, 64 bits: stable across runs and machines (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The prefix of a content hash made with XXH3 (64 bits). A stored hash
/// without it is the FNV-1a of earlier releases (16 hex digits), still read.
const XXH3: &str = "x3:";

/// A short content hash (for checking a file still holds what history
/// expects): `x3:` and the XXH3 of the text, at memory speed.
pub(crate) fn content_hash(text: &str) -> String {
    format!("{XXH3}{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

/// The content hash of `text` made with the scheme `stored` was made with
/// (history written by an earlier release keeps its FNV-1a hashes and
/// still undoes).
pub(crate) fn hash_like(text: &str, stored: &str) -> String {
    if stored.starts_with(XXH3) {
        content_hash(text)
    } else {
        format!("{:016x}", fnv1a(text.as_bytes()))
    }
}

/// Whether `text` has the content hash `stored` (in its scheme).
pub(crate) fn hash_matches(text: &str, stored: &str) -> bool {
    hash_like(text, stored) == stored
}

/// Whether two stored hashes were made with the same scheme.
pub(crate) fn same_scheme(a: &str, b: &str) -> bool {
    a.starts_with(XXH3) == b.starts_with(XXH3)
}

impl Project {
    /// The project rooted at `root` (which must be an existing folder).
    pub fn open(root: &Path, radium_home: &Path) -> Result<Self> {
        let real = root.canonicalize().map_err(|source| Error::Io {
            path: root.to_owned(),
            source,
        })?;
        if !real.is_dir() {
            return Err(Error::InvalidArgument(format!(
                "the project root `{}` is not a directory",
                root.display()
            )));
        }
        let hash = format!("{:016x}", fnv1a(real.as_os_str().as_encoded_bytes()));
        let state_dir = radium_home.join(&hash);
        Ok(Project {
            root: real,
            hash,
            state_dir,
        })
    }

    /// The 4-character prefix of this project's dog tags.
    pub fn tag_prefix(&self) -> &str {
        &self.hash[..4]
    }

    /// Resolves `path` (relative to the root, or absolute) to a path inside
    /// the root after resolving symlinks. `..` that climbs out, an absolute
    /// path elsewhere, a symlink that leads out, and NUL are refused.
    pub fn confine(&self, path: &str) -> Result<PathBuf> {
        if path.is_empty() {
            return Err(Error::InvalidArgument("path: is empty".into()));
        }
        if path.contains('\0') {
            return Err(Error::InvalidArgument(
                "path: contains a NUL character".into(),
            ));
        }
        let candidate = Path::new(path);
        let joined = if candidate.is_absolute() {
            candidate.to_path_buf()
        } else {
            self.root.join(candidate)
        };
        let real = resolve(&joined);
        if !real.starts_with(&self.root) {
            return Err(Error::OutsideProject(format!(
                "path `{path}` is outside the project `{}` (it resolves to `{}`)",
                self.root.display(),
                real.display()
            )));
        }
        Ok(real)
    }

    /// [`confine`](Self::confine) for a write: also refuses the protected
    /// folders (`.radium/`, `.git/`) unless the user's settings allow them.
    pub fn confine_write(&self, path: &str) -> Result<PathBuf> {
        let real = self.confine(path)?;
        let radium_home = self.state_dir.parent().unwrap_or(&self.state_dir);
        check_protected(&self.root, &real, radium_home)?;
        Ok(real)
    }

    /// `path` relative to the root, for messages and history.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Takes the project's write lock (an exclusive `flock` on
    /// `<state_dir>/lock`), released when the guard drops. Serialises writers
    /// across processes (two editors, an editor and the daemon).
    pub fn lock(&self) -> Result<ProjectLock> {
        std::fs::create_dir_all(self.state_dir.join("history")).map_err(|source| Error::Io {
            path: self.state_dir.clone(),
            source,
        })?;
        let file = lock_file(&self.state_dir.join("lock"), true)?
            .ok_or_else(|| Error::Edit("the project lock could not be taken".into()))?;
        Ok(ProjectLock { _file: file })
    }
}

/// The project's write lock; released on drop (closing the file releases the flock).
#[derive(Debug)]
pub struct ProjectLock {
    _file: File,
}
