//! Per-hunk review at the permission prompt. The diffs of a `permission`
//! event carry their hunks (runs of changed lines separated by at least one
//! unchanged line, numbered from 0 a diff); the door answers with the hunks
//! the user kept, and radium takes the others back: before the write when
//! the agent writes through `fs/write_text_file`, right after the tool call
//! when the agent wrote the file itself (in the same undo step as its write).

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use similar::{Algorithm, DiffOp};

use crate::edit::{EditOutcome, EditSession};
use crate::error::{Error, Result};
use crate::support::atomic::{read_text_file, write_atomic};

/// The most hunks one diff is split into; past it, the diff is one hunk
/// (it can be accepted or rejected whole).
pub const MAX_HUNKS: usize = 1000;

/// The largest text (either side) split into hunks: 16 MiB, as the files
/// radium reads before a tool call. A larger diff has no hunks to review.
const MAX_HUNKED_TEXT: usize = 16 << 20;

/// How long the line diff may take before it settles for a coarser answer.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// How many unchanged lines around a rejected hunk must still match when it
/// is taken back from a text that is not the one proposed.
const CONTEXT: usize = 2;

/// One hunk: `old_lines` at line `old_start` (0-based) become `new_lines`,
/// which start at line `new_start` of the new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub old_start: usize,
    pub old_lines: Vec<String>,
    pub new_start: usize,
    pub new_lines: Vec<String>,
}

impl Hunk {
    fn to_json(&self, index: usize) -> Value {
        json!({
            "index": index,
            "old_start": self.old_start, "old_count": self.old_lines.len(),
            "new_start": self.new_start, "new_count": self.new_lines.len(),
            "old_lines": self.old_lines, "new_lines": self.new_lines,
        })
    }
}

/// The lines of a text, each with its line break.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The hunks from `old` to `new` (see the module's documentation).
pub(crate) fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    if old.len() > MAX_HUNKED_TEXT || new.len() > MAX_HUNKED_TEXT {
        return Vec::new();
    }
    let (a, b) = (lines(old), lines(new));
    let deadline = Instant::now().checked_add(DIFF_DEADLINE);
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, &a, &b, deadline);
    let mut out: Vec<Hunk> = Vec::new();
    let mut open: Option<Hunk> = None;
    for op in ops {
        if let DiffOp::Equal { .. } = op {
            out.extend(open.take());
            continue;
        }
        let (old_range, new_range) = (op.old_range(), op.new_range());
        let hunk = open.get_or_insert_with(|| Hunk {
            old_start: old_range.start,
            old_lines: Vec::new(),
            new_start: new_range.start,
            new_lines: Vec::new(),
        });
        hunk.old_lines
            .extend(a[old_range].iter().map(|l| (*l).to_owned()));
        hunk.new_lines
            .extend(b[new_range].iter().map(|l| (*l).to_owned()));
    }
    out.extend(open);
    if out.len() > MAX_HUNKS {
        let (first, last) = (&out[0], &out[out.len() - 1]);
        let old_end = last.old_start + last.old_lines.len();
        let new_end = last.new_start + last.new_lines.len();
        let whole = Hunk {
            old_start: first.old_start,
            old_lines: a[first.old_start..old_end]
                .iter()
                .map(|l| (*l).to_owned())
                .collect(),
            new_start: first.new_start,
            new_lines: b[first.new_start..new_end]
                .iter()
                .map(|l| (*l).to_owned())
                .collect(),
        };
        return vec![whole];
    }
    out
}

/// `old` with the hunks marked in `kept` applied (the others left out).
pub(crate) fn apply_kept(old: &str, hunks: &[Hunk], kept: &[bool]) -> String {
    let a = lines(old);
    let mut out = String::with_capacity(old.len());
    let mut at = 0;
    for (hunk, keep) in hunks.iter().zip(kept) {
        let start = hunk.old_start.min(a.len());
        out.extend(a[at.min(start)..start].iter().copied());
        if *keep {
            out.extend(hunk.new_lines.iter().map(String::as_str));
        } else {
            out.extend(hunk.old_lines.iter().map(String::as_str));
        }
        at = (hunk.old_start + hunk.old_lines.len()).min(a.len());
    }
    out.extend(a[at.min(a.len())..].iter().copied());
    out
}

/// Takes the rejected hunks (those not `kept`) back from `text`, which is
/// not the proposed `new` text (the agent wrote something else): each is
/// taken back where its new lines, with up to [`CONTEXT`] unchanged lines
/// around them, are found exactly once. Answers the text and the indices of
/// the hunks taken back and of those that no longer apply.
pub(crate) fn take_back_from(
    text: &str,
    new: &str,
    hunks: &[Hunk],
    kept: &[bool],
) -> (String, Vec<usize>, Vec<usize>) {
    let b = lines(new);
    let mut now: Vec<String> = lines(text).into_iter().map(str::to_owned).collect();
    let (mut done, mut left) = (Vec::new(), Vec::new());
    for (index, hunk) in hunks.iter().enumerate().rev() {
        if kept.get(index).copied().unwrap_or(true) {
            continue;
        }
        let end = (hunk.new_start + hunk.new_lines.len()).min(b.len());
        let before = hunk.new_start.saturating_sub(CONTEXT);
        let after = (end + CONTEXT).min(b.len());
        let block: Vec<&str> = b[before..after].to_vec();
        let mut back: Vec<String> = b[before..hunk.new_start.min(b.len())]
            .iter()
            .map(|l| (*l).to_owned())
            .collect();
        back.extend(hunk.old_lines.iter().cloned());
        back.extend(b[end..after].iter().map(|l| (*l).to_owned()));
        let found = if block.is_empty() {
            Vec::new()
        } else {
            now.windows(block.len())
                .enumerate()
                .filter(|(_, w)| w.iter().zip(&block).all(|(x, y)| x == y))
                .map(|(i, _)| i)
                .take(2)
                .collect()
        };
        match found.as_slice() {
            [at] => {
                now.splice(*at..*at + block.len(), back);
                done.push(index);
            }
            _ => left.push(index),
        }
    }
    done.reverse();
    left.reverse();
    (now.concat(), done, left)
}

/// One proposed change of a permission request, with its hunks.
#[derive(Debug, Clone)]
pub(crate) struct Proposed {
    /// The path as the agent named it (the key of the door's answer).
    pub path: String,
    /// The text before (`None`: a new file).
    pub old: Option<String>,
    /// The proposed text.
    pub new: String,
    /// Its hunks.
    pub hunks: Vec<Hunk>,
}

/// Adds `hunks` to each diff of a shown tool call; answers the changes
/// that can be reviewed hunk by hunk (the first diff of each path).
pub(crate) fn number_hunks(call: &mut Value) -> Vec<Proposed> {
    let mut proposed: Vec<Proposed> = Vec::new();
    let Some(diffs) = call.get_mut("diffs").and_then(Value::as_array_mut) else {
        return proposed;
    };
    for diff in diffs {
        let (Some(path), Some(new)) = (diff["path"].as_str(), diff["new_text"].as_str()) else {
            continue;
        };
        let (path, new) = (path.to_owned(), new.to_owned());
        let old = diff["old_text"].as_str().map(str::to_owned);
        let found = hunks(old.as_deref().unwrap_or(""), &new);
        diff["hunks"] = Value::Array(
            found
                .iter()
                .enumerate()
                .map(|(i, h)| h.to_json(i))
                .collect(),
        );
        if !proposed.iter().any(|p| p.path == path) {
            proposed.push(Proposed {
                path,
                old,
                new,
                hunks: found,
            });
        }
    }
    proposed
}

/// Checks the door's kept hunks (`{path: [index, ...]}`) against the
/// request's changes; answers, for each path named, which hunks are kept.
pub(crate) fn check_kept(
    proposed: &[Proposed],
    kept: &HashMap<String, Vec<usize>>,
) -> Result<Vec<(Proposed, Vec<bool>)>> {
    let mut out = Vec::new();
    let mut paths: Vec<&String> = kept.keys().collect();
    paths.sort();
    for path in paths {
        let Some(change) = proposed.iter().find(|p| &p.path == path) else {
            let known: Vec<&str> = proposed.iter().map(|p| p.path.as_str()).collect();
            return Err(Error::InvalidArgument(format!(
                "`hunks`: the request has no diff of `{path}` (its diffs: {})",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        };
        let mut keep = vec![false; change.hunks.len()];
        for &index in &kept[path] {
            let Some(slot) = keep.get_mut(index) else {
                return Err(Error::InvalidArgument(format!(
                    "`hunks`: `{path}` has {} hunks (0 to {}), not hunk {index}",
                    change.hunks.len(),
                    change.hunks.len().saturating_sub(1)
                )));
            };
            *slot = true;
        }
        out.push((change.clone(), keep));
    }
    Ok(out)
}

/// A reviewed change waiting for the agent's write: the rejected hunks are
/// taken back from it.
#[derive(Debug, Clone)]
pub(crate) struct Review {
    /// The tool call it belongs to (its `toolCallId`).
    pub call: String,
    /// The change as proposed.
    pub change: Proposed,
    /// Which of its hunks the user kept.
    pub kept: Vec<bool>,
}

impl Review {
    /// The indices of the hunks the user rejected.
    pub(crate) fn rejected(&self) -> Vec<usize> {
        (0..self.kept.len()).filter(|i| !self.kept[*i]).collect()
    }

    /// `written` (what the agent wrote or writes) with the rejected hunks
    /// taken back: answers the text, the hunks taken back and those that
    /// no longer apply.
    pub(crate) fn take_back(&self, written: &str) -> (String, Vec<usize>, Vec<usize>) {
        if written == self.change.new {
            let old = self.change.old.as_deref().unwrap_or("");
            return (
                apply_kept(old, &self.change.hunks, &self.kept),
                self.rejected(),
                Vec::new(),
            );
        }
        take_back_from(written, &self.change.new, &self.change.hunks, &self.kept)
    }
}

/// The `hunks` argument of `session-permission`: `{path: [index, ...]}`.
pub fn parse_kept(command: &str, value: &Value) -> Result<HashMap<String, Vec<usize>>> {
    let Value::Object(map) = value else {
        return Err(Error::InvalidArgument(format!(
            "`{command}`: `hunks` must be an object {{path: [hunk index, ...]}}"
        )));
    };
    let mut kept = HashMap::new();
    for (path, list) in map {
        let Some(items) = list.as_array() else {
            return Err(Error::InvalidArgument(format!(
                "`{command}`: `hunks.{path}` must be an array of hunk indices"
            )));
        };
        let mut indices = Vec::with_capacity(items.len().min(MAX_HUNKS));
        for item in items {
            let Some(i) = item.as_u64().and_then(|i| usize::try_from(i).ok()) else {
                return Err(Error::InvalidArgument(format!(
                    "`{command}`: `hunks.{path}` holds {item}, not a hunk index (a number from 0)"
                )));
            };
            indices.push(i);
        }
        kept.insert(path.clone(), indices);
    }
    Ok(kept)
}

/// Writes `text` (the agent's write with the rejected hunks taken back) to
/// `file` and records it in the same step as the agent's write (`first`).
pub(crate) fn record_take_back(
    edit: &mut EditSession,
    file: &Path,
    first: &EditOutcome,
    text: &str,
) -> Result<EditOutcome> {
    let after = read_text_file(file)
        .map_err(|e| Error::Edit(format!("cannot read `{}`: {e}", file.display())))?;
    write_atomic(file, text)?;
    let seq = first.data.get("seq").cloned().unwrap_or(Value::Null);
    let mut args = serde_json::Map::new();
    args.insert(
        "files".into(),
        json!([{"path": file, "old_text": after, "new_text": text}]),
    );
    args.insert("amend".into(), seq.clone());
    let mut second = edit.run("record", &args, first.tag.as_deref())?;
    second.data = json!({"path": first.data.get("path"), "seq": seq, "taken_back_seq": second.data.get("seq")});
    second.warnings.splice(0..0, first.warnings.iter().cloned());
    Ok(second)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "a\nb\nc\nd\ne\nf\ng\nh\n";
    const NEW: &str = "a\nB\nc\nd\ne\nf\nG\nh\n";

    #[test]
    fn two_separate_changes_are_two_hunks() {
        let found = hunks(OLD, NEW);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].old_start, 1);
        assert_eq!(found[1].new_lines, vec!["G\n".to_owned()]);
        assert_eq!(
            apply_kept(OLD, &found, &[true, false]),
            "a\nB\nc\nd\ne\nf\ng\nh\n"
        );
        assert_eq!(apply_kept(OLD, &found, &[false, false]), OLD);
        assert_eq!(apply_kept(OLD, &found, &[true, true]), NEW);
    }

    #[test]
    fn a_rejected_hunk_is_taken_back_from_another_text_where_it_applies() {
        let found = hunks(OLD, NEW);
        let other = "x\na\nB\nc\nd\ne\nf\nG\nh\n";
        let (text, done, left) = take_back_from(other, NEW, &found, &[true, false]);
        assert_eq!(text, "x\na\nB\nc\nd\ne\nf\ng\nh\n");
        assert_eq!((done, left), (vec![1], vec![]));
        let gone = "a\nB\nc\nd\n";
        let (text, done, left) = take_back_from(gone, NEW, &found, &[true, false]);
        assert_eq!(text, gone);
        assert_eq!((done, left), (vec![], vec![1]));
    }
}
