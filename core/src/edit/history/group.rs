//! Steps: the changesets one request made, recorded together and taken back
//! and forth together. A step that changed several files (a rename across
//! files, a reviewed change an editor applied) is a group: its changesets
//! share `group`, the number of the first. Undo and redo check every file of
//! a group before they write any, so a group is never left half undone.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use super::{io, sides, Changeset, History, Shown};
use crate::error::{Error, Result};
use crate::support::atomic::{read_text_file, write_atomic};

/// One file's part of a step: its text before (None: it was missing) and after.
#[derive(Debug, Clone, Copy)]
pub struct FileChange<'a> {
    /// The file (confined to the project).
    pub file: &'a Path,
    /// Its text before the step, None when it did not exist.
    pub before: Option<&'a str>,
    /// Its text after the step, None when the step removes it (a file
    /// moved away by a rename).
    pub after: Option<&'a str>,
}

impl History {
    /// Records `changes` in `chain` as one step (a group when there are
    /// several), writing each file's new text when `write` is set (otherwise
    /// the files already hold it: an editor wrote them). Drops the chain's
    /// redo tail and prunes past the depth. The changesets are written
    /// first and the session last, so a crash between is finished on the
    /// next load (see `recover_record`).
    pub fn record_group(
        &mut self,
        chain: &str,
        command: &str,
        changes: &[FileChange<'_>],
        write: bool,
    ) -> Result<Vec<Changeset>> {
        self.record_into(chain, command, changes, write, None)
    }

    /// The group the chain's last applied step is, for changesets that join
    /// it (`record` with `amend`), when that step holds changeset `seq`:
    /// None when it does not (the conversation moved on, or the step was
    /// undone). A step of one changeset becomes a group of its own first.
    pub fn amend_group(&mut self, chain: &str, seq: u64) -> Result<Option<u64>> {
        let Some((last, earlier)) = self.applied(chain) else {
            return Ok(None);
        };
        let mut sets = self.step_from(last, earlier.iter().rev().copied())?;
        if !sets.iter().any(|cs| cs.seq == seq) {
            return Ok(None);
        }
        if let [only] = sets.as_mut_slice() {
            if only.group.is_none() {
                only.group = Some(only.seq);
                let text = serde_json::to_string(&*only).unwrap_or_default();
                write_atomic(&self.changeset_path(only.seq), &text)?;
            }
        }
        Ok(sets[0].group)
    }

    /// The chain's applied operations: the last, and those before it.
    fn applied(&self, chain: &str) -> Option<(u64, Vec<u64>)> {
        let c = self.session.chains.get(chain)?;
        let n = usize::try_from(c.len.saturating_sub(c.base)).unwrap_or(0);
        let (&last, earlier) = c.ops[..n.min(c.ops.len())].split_last()?;
        Some((last, earlier.to_vec()))
    }

    /// [`History::record_group`], the changesets joining `group` when given.
    pub fn record_into(
        &mut self,
        chain: &str,
        command: &str,
        changes: &[FileChange<'_>],
        write: bool,
        group: Option<u64>,
    ) -> Result<Vec<Changeset>> {
        let first = self.session.next_seq;
        let joined = group;
        let group = group.or((changes.len() > 1).then_some(first));
        let sets: Vec<Changeset> = (first..)
            .zip(changes)
            .map(|(seq, change)| {
                let mut cs = self.changeset(seq, chain, command, change);
                cs.group = group;
                cs
            })
            .collect();
        let tail = self.session.chain_mut(chain).take_redo_tail();
        for &seq in &tail {
            let _ = std::fs::remove_file(self.changeset_path(seq));
        }
        self.session.steps.retain(|head| !tail.contains(head));
        for cs in &sets {
            let text = serde_json::to_string(cs).unwrap_or_default();
            write_atomic(&self.changeset_path(cs.seq), &text)?;
        }
        if write {
            for change in changes {
                if let Some(parent) = change.file.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                match change.after {
                    Some(after) => write_atomic(change.file, after)?,
                    None => std::fs::remove_file(change.file).map_err(io(change.file))?,
                }
            }
        }
        let entry = self.session.chain_mut(chain);
        entry.ops.extend(sets.iter().map(|cs| cs.seq));
        entry.len += sets.len() as u64;
        self.session.next_seq += sets.len() as u64;
        if joined.is_none() && !sets.is_empty() {
            self.session.steps.push(first);
        }
        self.prune_steps();
        self.save()?;
        Ok(sets)
    }

    /// Keeps the last `depth` steps, whole: the changesets of older steps
    /// are removed, never part of a step (the one just recorded least of
    /// all, however many files it has).
    fn prune_steps(&mut self) {
        let depth = usize::try_from(self.depth).unwrap_or(usize::MAX);
        let excess = self.session.steps.len().saturating_sub(depth);
        let Some(&oldest) = self.session.steps.get(excess).filter(|_| excess > 0) else {
            return;
        };
        let first = self.session.steps[0];
        // The changesets of the dropped steps, and any older ones (a
        // history written before steps were counted).
        for seq in first..oldest {
            let _ = std::fs::remove_file(self.changeset_path(seq));
        }
        let mut seq = first.min(oldest) - 1;
        while seq > 0 && std::fs::remove_file(self.changeset_path(seq)).is_ok() {
            seq -= 1;
        }
        // A changeset that joined a dropped step later (`record` with
        // `amend`) follows that step's in its chain: it goes too.
        let mut gone = BTreeSet::new();
        for chain in self.session.chains.values() {
            let applied = usize::try_from(chain.len.saturating_sub(chain.base)).unwrap_or(0);
            let ops = &chain.ops[..applied.min(chain.ops.len())];
            let front = ops.iter().take_while(|&&s| s < oldest).count();
            if front == 0 {
                continue;
            }
            for &seq in &ops[front..] {
                match self.read_changeset(seq) {
                    Ok(cs) if cs.group.is_some_and(|g| g < oldest) => gone.insert(seq),
                    _ => break,
                };
            }
        }
        for &seq in &gone {
            let _ = std::fs::remove_file(self.changeset_path(seq));
        }
        for seq in self.session.prune(oldest, &gone) {
            let _ = std::fs::remove_file(self.changeset_path(seq));
        }
    }

    /// The changesets of the step `next` starts, walking `ops` (the
    /// chain's operations in the order the step is taken).
    fn step_from(&self, next: u64, ops: impl Iterator<Item = u64>) -> Result<Vec<Changeset>> {
        let head = self.read_changeset(next)?;
        let group = head.group;
        let mut sets = vec![head];
        if group.is_some() {
            for seq in ops {
                match self.read_changeset(seq) {
                    Ok(cs) if cs.group == group => sets.push(cs),
                    _ => break,
                }
            }
        }
        Ok(sets)
    }

    /// Undoes the last step of `chain`: its last operation, or every file of
    /// the group it belongs to. Refuses, changing nothing, when one of the
    /// files no longer shows what the step wrote.
    pub fn undo_step(&mut self, chain: &str) -> Result<Vec<Changeset>> {
        let Some((last, earlier)) = self.applied(chain) else {
            // The plain undo says why there is nothing.
            return self.undo(chain).map(|cs| vec![cs]);
        };
        let sets = self.step_from(last, earlier.iter().rev().copied())?;
        // A step whose first changesets are no longer kept (a history
        // written before whole steps were kept) is not undone at all.
        if let Some(group) = sets[0]
            .group
            .filter(|g| !sets.iter().any(|cs| cs.seq == *g))
        {
            return Err(Error::Edit(format!(
                "cannot undo {}: part of its step (from [seq:{group}]) is no longer kept, so it cannot be undone whole (the history keeps the last {} steps); nothing undone",
                sets[0].describe(),
                self.depth
            )));
        }
        // A file changed twice in the step (an amended step) is checked
        // against its last change: each undo leaves what the one before
        // wrote.
        let mut seen = HashSet::new();
        let mut checked = None;
        for cs in sets.iter().filter(|cs| seen.insert(cs.file.as_str())) {
            // Confined again, protected folders refused: the tree may have
            // changed since (a folder swapped for a symlink).
            let current = read_text_file(&self.project.confine_write(&cs.file)?).ok();
            if !sides(cs, current.as_deref()).1 {
                return Err(self.changed_since(cs, "undo"));
            }
            checked = current;
        }
        if let ([_], Some(text)) = (sets.as_slice(), checked) {
            // One file, read and checked: not read and hashed again.
            return self.undo_checked(chain, Some(text)).map(|cs| vec![cs]);
        }
        sets.iter().map(|_| self.undo(chain)).collect()
    }

    /// Redoes the next step of `chain`'s redo tail (every file of a group).
    pub fn redo_step(&mut self, chain: &str) -> Result<Vec<Changeset>> {
        let tail = self.session.chains.get(chain).map(|c| {
            let n = usize::try_from(c.len.saturating_sub(c.base)).unwrap_or(0);
            c.ops.get(n..).unwrap_or_default().to_vec()
        });
        let Some((&next, later)) = tail.as_deref().and_then(<[u64]>::split_first) else {
            return self.redo(chain).map(|cs| vec![cs]);
        };
        let sets = self.step_from(next, later.iter().copied())?;
        let mut seen = HashSet::new();
        let mut checked = None;
        for cs in sets.iter().filter(|cs| seen.insert(cs.file.as_str())) {
            // Confined again, protected folders refused: the tree may have
            // changed since (a folder swapped for a symlink).
            let current = read_text_file(&self.project.confine_write(&cs.file)?).ok();
            if !sides(cs, current.as_deref()).0 {
                return Err(self.changed_since(cs, "redo"));
            }
            checked = Some(Shown(current));
        }
        if let ([_], Some(current)) = (sets.as_slice(), checked) {
            // One file, read and checked: not read and hashed again.
            return self.redo_checked(chain, Some(current)).map(|cs| vec![cs]);
        }
        sets.iter().map(|_| self.redo(chain)).collect()
    }
}
