//! Applying a code block to a target text, with a unified diff for preview,
//! and atomic writes.

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
