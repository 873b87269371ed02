//! Applying a code block to a target text, with a unified diff for preview,
//! and atomic writes.

use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use similar::TextDiff;

use crate::error::{Error, Result};

/// The result of applying a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyPreview {
    /// The whole new text.
    pub new_text: String,
    /// A unified diff from the old text to the new one (empty when unchanged).
    pub diff: String,
    /// Whether anything changed.
    pub changed: bool,
}

/// Replaces lines `start_line..=end_line` (1-based) of `original` with
/// `block` — or the whole text when `range` is `None` — and returns the new
/// text with a unified diff labelled with `label`.
///
/// The block's line endings follow the original's (`\\r\\n` files stay `\\r\\n`),
/// and a replaced range keeps the line break that followed it. A range may
/// end one line past the end of the text (appending); anything further is an
/// error.
pub fn apply_block(
    original: &str,
    block: &str,
    range: Option<(usize, usize)>,
    label: &str,
) -> Result<ApplyPreview> {
    let crlf = original.contains("\r\n");
    let mut block = block.replace("\r\n", "\n");
    if crlf {
        block = block.replace('\n', "\r\n");
    }
    let newline = if crlf { "\r\n" } else { "\n" };
    let new_text = match range {
        None => block,
        Some((start, end)) => {
            let lines: Vec<&str> = original.split_inclusive('\n').collect();
            if start == 0 || end < start {
                return Err(Error::InvalidArgument(format!(
                    "apply: lines are 1-based and end_line must not be before start_line (got {start}..{end})"
                )));
            }
            if start > lines.len() + 1 {
                return Err(Error::InvalidArgument(format!(
                    "apply: start_line {start} is past the end of the text ({} lines)",
                    lines.len()
                )));
            }
            let end = end.min(lines.len());
            let before: String = lines[..start - 1].concat();
            let after: String = lines[end.max(start - 1)..].concat();
            let mut middle = block;
            let replaced_had_newline = lines
                .get(end.saturating_sub(1))
                .is_some_and(|l| l.ends_with('\n'));
            if !middle.is_empty()
                && !middle.ends_with('\n')
                && (replaced_had_newline || !after.is_empty())
            {
                middle.push_str(newline);
            }
            if !before.is_empty() && !before.ends_with('\n') {
                // The text had no final newline and we append after it.
                return Ok(finish(
                    original,
                    format!("{before}{newline}{middle}{after}"),
                    label,
                ));
            }
            format!("{before}{middle}{after}")
        }
    };
    Ok(finish(original, new_text, label))
}

fn finish(original: &str, new_text: String, label: &str) -> ApplyPreview {
    let changed = new_text != original;
    let diff = if changed {
        TextDiff::from_lines(original, new_text.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{label}"), &format!("b/{label}"))
            .to_string()
    } else {
        String::new()
    };
    ApplyPreview {
        new_text,
        diff,
        changed,
    }
}

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
