//! Changesets and the session (dog tags), stored under the project's state
//! folder: `history/<seq>.json` and `session.json`, each written atomically.
//!
//! A changeset stores what changed — a byte offset, the text removed, the
//! text inserted — and the content hashes before and after, never whole
//! copies (except for a created file, whose whole text is what changed).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::project::{content_hash, Project};
use crate::error::{Error, Result};
use crate::support::atomic::{read_text_file, write_atomic};

/// One recorded edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changeset {
    /// Its sequence number (1, 2, ...).
    pub seq: u64,
    /// The command that made it (`create`, `str-replace`, `insert`, `solve-conflict`).
    pub command: String,
    /// The file, relative to the project root.
    pub file: String,
    /// Byte offset of the change.
    pub offset: usize,
    /// Text removed at `offset`.
    pub old: String,
    /// Text inserted at `offset`.
    pub new: String,
    /// Whether the file existed before (an empty file is not a missing one).
    pub existed_before: bool,
    /// Content hash before the change.
    pub before_hash: String,
    /// Content hash after the change.
    pub after_hash: String,
}

/// The session: which changesets are applied, and the dog tags issued.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The last applied changeset (0: none).
    pub applied: u64,
    /// The highest changeset kept (above `applied`: the redo tail).
    pub top: u64,
    /// The lowest changeset kept.
    pub oldest: u64,
    /// Each tag and the `applied` count it was issued at.
    pub tags: BTreeMap<String, u64>,
    /// The tag of the current state.
    pub current_tag: Option<String>,
    /// The order tags were issued in (for pruning).
    #[serde(default)]
    pub tag_order: Vec<String>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// The history and session of one project (use under the project lock).
#[derive(Debug)]
pub struct History {
    project: Project,
    /// How many changesets to keep (default 100).
    pub depth: u64,
    /// The session as loaded.
    pub session: Session,
}

impl History {
    fn session_path(&self) -> PathBuf {
        self.project.state_dir.join("session.json")
    }

    fn changeset_path(&self, seq: u64) -> PathBuf {
        self.project
            .state_dir
            .join("history")
            .join(format!("{seq:08}.json"))
    }

    /// Loads the session, finishing or discarding a change interrupted by a crash.
    pub fn load(project: &Project, depth: u64) -> Result<Self> {
        let mut history = History {
            project: project.clone(),
            depth: depth.max(1),
            session: Session::default(),
        };
        let path = history.session_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                history.session = serde_json::from_str(&text).map_err(|e| Error::Config {
                    path: path.clone(),
                    line: e.line(),
                    column: e.column(),
                    message: format!("the session file is damaged: {e}"),
                })?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&path)(e)),
        }
        history.recover()?;
        Ok(history)
    }

    /// An undo or redo whose file write happened but whose session save did
    /// not (a crash between the two): the file already shows the other side
    /// of the changeset. The session is moved to match, so the last edit can
    /// be undone (and the interrupted one redone) as if nothing had happened.
    /// Answers whether it moved the session.
    fn recover_undo_or_redo(&mut self) -> Result<bool> {
        let side = |history: &Self, seq: u64| -> Option<(bool, bool)> {
            let cs = history.read_changeset(seq).ok()?;
            let file = history.project.confine(&cs.file).ok()?;
            let hash = read_text_file(&file).ok().map(|t| content_hash(&t));
            let before = match &hash {
                Some(h) => cs.existed_before && *h == cs.before_hash,
                None => !cs.existed_before,
            };
            let after = hash.as_deref() == Some(cs.after_hash.as_str());
            Some((before, after))
        };
        let applied = self.session.applied;
        if applied > 0 && applied >= self.session.oldest {
            if let Some((true, false)) = side(self, applied) {
                self.session.applied -= 1;
                self.save()?;
                return Ok(true);
            }
        }
        if applied < self.session.top {
            if let Some((false, true)) = side(self, applied + 1) {
                self.session.applied += 1;
                self.save()?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A changeset written after `applied` means a crash between recording it
    /// and saving the session: if the file already has the new content, the
    /// change happened (roll forward); otherwise it did not (discard it).
    fn recover(&mut self) -> Result<()> {
        if self.recover_undo_or_redo()? {
            return Ok(());
        }
        let next = self.session.applied + 1;
        if next <= self.session.top {
            return Ok(()); // a genuine redo tail
        }
        let path = self.changeset_path(next);
        let Ok(cs) = self.read_changeset(next) else {
            let _ = std::fs::remove_file(&path);
            return Ok(());
        };
        let Ok(file) = self.project.confine(&cs.file) else {
            let _ = std::fs::remove_file(&path);
            return Ok(());
        };
        let current = read_text_file(&file).ok();
        if current.as_deref().map(content_hash) == Some(cs.after_hash.clone()) {
            self.session.applied = next;
            self.session.top = next;
            if self.session.oldest == 0 {
                self.session.oldest = next;
            }
            self.save()?;
        } else {
            let _ = std::fs::remove_file(&path);
        }
        Ok(())
    }

    /// Writes the session atomically.
    pub fn save(&self) -> Result<()> {
        let text = serde_json::to_string_pretty(&self.session).unwrap_or_default();
        write_atomic(&self.session_path(), &text)
    }

    /// Reads changeset `seq`.
    pub fn read_changeset(&self, seq: u64) -> Result<Changeset> {
        let path = self.changeset_path(seq);
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        serde_json::from_str(&text).map_err(|e| Error::Config {
            path: path.clone(),
            line: e.line(),
            column: e.column(),
            message: format!("the changeset is damaged: {e}"),
        })
    }

    /// Records and applies an edit: `before` is the file's text (None:
    /// missing), `after` the new text; the changeset keeps only the changed
    /// region. Drops the redo tail and prunes past the depth.
    pub fn record(
        &mut self,
        command: &str,
        file: &Path,
        before: Option<&str>,
        after: &str,
    ) -> Result<Changeset> {
        // The changed region: common prefix and suffix removed.
        let old_text = before.unwrap_or("");
        let prefix = common_prefix(old_text, after);
        let suffix = common_suffix(&old_text[prefix..], &after[prefix..]);
        let cs = Changeset {
            seq: self.session.applied + 1,
            command: command.to_owned(),
            file: self.project.relative(file),
            offset: prefix,
            old: old_text[prefix..old_text.len() - suffix].to_owned(),
            new: after[prefix..after.len() - suffix].to_owned(),
            existed_before: before.is_some(),
            before_hash: content_hash(old_text),
            after_hash: content_hash(after),
        };
        for seq in cs.seq..=self.session.top {
            let _ = std::fs::remove_file(self.changeset_path(seq));
        }
        let text = serde_json::to_string(&cs).unwrap_or_default();
        write_atomic(&self.changeset_path(cs.seq), &text)?;
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        write_atomic(file, after)?;
        self.session.applied = cs.seq;
        self.session.top = cs.seq;
        if self.session.oldest == 0 {
            self.session.oldest = cs.seq;
        }
        while self.session.top - self.session.oldest + 1 > self.depth {
            let _ = std::fs::remove_file(self.changeset_path(self.session.oldest));
            self.session.oldest += 1;
        }
        self.save()?;
        Ok(cs)
    }

    /// Undoes the last applied changeset.
    pub fn undo(&mut self) -> Result<Changeset> {
        if self.session.applied == 0 || self.session.applied < self.session.oldest {
            return Err(Error::Edit("nothing to undo".into()));
        }
        let cs = self.read_changeset(self.session.applied)?;
        // Confined again: the tree may have changed since (a folder
        // replaced by a symlink that leads out).
        let file = self.project.confine(&cs.file)?;
        let current = read_text_file(&file).map_err(io(&file))?;
        if content_hash(&current) != cs.after_hash {
            return Err(Error::Edit(format!(
                "cannot undo {} ({}) [seq:{}]: the file changed since",
                cs.command, cs.file, cs.seq
            )));
        }
        if cs.existed_before {
            let text = format!(
                "{}{}{}",
                &current[..cs.offset],
                cs.old,
                &current[cs.offset + cs.new.len()..]
            );
            write_atomic(&file, &text)?;
        } else {
            std::fs::remove_file(&file).map_err(io(&file))?;
        }
        self.session.applied -= 1;
        self.save()?;
        Ok(cs)
    }

    /// Redoes the next changeset of the redo tail.
    pub fn redo(&mut self) -> Result<Changeset> {
        if self.session.applied >= self.session.top {
            return Err(Error::Edit("nothing to redo".into()));
        }
        let cs = self.read_changeset(self.session.applied + 1)?;
        // Confined again: the tree may have changed since (a folder
        // replaced by a symlink that leads out).
        let file = self.project.confine(&cs.file)?;
        let current = read_text_file(&file).ok();
        let matches = match &current {
            Some(text) => cs.existed_before && content_hash(text) == cs.before_hash,
            None => !cs.existed_before,
        };
        if !matches {
            return Err(Error::Edit(format!(
                "cannot redo {} ({}) [seq:{}]: the file changed since",
                cs.command, cs.file, cs.seq
            )));
        }
        let base = current.unwrap_or_default();
        let text = format!(
            "{}{}{}",
            &base[..cs.offset],
            cs.new,
            &base[cs.offset + cs.old.len()..]
        );
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        write_atomic(&file, &text)?;
        self.session.applied += 1;
        self.save()?;
        Ok(cs)
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) || !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - n) || !b.is_char_boundary(b.len() - n) {
        n -= 1;
    }
    n
}
