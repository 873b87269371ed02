//! A turn of an agent session as one step: every operation its conversation
//! applied during the turn (the agent's writes through radium, those it
//! made itself, the `rad mcp` edits it asked for, a door's take-back) is
//! joined into one group at the turn's end, so one undo takes the whole
//! turn back and one redo brings it all back.
//!
//! The join is crash-safe: a marker naming the changesets is written first,
//! then the changesets, then the session; a marker left by a crash is
//! finished on the next load.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::History;
use crate::error::Result;
use crate::support::atomic::write_atomic;

/// A join under way: the changesets that become one step.
#[derive(Debug, Serialize, Deserialize)]
struct Joining {
    chain: String,
    seqs: Vec<u64>,
}

impl History {
    fn joining_path(&self) -> PathBuf {
        self.project.state_dir.join("joining.json")
    }

    /// Joins the operations `chain` applied from position `from` (a tag's
    /// `at`) to its current one into one step; answers how many changesets
    /// the step holds (0: nothing was applied since). Leading operations
    /// that belong to an earlier step (a take-back joined to it) stay
    /// there, and so do operations no longer kept.
    pub fn join_since(&mut self, chain: &str, from: u64) -> Result<usize> {
        let Some(c) = self.session.chains.get(chain) else {
            return Ok(0);
        };
        let start = usize::try_from(from.max(c.base) - c.base).unwrap_or(usize::MAX);
        let end = usize::try_from(c.len.saturating_sub(c.base)).unwrap_or(0);
        let Some(ops) = c.ops.get(start..end.min(c.ops.len())) else {
            return Ok(0);
        };
        let mut seqs = ops.to_vec();
        // A changeset joined to a step begun before the turn stays in it.
        while let Some(&seq) = seqs.first() {
            match self.read_changeset(seq)?.group {
                Some(g) if g < seq => {
                    seqs.remove(0);
                }
                _ => break,
            }
        }
        if seqs.len() < 2 {
            return Ok(seqs.len());
        }
        let joining = Joining {
            chain: chain.to_owned(),
            seqs,
        };
        let marker = self.joining_path();
        write_atomic(
            &marker,
            &serde_json::to_string(&joining).unwrap_or_default(),
        )?;
        self.finish_join(&joining)?;
        let _ = std::fs::remove_file(&marker);
        Ok(joining.seqs.len())
    }

    /// Gives every changeset of `joining` the first one's number as its
    /// group, then keeps only that one as a step's head. Running it again
    /// changes nothing.
    fn finish_join(&mut self, joining: &Joining) -> Result<()> {
        let Some(&first) = joining.seqs.first() else {
            return Ok(());
        };
        for &seq in &joining.seqs {
            let Ok(mut cs) = self.read_changeset(seq) else {
                continue;
            };
            if cs.group != Some(first) {
                cs.group = Some(first);
                write_atomic(
                    &self.changeset_path(seq),
                    &serde_json::to_string(&cs).unwrap_or_default(),
                )?;
            }
        }
        let later = &joining.seqs[1..];
        self.session.steps.retain(|head| !later.contains(head));
        if !self.session.steps.contains(&first) {
            let at = self.session.steps.partition_point(|&h| h < first);
            self.session.steps.insert(at, first);
        }
        self.save()
    }

    /// A join interrupted by a crash is finished (its marker names every
    /// changeset, each already written).
    pub(super) fn recover_join(&mut self) -> Result<()> {
        let marker = self.joining_path();
        let Ok(text) = std::fs::read_to_string(&marker) else {
            return Ok(());
        };
        if let Ok(joining) = serde_json::from_str::<Joining>(&text) {
            self.finish_join(&joining)?;
        }
        let _ = std::fs::remove_file(&marker);
        Ok(())
    }
}

impl History {
    /// Whether the file of `cs` shows its text (before, after) the change.
    pub fn file_shows(&self, cs: &super::Changeset) -> (bool, bool) {
        let current = self
            .project
            .confine_write(&cs.file)
            .ok()
            .and_then(|file| crate::support::atomic::read_text_file(&file).ok());
        super::sides(cs, current.as_deref())
    }
}
