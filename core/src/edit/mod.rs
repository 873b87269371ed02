//! Edit tools with undo/redo and dog-tag sessions (seed 001).
//!
//! Commands: `view`, `create`, `str-replace`, `insert`, `undo`, `redo`,
//! `solve-conflict`, `record` (edits an editor made, see `record.rs`) and
//! `rewind` (files back to a tag, or its preview: see `rewind.rs`). Every path is confined to the project root (the
//! request's `cwd`, or the engine's workspace); every write is atomic, recorded
//! as a changeset, serialised by the project lock, and answered with a new dog
//! tag. A request carrying an older tag first undoes what its conversation
//! did after it (each conversation has its own chain of operations: see
//! `tags.rs` and `session.rs`).

pub(crate) mod commands;
mod conflict;
mod history;
pub(crate) mod merge;
mod project;
mod record;
mod rewind;
mod session;
mod tags;
mod text;

use std::io::Read as _;
use std::path::Path;

use serde_json::{json, Map, Value};

pub use conflict::{find_conflicts, Conflict};
pub use history::{Changeset, EngineHold, FileChange, History};
pub use merge::{merge3, Merged, MAX_MERGE_BYTES};
pub use project::{Project, ProjectLock};
pub use session::{Chain, Session, TagPoint, SESSION_VERSION};

use crate::error::{Error, Result};
use crate::support::atomic::read_text_file;
use crate::support::json::{line_arg, string_arg};
use crate::support::names::COMMANDS;

/// The edit commands: the last nine of the protocol's commands, from `view`.
pub const EDIT_COMMANDS: &[&str] = COMMANDS.split_at(COMMANDS.len() - 9).1;

/// The default history depth.
pub const DEFAULT_DEPTH: u64 = 100;

/// What an edit command produced, with the session's tag and warnings.
#[derive(Debug, Clone, Default)]
pub struct EditOutcome {
    /// The command's result.
    pub data: Value,
    /// The tag of the state after the command.
    pub tag: Option<String>,
    /// Rewind warnings and the like.
    pub warnings: Vec<String>,
}

fn random_tag_part() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut bytes = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_err()
    {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (u64::try_from(nanos % u128::from(u64::MAX)).unwrap_or(0)
            ^ u64::from(std::process::id()))
        .to_le_bytes();
    }
    bytes
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect()
}

/// A text file's content, with errors that name the file as the user gave
/// it (`shown`): missing, not UTF-8, or the I/O error.
pub(crate) fn read_text(path: &Path, shown: &str) -> Result<String> {
    read_text_file(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Edit(format!("`{shown}` does not exist")),
        std::io::ErrorKind::InvalidData => Error::Edit(format!("`{shown}` is not UTF-8 text")),
        _ => Error::Io {
            path: path.to_owned(),
            source: e,
        },
    })
}

/// How an undo or redo answers the step it took: the first changeset's
/// number, command and file, and, for a step of several files, every file.
fn step_json(sets: &[Changeset]) -> Value {
    let Some(head) = sets.first() else {
        return Value::Null;
    };
    // An amended step (a take-back joined to an agent's write) is named by
    // the command that began it, and names each file once.
    let first = sets.iter().min_by_key(|cs| cs.seq).unwrap_or(head);
    let mut step = json!({"seq": head.seq, "command": first.command, "file": head.file});
    if sets.len() > 1 {
        let mut files: Vec<&str> = Vec::new();
        for cs in sets {
            if !files.contains(&cs.file.as_str()) {
                files.push(&cs.file);
            }
        }
        step["files"] = files.into();
    }
    step
}

/// One project's edit session, under its lock.
pub struct EditSession {
    project: Project,
    history: History,
    /// The chain (conversation) of the request being run.
    chain: String,
    /// The step a rewind took back whole because the tag it rewound to was
    /// inside it (a step joined by `record`'s `amend`): an `undo` with that
    /// tag is then done already.
    rewound_past: Option<Vec<Changeset>>,
    _lock: ProjectLock,
}

impl EditSession {
    /// Opens the project at `root`, taking its lock.
    pub fn open(root: &Path, radium_home: &Path, depth: u64) -> Result<Self> {
        let project = Project::open(root, radium_home)?;
        let lock = project.lock()?;
        let history = History::load(&project, depth)?;
        Ok(EditSession {
            project,
            history,
            chain: String::new(),
            rewound_past: None,
            _lock: lock,
        })
    }

    /// Runs one edit command with its (hook-processed) arguments.
    pub fn run(
        &mut self,
        command: &str,
        args: &Map<String, Value>,
        tag: Option<&str>,
    ) -> Result<EditOutcome> {
        let read_only =
            command == "view" || (command == "solve-conflict" && args.get("id").is_none());
        self.rewound_past = None;
        if command == "rewind" {
            return self.rewind_command(args);
        }
        // What others did to the conversation is told to its next own
        // call, not to a door recording the user's accepted review (the
        // user's own undo is no news to them).
        let kept = (command == "record")
            .then(|| tag.and_then(|t| self.conversation_of(t)).map(str::to_owned))
            .flatten()
            .and_then(|c| {
                let chain = self.history.session.chains.get_mut(&c)?;
                Some((c, std::mem::take(&mut chain.notices)))
            });
        let (chain, mut warnings) = match tag {
            Some(tag) => self.rewind(tag),
            None => (None, Vec::new()),
        };
        if let Some((c, mut notices)) = kept {
            let chain = self.history.session.chain_mut(&c);
            notices.append(&mut chain.notices);
            chain.notices = notices;
        }
        let tagged = chain.is_some();
        if let (Some(tag), false, "undo" | "redo") = (tag, tagged, command) {
            // Never the tagless form instead: that would take back another
            // conversation's latest operation.
            let done = if command == "undo" {
                "undone"
            } else {
                "redone"
            };
            return Err(Error::Edit(format!(
                "cannot {command}: {}; nothing {done} (with a tag, {command} works on that tag's conversation only)",
                self.unknown_tag(tag)
            )));
        }
        self.chain = chain.unwrap_or_else(Self::new_chain);
        let data = match command {
            "view" => self.view(args)?,
            "create" => self.create(args)?,
            "str-replace" => self.str_replace(args)?,
            "insert" => self.insert(args)?,
            "undo" => {
                let sets = if let Some(sets) = self.rewound_past.take() {
                    sets
                } else if tagged {
                    self.history.undo_step(&self.chain)?
                } else {
                    self.undo_latest()?
                };
                json!({"undone": step_json(&sets)})
            }
            "redo" => {
                let sets = if tagged {
                    self.history.redo_step(&self.chain)?
                } else {
                    self.redo_latest()?
                };
                json!({"redone": step_json(&sets)})
            }
            "solve-conflict" => self.solve_conflict(args)?,
            "record" => self.record(args, &mut warnings)?,
            other => return Err(Error::UnknownCommand(other.to_owned())),
        };
        let chain = self.chain.clone();
        let tag = if read_only {
            self.current_tag(&chain, tag)
        } else {
            self.new_tag(&chain)
        };
        self.history.save()?;
        Ok(EditOutcome {
            data,
            tag: Some(tag),
            warnings,
        })
    }

    /// Records a write made by someone else (an agent that writes files
    /// itself): `before` is the file's text before it (None: it was missing),
    /// the file's text now is what was written. Recorded in `tag`'s
    /// conversation (a new one without a tag) like any other edit, so `undo`
    /// and a rewind take it back. `None` when the file did not change.
    pub fn record_written(
        &mut self,
        path: &Path,
        before: Option<&str>,
        tag: Option<&str>,
    ) -> Result<Option<EditOutcome>> {
        let shown = path.to_string_lossy().into_owned();
        let file = self.project.confine_write(&shown)?;
        let after = read_text(&file, &shown)?;
        if before == Some(after.as_str()) {
            return Ok(None);
        }
        let (chain, warnings) = match tag {
            Some(tag) => self.rewind(tag),
            None => (None, Vec::new()),
        };
        self.chain = chain.unwrap_or_else(Self::new_chain);
        let cs = self
            .history
            .record(&self.chain, "agent-write", &file, before, &after)?;
        let chain = self.chain.clone();
        let tag = self.new_tag(&chain);
        self.history.save()?;
        Ok(Some(EditOutcome {
            data: json!({"path": cs.file, "created": !cs.existed_before, "seq": cs.seq}),
            tag: Some(tag),
            warnings,
        }))
    }

    fn view(&self, args: &Map<String, Value>) -> Result<Value> {
        let shown = string_arg("view", args, "path")?;
        let path = self.project.confine(shown)?;
        if path.is_dir() {
            let mut entries: Vec<String> = std::fs::read_dir(&path)
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?
                .filter_map(std::result::Result::ok)
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if e.path().is_dir() {
                        format!("{name}/")
                    } else {
                        name
                    }
                })
                .collect();
            entries.sort();
            return Ok(json!({"path": self.project.relative(&path), "entries": entries}));
        }
        let text = read_text(&path, shown)?;
        let count = text::line_count(&text);
        let start = line_arg("view", args, "start_line")?.unwrap_or(1).max(1);
        let end = line_arg("view", args, "end_line")?
            .unwrap_or(count)
            .min(count);
        if start > count.max(1) {
            return Err(Error::Edit(format!(
                "`{shown}` has {count} lines; start_line {start} is past the end"
            )));
        }
        let mut numbered = String::new();
        for (i, l) in text
            .lines()
            .enumerate()
            .skip(start - 1)
            .take(end.saturating_sub(start - 1))
        {
            use std::fmt::Write as _;
            let _ = writeln!(numbered, "{:>6}\t{l}", i + 1);
        }
        Ok(json!({"path": self.project.relative(&path), "text": numbered, "lines": count}))
    }

    fn create(&mut self, args: &Map<String, Value>) -> Result<Value> {
        let shown = string_arg("create", args, "path")?;
        let content = string_arg("create", args, "content")?;
        let overwrite = args
            .get("overwrite")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let path = self.project.confine_write(shown)?;
        if path.is_dir() {
            return Err(Error::Edit(format!("`{shown}` is a directory")));
        }
        let before = read_text_file(&path).ok();
        if before.is_some() && !overwrite {
            return Err(Error::Edit(format!(
                "`{shown}` already exists (pass overwrite to replace it)"
            )));
        }
        let cs = self
            .history
            .record(&self.chain, "create", &path, before.as_deref(), content)?;
        Ok(json!({"path": cs.file, "created": !cs.existed_before, "seq": cs.seq}))
    }

    fn str_replace(&mut self, args: &Map<String, Value>) -> Result<Value> {
        let shown = string_arg("str-replace", args, "path")?;
        let old = string_arg("str-replace", args, "old")?;
        let new = string_arg("str-replace", args, "new")?;
        if old.is_empty() {
            return Err(Error::InvalidArgument(
                "`str-replace`: `old` must not be empty".into(),
            ));
        }
        let path = self.project.confine_write(shown)?;
        let text = read_text(&path, shown)?;
        let mut found = text.match_indices(old).map(|(i, _)| i);
        match (found.next(), found.next()) {
            (None, _) => Err(Error::Edit(format!("no match for `old` in `{shown}`"))),
            (Some(at), None) => {
                let after = text::splice(&text[..at], new, &text[at + old.len()..]);
                let cs =
                    self.history
                        .record(&self.chain, "str-replace", &path, Some(&text), &after)?;
                let line = text::lines_at(&text, [at])[0];
                Ok(json!({"path": cs.file, "line": line, "seq": cs.seq}))
            }
            (Some(first), Some(second)) => {
                // One pass: the newlines between one match and the next
                // are counted once, and only the first lines are listed.
                let listed = [first, second]
                    .into_iter()
                    .chain(found.by_ref().take(text::LISTED_LINES - 2));
                let lines = text::lines_at(&text, listed);
                let n = lines.len() + found.count();
                Err(Error::Edit(format!(
                    "`old` occurs {n} times in `{shown}` (lines {}); include more text to make it unique",
                    text::list_lines(&lines, n)
                )))
            }
        }
    }

    fn insert(&mut self, args: &Map<String, Value>) -> Result<Value> {
        let shown = string_arg("insert", args, "path")?;
        let text_in = string_arg("insert", args, "text")?;
        let line = line_arg("insert", args, "line")?.ok_or_else(|| {
            Error::InvalidArgument("`insert`: missing argument `line` (0 = top)".into())
        })?;
        let path = self.project.confine_write(shown)?;
        let text = read_text(&path, shown)?;
        let count = text::line_count(&text);
        if line > count {
            return Err(Error::Edit(format!(
                "`{shown}` has {count} lines; cannot insert after line {line}"
            )));
        }
        let at = if line == 0 {
            0
        } else {
            memchr::memchr_iter(b'\n', text.as_bytes())
                .nth(line - 1)
                .map_or(text.len(), |i| i + 1)
        };
        // One copy of the text: a missing last newline, the piece and its
        // own newline are spliced in.
        let missing_newline = at == text.len() && !text.is_empty() && !text.ends_with('\n');
        let newline = if text_in.ends_with('\n') { "" } else { "\n" };
        let mut after = String::with_capacity(text.len() + text_in.len() + 2);
        after.push_str(&text[..at]);
        if missing_newline {
            after.push('\n');
        }
        after.push_str(text_in);
        after.push_str(newline);
        after.push_str(&text[at..]);
        let cs = self
            .history
            .record(&self.chain, "insert", &path, Some(&text), &after)?;
        Ok(json!({"path": cs.file, "after_line": line, "seq": cs.seq}))
    }

    fn solve_conflict(&mut self, args: &Map<String, Value>) -> Result<Value> {
        let shown = string_arg("solve-conflict", args, "path")?;
        let path = self.project.confine_write(shown)?;
        let text = read_text(&path, shown)?;
        let conflicts = find_conflicts(&text)?;
        let Some(id) = args.get("id") else {
            return Ok(json!({"path": self.project.relative(&path), "conflicts": conflicts}));
        };
        let id = id.as_u64().ok_or_else(|| {
            Error::InvalidArgument("`solve-conflict`: `id` must be a number".into())
        })?;
        let conflict = conflicts.iter().find(|c| c.id == id).ok_or_else(|| {
            Error::Edit(format!(
                "`{shown}` has no conflict {id} ({} conflicts)",
                conflicts.len()
            ))
        })?;
        let resolution = string_arg("solve-conflict", args, "resolution")?;
        let replacement = match resolution {
            "ours" => conflict.ours.clone(),
            "theirs" => conflict.theirs.clone(),
            "both" => format!("{}{}", conflict.ours, conflict.theirs),
            "text" => string_arg("solve-conflict", args, "text")?.to_owned(),
            other => {
                return Err(Error::InvalidArgument(format!(
                    "`solve-conflict`: resolution `{other}` must be ours, theirs, both or text"
                )))
            }
        };
        let after = format!(
            "{}{replacement}{}",
            &text[..conflict.start],
            &text[conflict.end..]
        );
        let cs = self
            .history
            .record(&self.chain, "solve-conflict", &path, Some(&text), &after)?;
        Ok(
            json!({"path": cs.file, "resolved": id, "remaining": conflicts.len() - 1, "seq": cs.seq}),
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_edit_commands_are_the_protocols_last_nine() {
        let expected = [
            "view",
            "create",
            "str-replace",
            "insert",
            "undo",
            "redo",
            "solve-conflict",
            "record",
            "rewind",
        ];
        assert_eq!(super::EDIT_COMMANDS, expected);
    }
}
