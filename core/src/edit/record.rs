//! `record`: edits an editor already made and saved (a reviewed change
//! applied across several buffers), recorded as one step of the request's
//! conversation, so `undo` and a rewind take every file back at once.
//!
//! Arguments: `files: [{path, old_text, new_text?}]`. `old_text` is the
//! file's text before the edit (`null`: the editor created it). The file on
//! disk must hold the new text already; `new_text`, when given, is checked
//! against it, so a save that did not happen (or a formatter that ran on
//! save) is caught instead of recorded wrong. Nothing is written.
//!
//! `amend: seq` joins the edits to the conversation's last step when that
//! step holds changeset `seq` (a `write` event's `seq`): the hunks a user
//! rejected of an agent's tool call, taken back after the agent wrote it,
//! are one step with that write, so one `undo` takes the tool call back as
//! the user accepted it. When the conversation has moved on since (the
//! agent wrote again, or the step was undone), the edits are a step of
//! their own and a warning says so (`amended: false`).

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::{read_text, EditOutcome, EditSession, FileChange};
use crate::error::{Error, Result};

/// One file of a `record` request, read and checked.
struct Recorded {
    path: std::path::PathBuf,
    before: Option<String>,
    after: String,
}

fn invalid(message: impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("`record`: {message}"))
}

impl EditSession {
    /// Runs `record` (see the module's documentation).
    pub(super) fn record(
        &mut self,
        args: &Map<String, Value>,
        warnings: &mut Vec<String>,
    ) -> Result<Value> {
        let amend = match args.get("amend") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => n.as_u64(),
            Some(_) => {
                return Err(invalid(
                    "`amend` must be the number (seq) of a changeset of the step to join",
                ))
            }
        };
        let files = match args.get("files") {
            Some(Value::Array(files)) if !files.is_empty() => files,
            Some(Value::Array(_)) => return Err(invalid("`files` is empty")),
            Some(_) => return Err(invalid("`files` must be an array of {path, old_text}")),
            None => return Err(invalid("missing argument `files`")),
        };
        let mut seen = BTreeSet::new();
        let mut recorded = Vec::new();
        for (i, entry) in files.iter().enumerate() {
            let Value::Object(entry) = entry else {
                return Err(invalid(format!("`files[{i}]` must be an object")));
            };
            let Some(Value::String(shown)) = entry.get("path") else {
                return Err(invalid(format!("`files[{i}].path` must be a string")));
            };
            let before = match entry.get("old_text") {
                Some(Value::String(text)) => Some(text.clone()),
                Some(Value::Null) => None,
                Some(_) => {
                    return Err(invalid(format!(
                        "`files[{i}].old_text` must be a string or null"
                    )))
                }
                None => {
                    return Err(invalid(format!(
                        "`files[{i}]` needs `old_text` (null for a file the editor created)"
                    )))
                }
            };
            let path = self.project.confine_write(shown)?;
            if !seen.insert(path.clone()) {
                return Err(invalid(format!("`{shown}` is given twice")));
            }
            let after = read_text(&path, shown)?;
            match entry.get("new_text") {
                Some(Value::String(new)) if *new != after => {
                    return Err(Error::Edit(format!(
                        "`{shown}` on disk is not the edited text (save it first); nothing recorded"
                    )))
                }
                Some(Value::String(_) | Value::Null) | None => {}
                Some(_) => return Err(invalid(format!("`files[{i}].new_text` must be a string"))),
            }
            recorded.push(Recorded {
                path,
                before,
                after,
            });
        }
        recorded.retain(|r| r.before.as_deref() != Some(r.after.as_str()));
        let changes: Vec<FileChange<'_>> = recorded
            .iter()
            .map(|r| FileChange {
                file: &r.path,
                before: r.before.as_deref(),
                after: Some(&r.after),
            })
            .collect();
        if changes.is_empty() {
            return Ok(json!({"files": [], "seq": null}));
        }
        let group = match amend {
            Some(seq) => {
                let group = self.history.amend_group(&self.chain, seq)?;
                if group.is_none() {
                    warnings.push(format!(
                        "recorded as a step of its own: the conversation's last step is not the one of [seq:{seq}] (it moved on, or that step was undone)"
                    ));
                }
                group
            }
            None => None,
        };
        let sets = self
            .history
            .record_into(&self.chain, "record", &changes, false, group)?;
        let files: Vec<Value> = sets
            .iter()
            .map(|cs| json!({"path": cs.file, "created": !cs.existed_before, "seq": cs.seq}))
            .collect();
        let mut data = json!({"files": files, "seq": sets.first().map(|cs| cs.seq)});
        if amend.is_some() {
            data["amended"] = json!(group.is_some());
        }
        Ok(data)
    }
}

impl EditSession {
    /// Checks that each file of `expected` (a path as given, the text it
    /// should hold, None: it should be missing) still holds it: the texts a
    /// step was computed from (by a language server) have not changed since.
    pub fn expect_texts(&self, expected: &[(String, Option<String>)]) -> Result<()> {
        for (shown, text) in expected {
            let path = self.project.confine(shown)?;
            let now = if path.exists() {
                Some(read_text(&path, shown)?)
            } else {
                None
            };
            if now != *text {
                return Err(Error::Edit(format!(
                    "`{shown}` changed while the edit was being prepared: nothing was written (run it again)"
                )));
            }
        }
        Ok(())
    }

    /// Writes `files` (a path as given, its new text, None: remove it) as
    /// one step of `tag`'s conversation (a new one without a tag), each
    /// write atomic and confined to the project: `undo` and a rewind take
    /// every file back at once. Files whose text would not change are left
    /// out; nothing is written when a path is refused.
    pub fn write_step(
        &mut self,
        command: &str,
        files: &[(String, Option<String>)],
        tag: Option<&str>,
    ) -> Result<EditOutcome> {
        let mut planned = Vec::new();
        for (shown, after) in files {
            let path = self.project.confine_write(shown)?;
            if path.is_dir() {
                return Err(Error::Edit(format!("`{shown}` is a directory")));
            }
            let before = match read_text(&path, shown) {
                Ok(text) => Some(text),
                Err(Error::Edit(_)) if !path.exists() => None,
                Err(e) => return Err(e),
            };
            if before != *after {
                planned.push((path, before, after.as_deref()));
            }
        }
        let (chain, warnings) = match tag {
            Some(tag) => self.rewind(tag),
            None => (None, Vec::new()),
        };
        self.chain = chain.unwrap_or_else(Self::new_chain);
        let changes: Vec<FileChange<'_>> = planned
            .iter()
            .map(|(file, before, after)| FileChange {
                file,
                before: before.as_deref(),
                after: *after,
            })
            .collect();
        let sets = if changes.is_empty() {
            Vec::new()
        } else {
            self.history
                .record_group(&self.chain, command, &changes, true)?
        };
        let chain = self.chain.clone();
        let tag = self.new_tag(&chain);
        self.history.save()?;
        let written: Vec<Value> = sets
            .iter()
            .map(|cs| {
                let mut file =
                    json!({"path": cs.file, "created": !cs.existed_before, "seq": cs.seq});
                if cs.removed {
                    file["removed"] = json!(true);
                }
                file
            })
            .collect();
        Ok(EditOutcome {
            data: json!({"files": written}),
            tag: Some(tag),
            warnings,
        })
    }
}
