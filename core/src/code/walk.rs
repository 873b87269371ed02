//! The workspace's source files of a language: the fallback searches them
//! and servers that only know what they are shown are shown them.

use std::path::{Path, PathBuf};

/// Folders never searched: tools' output and dependencies.
const SKIPPED: &[&str] = &["node_modules", "target", "__pycache__", "dist", "build"];

/// Files larger than this are not searched (generated or minified code).
pub const MAX_FILE: u64 = 4 << 20;

/// The files under `root` with one of `extensions`, sorted, at most `max`:
/// hidden folders (`.git`, `.radium`, `.venv`) and [`SKIPPED`] ones left
/// out, symbolic links not followed.
pub fn source_files(root: &Path, extensions: &[String], max: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_owned()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries.into_iter().rev() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIPPED.contains(&name.as_ref()) {
                    folders.push(entry.path());
                }
            } else if kind.is_file()
                && extensions.iter().any(|e| {
                    name.rsplit_once('.')
                        .is_some_and(|(_, x)| x.eq_ignore_ascii_case(e))
                })
                && entry.metadata().is_ok_and(|m| m.len() <= MAX_FILE)
            {
                found.push(entry.path());
            }
        }
    }
    found.sort();
    found.truncate(max);
    found
}
