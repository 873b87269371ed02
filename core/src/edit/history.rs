//! Changesets and the session (dog tags), stored under the project's state
//! folder: `history/<seq>.json` and `session.json`, each written atomically.
//!
//! A changeset stores what changed — a byte offset, the text removed, the
//! text inserted — and the content hashes before and after, never whole
//! copies (except for a created file, whose whole text is what changed).
//! Every operation belongs to one chain (a conversation, see
//! [`super::session`]); undo and redo take a chain's own operations back and
//! forth, and refuse where the file no longer shows what they expect.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::project::{content_hash, hash_like, hash_matches, same_scheme, Project};
use super::session::Session;
use super::text::{common_prefix, common_suffix, splice};
use crate::error::{Error, Result};
use crate::support::atomic::{read_text_file, write_atomic};

mod cache;
mod group;
mod recover;
mod turn;

pub use cache::EngineHold;
pub use group::FileChange;

/// One recorded edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changeset {
    /// Its sequence number (1, 2, ...), project-wide.
    pub seq: u64,
    /// The chain (conversation) it belongs to.
    #[serde(default)]
    pub chain: String,
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
    /// The first changeset of the step it belongs to, when one step changed
    /// several files (undo and redo take the whole step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u64>,
    /// Whether the change removed the file (a file moved away by a
    /// rename): its `old` is the whole text it had.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
}

impl Changeset {
    /// How a warning names it: `str-replace (file.ts) [seq:2]`.
    pub fn describe(&self) -> String {
        format!("{} ({}) [seq:{}]", self.command, self.file, self.seq)
    }
}

/// An undo or redo under way: written before the file, removed after the
/// session is saved, so a crash between the two is finished on the next load.
#[derive(Debug, Serialize, Deserialize)]
struct Pending {
    chain: String,
    seq: u64,
    undo: bool,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

fn damaged(path: &Path, what: &str, e: &serde_json::Error) -> Error {
    Error::Config {
        path: path.to_owned(),
        line: e.line(),
        column: e.column(),
        message: format!("the {what} is damaged: {e}"),
    }
}

/// Which side of a changeset the file shows: (before, after). Each stored
/// hash is compared with the scheme it was made with.
fn sides(cs: &Changeset, current: Option<&str>) -> (bool, bool) {
    // One hash of the text serves both sides when they share a scheme.
    let hash = current.map(|text| hash_like(text, &cs.after_hash));
    let before = match (current, &hash) {
        (Some(_), Some(h)) if same_scheme(&cs.before_hash, &cs.after_hash) => {
            cs.existed_before && *h == cs.before_hash
        }
        (Some(text), _) => cs.existed_before && hash_matches(text, &cs.before_hash),
        (None, _) => !cs.existed_before,
    };
    let after = if cs.removed {
        current.is_none()
    } else {
        hash.as_deref() == Some(cs.after_hash.as_str())
    };
    (before, after)
}

/// A file's text as a caller read it and checked it (None: missing).
struct Shown(Option<String>);

/// The history and session of one project (use under the project lock).
#[derive(Debug)]
pub struct History {
    project: Project,
    /// How many steps to keep (default 100); a step is every changeset one
    /// request made, however many files it changed.
    pub depth: u64,
    /// The session as loaded.
    pub session: Session,
    /// The session file as read (or last written), and the session it
    /// holds: a save of the same session writes nothing (a `view` changes
    /// no state).
    saved: Option<Arc<cache::Parsed>>,
}

impl History {
    fn session_path(&self) -> PathBuf {
        self.project.state_dir.join("session.json")
    }

    fn pending_path(&self) -> PathBuf {
        self.project.state_dir.join("pending.json")
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
            saved: None,
        };
        let path = history.session_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let parsed = if let Some(parsed) = cache::get(&path, &text) {
                    parsed
                } else {
                    let session: Session = serde_json::from_str(&text)
                        .and_then(Session::from_json)
                        .map_err(|e| damaged(&path, "session file", &e))?;
                    let parsed = Arc::new(cache::Parsed {
                        text,
                        session,
                        current: false,
                    });
                    cache::put(&path, Arc::clone(&parsed));
                    parsed
                };
                history.session = parsed.session.clone();
                history.saved = Some(parsed);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&path)(e)),
        }
        history.recover_undo_or_redo()?;
        history.recover_record()?;
        history.recover_join()?;
        Ok(history)
    }

    /// Writes the session atomically; nothing when the file already holds it.
    pub fn save(&mut self) -> Result<()> {
        if self
            .saved
            .as_ref()
            .is_some_and(|p| p.current && p.session == self.session)
        {
            return Ok(());
        }
        let text = serde_json::to_string_pretty(&self.session).unwrap_or_default();
        let path = self.session_path();
        // When the file holds this session as this release writes it, it is
        // not written again, only known to be current for the next request.
        if self.saved.as_ref().is_none_or(|p| p.text != text) {
            write_atomic(&path, &text)?;
        }
        let parsed = Arc::new(cache::Parsed {
            text,
            session: self.session.clone(),
            current: true,
        });
        cache::put(&path, Arc::clone(&parsed));
        self.saved = Some(parsed);
        Ok(())
    }

    /// Reads changeset `seq`.
    pub fn read_changeset(&self, seq: u64) -> Result<Changeset> {
        let path = self.changeset_path(seq);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::Edit(format!(
                    "operation [seq:{seq}] is no longer kept (the history keeps the last {} steps)",
                    self.depth
                ))
            } else {
                io(&path)(e)
            }
        })?;
        serde_json::from_str(&text).map_err(|e| damaged(&path, "changeset", &e))
    }

    /// Records and applies an edit in `chain`: `before` is the file's text
    /// (None: missing), `after` the new text; the changeset keeps only the
    /// changed region. Drops the chain's redo tail and prunes past the depth.
    pub fn record(
        &mut self,
        chain: &str,
        command: &str,
        file: &Path,
        before: Option<&str>,
        after: &str,
    ) -> Result<Changeset> {
        let change = FileChange {
            file,
            before,
            after: Some(after),
        };
        let mut sets = self.record_group(chain, command, &[change], true)?;
        Ok(sets.remove(0))
    }

    /// The changeset of one file's change, numbered `seq`.
    fn changeset(
        &self,
        seq: u64,
        chain: &str,
        command: &str,
        change: &FileChange<'_>,
    ) -> Changeset {
        // The changed region: common prefix and suffix removed.
        let (before, after) = (change.before.unwrap_or(""), change.after.unwrap_or(""));
        let prefix = common_prefix(before, after);
        let suffix = common_suffix(&before[prefix..], &after[prefix..]);
        Changeset {
            seq,
            chain: chain.to_owned(),
            command: command.to_owned(),
            file: self.project.relative(change.file),
            offset: prefix,
            old: before[prefix..before.len() - suffix].to_owned(),
            new: after[prefix..after.len() - suffix].to_owned(),
            existed_before: change.before.is_some(),
            before_hash: content_hash(before),
            after_hash: content_hash(after),
            group: None,
            removed: change.after.is_none(),
        }
    }

    /// Why `cs` cannot be taken back: the operation of another chain that
    /// changed its file since, if radium made it.
    fn changed_since(&self, cs: &Changeset, verb: &str) -> Error {
        let later = self
            .session
            .chains
            .iter()
            .filter(|(id, _)| **id != cs.chain)
            .flat_map(|(_, c)| {
                let applied = usize::try_from(c.len.saturating_sub(c.base)).unwrap_or(0);
                c.ops.iter().take(applied).copied().collect::<Vec<_>>()
            })
            .filter(|&seq| seq > cs.seq)
            .filter_map(|seq| self.read_changeset(seq).ok())
            .filter(|other| other.file == cs.file)
            .max_by_key(|other| other.seq);
        Error::Edit(match later {
            Some(other) => format!(
                "cannot {verb} {}: another conversation changed `{}` since ({})",
                cs.describe(),
                cs.file,
                other.describe()
            ),
            None => format!("cannot {verb} {}: the file changed since", cs.describe()),
        })
    }

    /// Writes `text` (None: removes the file) for an undo or redo of `cs`,
    /// with the crash marker around the write.
    fn replay(
        &mut self,
        cs: &Changeset,
        file: &Path,
        text: Option<&str>,
        undo: bool,
    ) -> Result<()> {
        let pending = Pending {
            chain: cs.chain.clone(),
            seq: cs.seq,
            undo,
        };
        let marker = self.pending_path();
        write_atomic(
            &marker,
            &serde_json::to_string(&pending).unwrap_or_default(),
        )?;
        match text {
            Some(text) => {
                if let Some(parent) = file.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                write_atomic(file, text)?;
            }
            None => std::fs::remove_file(file).map_err(io(file))?,
        }
        let chain = self.session.chain_mut(&pending.chain);
        if undo {
            chain.len -= 1;
        } else {
            chain.len += 1;
        }
        self.save()?;
        let _ = std::fs::remove_file(&marker);
        Ok(())
    }

    /// Undoes the last applied operation of `chain`.
    pub fn undo(&mut self, chain: &str) -> Result<Changeset> {
        self.undo_checked(chain, None)
    }

    /// [`History::undo`]; `checked` is the file's text when the caller read
    /// it and found it shows what the operation wrote (not read and hashed
    /// a second time).
    fn undo_checked(&mut self, chain: &str, checked: Option<String>) -> Result<Changeset> {
        let Some(seq) = self.session.chains.get(chain).and_then(|c| {
            if c.len > c.base {
                c.last_applied()
            } else {
                None
            }
        }) else {
            return Err(Error::Edit(if self.session.chain_len(chain) > 0 {
                format!(
                    "nothing more to undo: older operations are no longer kept (the history keeps the last {} steps)",
                    self.depth
                )
            } else {
                "nothing to undo".into()
            }));
        };
        let mut cs = self.read_changeset(seq)?;
        chain.clone_into(&mut cs.chain);
        // Confined again, protected folders refused: the tree may have
        // changed since (a folder replaced by a symlink that leads out, or
        // into `.git/` or `.radium/`).
        let file = self.project.confine_write(&cs.file)?;
        let current = if cs.removed {
            if file.exists() {
                return Err(self.changed_since(&cs, "undo"));
            }
            String::new()
        } else if let Some(text) = checked {
            text
        } else {
            let text = read_text_file(&file).map_err(io(&file))?;
            if !hash_matches(&text, &cs.after_hash) {
                return Err(self.changed_since(&cs, "undo"));
            }
            text
        };
        let end = cs.offset + cs.new.len();
        let text = cs.existed_before.then(|| {
            splice(
                current.get(..cs.offset).unwrap_or_default(),
                &cs.old,
                current.get(end..).unwrap_or_default(),
            )
        });
        self.replay(&cs, &file, text.as_deref(), true)?;
        Ok(cs)
    }

    /// Redoes the next operation of `chain`'s redo tail.
    pub fn redo(&mut self, chain: &str) -> Result<Changeset> {
        self.redo_checked(chain, None)
    }

    /// [`History::redo`]; `checked` is the file's text (None: missing) when
    /// the caller read it and found it shows the text before the operation.
    fn redo_checked(&mut self, chain: &str, checked: Option<Shown>) -> Result<Changeset> {
        let Some(seq) = self
            .session
            .chains
            .get(chain)
            .and_then(super::session::Chain::next_redo)
        else {
            return Err(Error::Edit("nothing to redo".into()));
        };
        let mut cs = self.read_changeset(seq)?;
        chain.clone_into(&mut cs.chain);
        // Confined again, protected folders refused: the tree may have
        // changed since (a folder replaced by a symlink that leads out, or
        // into `.git/` or `.radium/`).
        let file = self.project.confine_write(&cs.file)?;
        let current = if let Some(Shown(current)) = checked {
            current
        } else {
            let current = read_text_file(&file).ok();
            if !sides(&cs, current.as_deref()).0 {
                return Err(self.changed_since(&cs, "redo"));
            }
            current
        };
        let base = current.unwrap_or_default();
        let end = cs.offset + cs.old.len();
        let text = (!cs.removed).then(|| {
            splice(
                base.get(..cs.offset).unwrap_or_default(),
                &cs.new,
                base.get(end..).unwrap_or_default(),
            )
        });
        self.replay(&cs, &file, text.as_deref(), false)?;
        Ok(cs)
    }
}
