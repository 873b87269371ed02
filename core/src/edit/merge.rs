//! `merge`: a three-way merge of an editor's unsaved text with a file's new
//! text, so that an agent's write (or an undo of one) never costs the user
//! the text they have not saved. Base = the file before the change, ours =
//! the buffer, theirs = the file now. Conflicts are written with the diff3
//! markers `solve-conflict` reads (see `conflict.rs`). The line diffs are
//! `similar`'s, under a deadline, so the merge's time is bounded.

use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use similar::{capture_diff_slices_deadline, Algorithm, DiffTag};

use super::conflict::Conflict;
use super::history::Changeset;
use super::project::{hash_matches, Project};
use super::text::splice;
use super::{read_text, EditSession};
use crate::error::{Error, Result};
use crate::support::json::{json_kind, optional_string_arg, string_arg};

/// The largest text (each of base, ours and theirs) a merge takes, in bytes:
/// the diff is linear in the texts, so this bounds its time and memory.
pub const MAX_MERGE_BYTES: usize = 8 << 20;

/// A merge's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The merged text; where both sides changed the same lines, a conflict
    /// region with diff3 markers (`<<<<<<< ours`, `||||||| original`,
    /// `=======`, `>>>>>>> theirs`).
    pub text: String,
    /// Whether both sides went in without a conflict.
    pub clean: bool,
    /// The conflict regions of `text`, in order.
    pub conflicts: Vec<Conflict>,
}

/// How long each of a merge's two line diffs may look for the smallest
/// diff; past it the diff is coarser (a conflict may be larger), so a merge
/// of two very different large texts still ends in bounded time.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// A changed region: base lines `base` became the side's lines `side`.
struct Hunk {
    base: Range<usize>,
    side: Range<usize>,
}

/// The changed regions from `base` to `side` (lines), in order.
fn hunks(base: &[&str], side: &[&str]) -> Vec<Hunk> {
    let deadline = Instant::now() + DIFF_DEADLINE;
    let mut out: Vec<Hunk> = Vec::new();
    for op in capture_diff_slices_deadline(Algorithm::Myers, base, side, Some(deadline)) {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.base.end == old.start && last.side.end == new.start => {
                last.base.end = old.end;
                last.side.end = new.end;
            }
            _ => out.push(Hunk {
                base: old,
                side: new,
            }),
        }
    }
    out
}

/// The side's lines standing for base lines `start..end`, where `hs` are
/// its hunks inside that range (none: the side kept the base's lines).
fn side_text(hs: &[Hunk], side: &[&str], base: &[&str], start: usize, end: usize) -> String {
    match (hs.first(), hs.last()) {
        (Some(first), Some(last)) => {
            let from = first.side.start - (first.base.start - start);
            let to = last.side.end + (end - last.base.end);
            side[from..to].concat()
        }
        _ => base[start..end].concat(),
    }
}

/// `text` as a conflict part: every marker starts a line.
fn part(text: &str) -> String {
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Merges `ours` and `theirs`, both made from `base`, line by line (diff3):
/// a region only one side changed takes that side's lines; one both
/// changed alike takes them once; one both changed otherwise (or touching
/// changes) is a conflict.
pub fn merge3(base: &str, ours: &str, theirs: &str) -> Merged {
    let plain = |text: &str| Merged {
        text: text.to_owned(),
        clean: true,
        conflicts: Vec::new(),
    };
    if ours == base || ours == theirs {
        return plain(theirs);
    }
    if theirs == base {
        return plain(ours);
    }
    let base_lines: Vec<&str> = base.split_inclusive('\n').collect();
    let our_lines: Vec<&str> = ours.split_inclusive('\n').collect();
    let their_lines: Vec<&str> = theirs.split_inclusive('\n').collect();
    let ours_hunks = hunks(&base_lines, &our_lines);
    let theirs_hunks = hunks(&base_lines, &their_lines);
    // The next hunk of each side, and the base lines written so far.
    let (mut next_ours, mut next_theirs, mut copied) = (0, 0, 0);
    let mut text = String::with_capacity(ours.len().max(theirs.len()));
    let mut conflicts = Vec::new();
    // The newlines of `text` up to `counted`, counted once however many
    // conflicts there are (linear, not a count from the top for each).
    let (mut counted, mut newlines) = (0, 0);
    loop {
        let start = match (ours_hunks.get(next_ours), theirs_hunks.get(next_theirs)) {
            (None, None) => break,
            (Some(hunk), None) | (None, Some(hunk)) => hunk.base.start,
            (Some(mine), Some(their)) => mine.base.start.min(their.base.start),
        };
        text.push_str(&base_lines[copied..start].concat());
        // The region: every hunk of either side that overlaps or touches it.
        let (first_ours, first_theirs, mut end) = (next_ours, next_theirs, start);
        loop {
            let before = (next_ours, next_theirs);
            if let Some(hunk) = ours_hunks.get(next_ours).filter(|h| h.base.start <= end) {
                end = end.max(hunk.base.end);
                next_ours += 1;
            }
            if let Some(hunk) = theirs_hunks
                .get(next_theirs)
                .filter(|h| h.base.start <= end)
            {
                end = end.max(hunk.base.end);
                next_theirs += 1;
            }
            if (next_ours, next_theirs) == before {
                break;
            }
        }
        let mine = side_text(
            &ours_hunks[first_ours..next_ours],
            &our_lines,
            &base_lines,
            start,
            end,
        );
        let their = side_text(
            &theirs_hunks[first_theirs..next_theirs],
            &their_lines,
            &base_lines,
            start,
            end,
        );
        if first_ours == next_ours {
            text.push_str(&their);
        } else if first_theirs == next_theirs || mine == their {
            text.push_str(&mine);
        } else {
            let at = text.len();
            let (ours, base, theirs) = (
                part(&mine),
                part(&base_lines[start..end].concat()),
                part(&their),
            );
            for piece in [
                "<<<<<<< ours\n",
                &ours,
                "||||||| original\n",
                &base,
                "=======\n",
                &theirs,
                ">>>>>>> theirs\n",
            ] {
                text.push_str(piece);
            }
            conflicts.push(Conflict {
                id: conflicts.len() as u64 + 1,
                line: {
                    newlines += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..at]).count();
                    counted = at;
                    newlines + 1
                },
                ours,
                base: Some(base),
                theirs,
                start: at,
                end: text.len(),
            });
        }
        copied = end;
    }
    text.push_str(&base_lines[copied..].concat());
    Merged {
        text,
        clean: conflicts.is_empty(),
        conflicts,
    }
}

/// The file's text before changeset `cs`, from `text`, the text it wrote;
/// `None` when `text` is not that.
fn unapply(cs: &Changeset, text: &str) -> Option<String> {
    if cs.removed || !hash_matches(text, &cs.after_hash) {
        return None;
    }
    if !cs.existed_before {
        return Some(String::new());
    }
    let end = cs.offset.checked_add(cs.new.len())?;
    let before = splice(text.get(..cs.offset)?, &cs.old, text.get(end..)?);
    hash_matches(&before, &cs.before_hash).then_some(before)
}

/// The text changeset `cs` wrote, from `text`, the text before it; `None`
/// when `text` is not that.
fn reapply(cs: &Changeset, text: &str) -> Option<String> {
    if cs.removed || !cs.existed_before || !hash_matches(text, &cs.before_hash) {
        return None;
    }
    let end = cs.offset.checked_add(cs.old.len())?;
    let after = splice(text.get(..cs.offset)?, &cs.new, text.get(end..)?);
    hash_matches(&after, &cs.after_hash).then_some(after)
}

/// The other side of `changes` (one file's changesets of one step, in
/// order) from `shown` (the file's text now): the text before them when
/// `shown` is what they wrote (an agent's write, a redo), the text they
/// wrote when `shown` is the text before them (they were undone). `None`
/// when `shown` is neither.
pub(crate) fn other_side(changes: &[Changeset], shown: &str) -> Option<String> {
    let undone = changes
        .iter()
        .rev()
        .try_fold(shown.to_owned(), |text, cs| unapply(cs, &text));
    undone.or_else(|| {
        changes
            .iter()
            .try_fold(shown.to_owned(), |text, cs| reapply(cs, &text))
    })
}

/// The changesets of `cs`'s step that changed `file`, in order: `cs` alone
/// (when it changed `file`), or for a step of several changesets (several
/// files, or an amended step: an agent's write and the hunks taken back from
/// it) each of them that changed `file`, found next to `cs` in its
/// conversation's operations.
fn step_changes(session: &EditSession, cs: Changeset, file: &str) -> Vec<Changeset> {
    let history = &session.history;
    let ops = history
        .session
        .chains
        .get(&cs.chain)
        .map(|c| c.ops.as_slice());
    let at = ops.and_then(|ops| ops.iter().position(|&s| s == cs.seq));
    let (Some(group), Some(ops), Some(at)) = (cs.group, ops, at) else {
        return if cs.file == file {
            vec![cs]
        } else {
            Vec::new()
        };
    };
    let same = |seq: &u64| {
        history
            .read_changeset(*seq)
            .ok()
            .filter(|c| c.group == Some(group))
    };
    let mut sets: Vec<Changeset> = ops[..at].iter().rev().map_while(same).collect();
    sets.push(cs);
    sets.extend(ops[at + 1..].iter().map_while(same));
    sets.retain(|c| c.file == file);
    sets.sort_by_key(|c| c.seq);
    sets
}

fn check_size(name: &str, text: &str) -> Result<()> {
    if text.len() > MAX_MERGE_BYTES {
        return Err(Error::InvalidArgument(format!(
            "`merge`: `{name}` is {} bytes; a merge takes texts of at most {} MiB",
            text.len(),
            MAX_MERGE_BYTES >> 20
        )));
    }
    Ok(())
}

/// `merge`: `{path, ours, base? | seq?, theirs?}` in the project at `root`.
/// `theirs` is the file's text on disk unless given; the base is `base`, or
/// the other side from `theirs` of what the step of operation `seq` (a
/// `write` event's, an undo's or a redo's) did to `path`. Answers `{path, text, clean, conflicts, changed}`.
pub(crate) fn command(
    args: &Map<String, Value>,
    root: &Path,
    radium_home: &Path,
    depth: u64,
) -> Result<Value> {
    let shown = string_arg("merge", args, "path")?;
    let ours = string_arg("merge", args, "ours")?;
    let base = optional_string_arg("merge", args, "base")?;
    let seq = match args.get("seq") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(other) => {
            return Err(Error::InvalidArgument(format!(
                "`merge`: argument `seq` must be a number (a `write` event's `seq`), got {}",
                json_kind(other)
            )))
        }
    };
    if base.is_some() && seq.is_some() {
        return Err(Error::InvalidArgument(
            "`merge`: give the base as `base` or as `seq`, not both".into(),
        ));
    }
    check_size("ours", ours)?;
    if let Some(base) = base {
        check_size("base", base)?;
    }
    let project = Project::open(root, radium_home)?;
    let file = project.confine(shown)?;
    let theirs = match optional_string_arg("merge", args, "theirs")? {
        Some(text) => text.to_owned(),
        None => read_text(&file, shown)?,
    };
    check_size("theirs", &theirs)?;
    let base = match (base, seq) {
        (Some(base), _) => base.to_owned(),
        (None, Some(seq)) => {
            let session = EditSession::open(root, radium_home, depth)?;
            let cs = session.history.read_changeset(seq)?;
            let relative = project.relative(&file);
            let named = cs.file.clone();
            let changes = step_changes(&session, cs, &relative);
            if changes.is_empty() {
                return Err(Error::InvalidArgument(format!(
                    "`merge`: the step of operation [seq:{seq}] changed `{named}`, not `{relative}`"
                )));
            }
            other_side(&changes, &theirs).ok_or_else(|| {
                Error::Edit(format!(
                    "cannot merge `{shown}`: it shows neither side of operation [seq:{seq}] (it changed since); give the text both sides started from as `base`"
                ))
            })?
        }
        (None, None) => {
            return Err(Error::InvalidArgument(
                "`merge`: missing the base: `base` (the text both sides started from) or `seq` (a `write` event's operation, whose other side is the base)".into(),
            ))
        }
    };
    let merged = merge3(&base, ours, &theirs);
    Ok(json!({
        "path": shown,
        "changed": merged.text != ours,
        "text": merged.text,
        "clean": merged.clean,
        "conflicts": merged.conflicts,
    }))
}
