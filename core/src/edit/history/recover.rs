//! Crash recovery on load: an undo or redo, or a recorded change, whose
//! session save did not happen is finished or discarded.

use super::{io, sides, History, Pending};
use crate::edit::session::LEGACY_CHAIN;
use crate::error::Result;
use crate::support::atomic::read_text_file;

impl History {
    /// An undo or redo whose file write may have happened while its session
    /// save did not (a crash between the two): the session is moved to what
    /// the file shows, so the last edit can be undone (and the interrupted
    /// one redone) as if nothing had happened.
    pub(super) fn recover_undo_or_redo(&mut self) -> Result<()> {
        let path = self.pending_path();
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(());
        };
        if let Ok(p) = serde_json::from_str::<Pending>(&text) {
            let shown = self.read_changeset(p.seq).ok().and_then(|cs| {
                let file = self.project.confine_write(&cs.file).ok()?;
                Some(sides(&cs, read_text_file(&file).ok().as_deref()))
            });
            let chain = self.session.chain_mut(&p.chain);
            match shown {
                Some((true, false)) if p.undo && chain.last_applied() == Some(p.seq) => {
                    chain.len -= 1;
                }
                Some((false, true)) if !p.undo && chain.next_redo() == Some(p.seq) => {
                    chain.len += 1;
                }
                _ => {}
            }
            self.save()?;
        }
        std::fs::remove_file(&path).map_err(io(&path))
    }

    /// A changeset numbered `next_seq` means a crash between recording it
    /// and saving the session: if the file already has the new content, the
    /// change happened (roll forward); otherwise it did not (discard it).
    /// A step of several files is looked at one changeset after the other.
    pub(super) fn recover_record(&mut self) -> Result<()> {
        loop {
            let seq = self.session.next_seq;
            let path = self.changeset_path(seq);
            if !path.exists() {
                return Ok(());
            }
            let happened = self.read_changeset(seq).ok().filter(|cs| {
                self.project
                    .confine_write(&cs.file)
                    .is_ok_and(|file| sides(cs, read_text_file(&file).ok().as_deref()).1)
            });
            let Some(cs) = happened else {
                // Nothing after a change that did not happen is kept.
                let mut seq = seq;
                while std::fs::remove_file(self.changeset_path(seq)).is_ok() {
                    seq += 1;
                }
                return Ok(());
            };
            let id = if cs.chain.is_empty() {
                LEGACY_CHAIN
            } else {
                &cs.chain
            };
            let chain = self.session.chain_mut(id);
            let tail = chain.take_redo_tail();
            chain.ops.push(seq);
            chain.len += 1;
            self.session.steps.retain(|head| !tail.contains(head));
            if cs.group.is_none_or(|g| g == seq) {
                self.session.steps.push(seq);
            }
            self.session.next_seq += 1;
            self.save()?;
        }
    }
}
