//! Path resolution shared by every part that confines paths to a folder.

use std::path::{Component, Path, PathBuf};

/// Resolves `path` component by component: every prefix that exists is
/// canonicalised (symlinks followed), so `..` after a symlink goes where the
/// file system goes; parts that do not exist yet are joined as written.
pub(crate) fn resolve(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if let Ok(real) = out.canonicalize() {
                    out = real;
                }
            }
        }
    }
    out
}
