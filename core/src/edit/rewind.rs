//! `rewind`: the files of a conversation put back to a tag (a prompt's
//! `tag_before`: "restore the files to before this prompt"), or, with
//! `dry_run`, what that would change, changing nothing.
//!
//! Arguments: `tag` (required), `dry_run` (default false), `diffs` (with
//! `dry_run`, default false: also each file's text now and as the rewind
//! would leave it, `diffs: [{file, old_text, new_text}]` by path, a missing file's
//! text `null`; files changed since by someone else are left out, and a
//! rewind forward gives none). A tag behind
//! the conversation's state undoes its steps since, whole (a tag inside a
//! step rewinds past the whole step); a tag ahead of it (a restore to an
//! earlier prompt taken back) redoes them. Only that conversation's own
//! operations move: a file changed since by someone else stops the rewind
//! there, with a warning (`partial: true`). Answers `files` (each once),
//! `operations` (`[{seq, command, file}]`, in the order they are taken),
//! `direction` (`undo` or `redo`) and `partial`.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::text::splice;
use super::{Changeset, EditOutcome, EditSession};
use crate::error::{Error, Result};
use crate::support::json::{bool_arg, string_arg};

/// A file a rewind would stop at (changed since by someone else), and the
/// warning that says so.
type Blocked = (String, String);

fn listing(sets: &[Changeset]) -> (Vec<String>, Vec<Value>) {
    let mut seen = HashSet::new();
    let files = sets
        .iter()
        .filter(|cs| seen.insert(cs.file.clone()))
        .map(|cs| cs.file.clone())
        .collect();
    let ops = sets
        .iter()
        .map(|cs| json!({"seq": cs.seq, "command": cs.command, "file": cs.file}))
        .collect();
    (files, ops)
}

impl EditSession {
    /// Each file of `sets` (an undo's, newest first) but the `blocked` ones
    /// (changed since by someone else: the plan's check), with its text now
    /// and its text once they are taken back (`None`: the file is missing).
    fn texts_before(
        &self,
        sets: &[Changeset],
        blocked: &[Blocked],
    ) -> Vec<(String, Option<String>, Option<String>)> {
        let mut files: Vec<(String, Option<String>, Option<String>)> = Vec::new();
        for cs in sets {
            if blocked.iter().any(|(file, _)| *file == cs.file) {
                continue;
            }
            let i = if let Some(i) = files.iter().position(|(f, _, _)| *f == cs.file) {
                i
            } else {
                let now = self
                    .project
                    .confine_write(&cs.file)
                    .ok()
                    .and_then(|f| crate::support::atomic::read_text_file(&f).ok());
                files.push((cs.file.clone(), now.clone(), now));
                files.len() - 1
            };
            let current = files[i].2.take().unwrap_or_default();
            let end = cs.offset + cs.new.len();
            files[i].2 = cs.existed_before.then(|| {
                splice(
                    current.get(..cs.offset).unwrap_or_default(),
                    &cs.old,
                    current.get(end..).unwrap_or_default(),
                )
            });
        }
        files
    }

    /// The changesets a rewind of `chain` from its position to `at` would
    /// take, in order, whole steps, with the files that would stop it (each
    /// with its warning).
    fn rewind_plan(&self, chain: &str, at: u64) -> Result<(Vec<Changeset>, Vec<Blocked>)> {
        let s = &self.history.session;
        let Some(c) = s.chains.get(chain) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let undo = at < c.len;
        let index = |pos: u64| usize::try_from(pos.checked_sub(c.base)?).ok();
        let (lo, hi) = if undo { (at, c.len) } else { (c.len, at) };
        let (Some(mut lo), Some(mut hi)) = (index(lo.max(c.base)), index(hi)) else {
            return Ok((Vec::new(), Vec::new()));
        };
        hi = hi.min(c.ops.len());
        let mut sets = Vec::new();
        for &seq in &c.ops[lo..hi] {
            sets.push(self.history.read_changeset(seq)?);
        }
        // Whole steps: a tag inside a step takes the whole step.
        let group_at =
            |i: usize| -> Option<u64> { self.history.read_changeset(*c.ops.get(i)?).ok()?.group };
        if undo {
            while lo > 0
                && sets
                    .first()
                    .and_then(|cs| cs.group)
                    .is_some_and(|g| group_at(lo - 1) == Some(g))
            {
                lo -= 1;
                sets.insert(0, self.history.read_changeset(c.ops[lo])?);
            }
            sets.reverse();
        } else {
            while sets
                .last()
                .and_then(|cs| cs.group)
                .is_some_and(|g| group_at(hi) == Some(g))
            {
                sets.push(self.history.read_changeset(c.ops[hi])?);
                hi += 1;
            }
        }
        // The first change of each file taken must find the file as that
        // change left it (undo) or found it (redo).
        let mut seen = HashSet::new();
        let mut blocked = Vec::new();
        for cs in sets.iter().filter(|cs| seen.insert(cs.file.clone())) {
            let (before, after) = self.history.file_shows(cs);
            if !(if undo { after } else { before }) {
                let warning = format!(
                    "`{}` changed since {} (not by this conversation): the rewind stops there",
                    cs.file,
                    cs.describe()
                );
                blocked.push((cs.file.clone(), warning));
            }
        }
        Ok((sets, blocked))
    }

    /// Runs `rewind` (see the module's documentation).
    pub(super) fn rewind_command(&mut self, args: &Map<String, Value>) -> Result<EditOutcome> {
        let tag = string_arg("rewind", args, "tag")?.to_owned();
        let dry_run = bool_arg("rewind", args, "dry_run")?;
        let Some(point) = self.history.session.tags.get(&tag).cloned() else {
            return Err(Error::Edit(format!(
                "cannot rewind: {}; nothing changed",
                self.unknown_tag(&tag)
            )));
        };
        let chain = point.chain;
        let len = self.history.session.chain_len(&chain);
        let direction = if point.at > len { "redo" } else { "undo" };
        let (plan, blocked) = self.rewind_plan(&chain, point.at)?;
        let diffs = bool_arg("rewind", args, "diffs")?;
        if dry_run {
            let (files, operations) = listing(&plan);
            let partial = !blocked.is_empty();
            let mut data = json!({
                "tag": tag, "dry_run": true, "direction": direction,
                "files": files, "operations": operations, "partial": partial,
            });
            if diffs {
                let mut texts = if direction == "undo" {
                    self.texts_before(&plan, &blocked)
                } else {
                    Vec::new()
                };
                // By path, as `git diff` lists them.
                texts.sort_by(|a, b| a.0.cmp(&b.0));
                data["diffs"] = texts
                    .into_iter()
                    .map(|(file, now, before)| {
                        json!({"file": file, "old_text": before, "new_text": now})
                    })
                    .collect();
            }
            return Ok(EditOutcome {
                data,
                tag: Some(tag),
                warnings: blocked.into_iter().map(|(_, warning)| warning).collect(),
            });
        }
        let mut done = Vec::new();
        let mut warnings = Vec::new();
        loop {
            let now = self.history.session.chain_len(&chain);
            let step = match now.cmp(&point.at) {
                std::cmp::Ordering::Greater => self.history.undo_step(&chain),
                std::cmp::Ordering::Less => self.history.redo_step(&chain),
                std::cmp::Ordering::Equal => break,
            };
            match step {
                Ok(sets) => {
                    let moved = self.history.session.chain_len(&chain);
                    done.extend(sets);
                    if (moved < point.at) != (now < point.at) || moved == now {
                        // Past the tag: it was inside the step, taken whole.
                        break;
                    }
                }
                Err(e) => {
                    let left = self.history.session.chain_len(&chain).abs_diff(point.at);
                    warnings.push(format!(
                        "partial rewind: {e}; {left} operation(s) of this conversation were not {direction}ne"
                    ));
                    break;
                }
            }
        }
        let reached = self.history.session.chain_len(&chain) == point.at;
        let tag_now = if reached {
            if let Some(c) = self.history.session.chains.get_mut(&chain) {
                c.current_tag = Some(tag.clone());
            }
            tag.clone()
        } else {
            self.new_tag(&chain)
        };
        self.history.save()?;
        let (files, operations) = listing(&done);
        Ok(EditOutcome {
            data: json!({
                "tag": tag, "direction": direction, "files": files,
                "operations": operations, "partial": !warnings.is_empty(),
            }),
            tag: Some(tag_now),
            warnings,
        })
    }
}
