//! A server's `WorkspaceEdit` (or the fallback's edits) turned into the new
//! text of each file, before anything is written: `changes` and
//! `documentChanges` with their resource operations, in order; each file's
//! edits applied in (line, column) order from the text the server saw;
//! overlapping edits, a version the server did not see, and an edit of a
//! file that is not there refuse the whole edit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lsp_types::{
    DocumentChangeOperation, DocumentChanges, OneOf, ResourceOp, TextEdit, WorkspaceEdit,
};

use crate::code::lsp::uri::uri_path;
use crate::code::lsp::Client;
use crate::code::position::{line_starts, to_offset, Encoding};
use crate::error::{Error, Result};

/// The files an edit changes: the text each had (None: missing) and will
/// have, and how many edits each got.
#[derive(Debug, Default)]
pub struct Plan {
    /// What each touched file held when the edit was computed.
    pub before: BTreeMap<PathBuf, Option<String>>,
    /// What each will hold (None: removed).
    pub after: BTreeMap<PathBuf, Option<String>>,
    /// The number of text edits per file.
    pub edits: BTreeMap<PathBuf, usize>,
}

/// `text` with sorted, non-overlapping byte-range `edits` (start, end,
/// new text) made, in one pass: linear in the text and the edits together
/// (10^6 edits of one file take a fraction of a second, not minutes).
pub fn splice(text: &str, edits: &[(usize, usize, String)]) -> String {
    let added: usize = edits.iter().map(|e| e.2.len()).sum();
    let mut out = String::with_capacity(text.len() + added);
    let mut at = 0;
    for (start, end, new) in edits {
        out.push_str(&text[at..*start]);
        out.push_str(new);
        at = *end;
    }
    out.push_str(&text[at..]);
    out
}

fn refuse(why: impl std::fmt::Display) -> Error {
    Error::Edit(format!("the edit was refused, nothing was written: {why}"))
}

impl Plan {
    /// The text `path` has at this point of the plan, loaded (from what the
    /// server was shown, else the disk) the first time.
    pub fn text(&mut self, path: &Path, client: Option<&Client>) -> Result<Option<String>> {
        if let Some(text) = self.after.get(path) {
            return Ok(text.clone());
        }
        let text = match client.and_then(|c| c.open_doc(path)) {
            Some(doc) => Some(doc.text),
            None if path.is_file() => {
                Some(std::fs::read_to_string(path).map_err(|source| Error::Io {
                    path: path.to_owned(),
                    source,
                })?)
            }
            None => None,
        };
        self.before.insert(path.to_owned(), text.clone());
        self.after.insert(path.to_owned(), text.clone());
        Ok(text)
    }

    /// Applies byte-range `edits` (start, end, new text) to `path`.
    pub fn apply_ranges(
        &mut self,
        path: &Path,
        mut edits: Vec<(usize, usize, String)>,
        client: Option<&Client>,
    ) -> Result<()> {
        let Some(text) = self.text(path, client)? else {
            return Err(refuse(format!("`{}` does not exist", path.display())));
        };
        // Stable: inserts at one place keep the order they were given in.
        edits.sort_by_key(|e| (e.0, e.1));
        if let Some(&(start, end, _)) = edits
            .iter()
            .find(|(start, end, _)| !text.is_char_boundary(*start) || !text.is_char_boundary(*end))
        {
            return Err(refuse(format!(
                "an edit of `{}` (bytes {start}..{end}) is past its end or inside a character",
                path.display()
            )));
        }
        for pair in edits.windows(2) {
            if pair[0].1 > pair[1].0 {
                return Err(refuse(format!(
                    "two edits of `{}` overlap (bytes {}..{} and {}..{})",
                    path.display(),
                    pair[0].0,
                    pair[0].1,
                    pair[1].0,
                    pair[1].1
                )));
            }
        }
        *self.edits.entry(path.to_owned()).or_default() += edits.len();
        self.after
            .insert(path.to_owned(), Some(splice(&text, &edits)));
        Ok(())
    }

    /// Applies LSP `edits` to `path`, whose positions count `encoding`.
    fn apply_lsp(
        &mut self,
        path: &Path,
        edits: &[TextEdit],
        encoding: Encoding,
        client: Option<&Client>,
    ) -> Result<()> {
        let Some(text) = self.text(path, client)? else {
            return Err(refuse(format!("`{}` does not exist", path.display())));
        };
        let starts = line_starts(&text);
        let mut ranges = Vec::with_capacity(edits.len());
        for edit in edits {
            let at = |p: lsp_types::Position| {
                to_offset(&text, &starts, p.line, p.character, encoding).ok_or_else(|| {
                    refuse(format!(
                        "an edit of `{}` is past its end (line {})",
                        path.display(),
                        p.line + 1
                    ))
                })
            };
            let (start, end) = (at(edit.range.start)?, at(edit.range.end)?);
            if start > end {
                return Err(refuse(format!(
                    "an edit of `{}` ends before it starts",
                    path.display()
                )));
            }
            ranges.push((start, end, edit.new_text.clone()));
        }
        self.apply_ranges(path, ranges, client)
    }

    fn path(uri: &str, root: &Path) -> Result<PathBuf> {
        let path = uri_path(uri).ok_or_else(|| refuse(format!("`{uri}` is not a file")))?;
        let path = crate::support::paths::resolve(&path);
        if !path.starts_with(root) {
            return Err(refuse(format!(
                "it changes `{}`, outside the workspace",
                path.display()
            )));
        }
        Ok(path)
    }

    /// Applies a server's workspace edit (from `client`, for the workspace
    /// at `root`).
    pub fn apply_workspace_edit(
        &mut self,
        edit: WorkspaceEdit,
        root: &Path,
        client: &Client,
    ) -> Result<()> {
        let encoding = client.encoding();
        if let Some(changes) = edit.document_changes {
            let ops = match changes {
                DocumentChanges::Edits(edits) => edits
                    .into_iter()
                    .map(DocumentChangeOperation::Edit)
                    .collect(),
                DocumentChanges::Operations(ops) => ops,
            };
            for op in ops {
                match op {
                    DocumentChangeOperation::Edit(edit) => {
                        let path = Self::path(edit.text_document.uri.as_str(), root)?;
                        if let (Some(version), Some(doc)) =
                            (edit.text_document.version, client.open_doc(&path))
                        {
                            if version != doc.version {
                                return Err(refuse(format!(
                                    "it was made for version {version} of `{}`, radium sent version {}",
                                    path.display(),
                                    doc.version
                                )));
                            }
                        }
                        let edits: Vec<TextEdit> = edit
                            .edits
                            .into_iter()
                            .map(|e| match e {
                                OneOf::Left(e) => e,
                                OneOf::Right(e) => e.text_edit,
                            })
                            .collect();
                        self.apply_lsp(&path, &edits, encoding, Some(client))?;
                    }
                    DocumentChangeOperation::Op(op) => self.resource_op(op, root, client)?,
                }
            }
        } else if let Some(changes) = edit.changes {
            let mut changes: Vec<_> = changes.into_iter().collect();
            changes.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
            for (uri, edits) in changes {
                let path = Self::path(uri.as_str(), root)?;
                self.apply_lsp(&path, &edits, encoding, Some(client))?;
            }
        }
        Ok(())
    }

    /// A create, rename or delete of a file.
    fn resource_op(&mut self, op: ResourceOp, root: &Path, client: &Client) -> Result<()> {
        match op {
            ResourceOp::Create(create) => {
                let path = Self::path(create.uri.as_str(), root)?;
                let (overwrite, ignore) = create
                    .options
                    .map_or((None, None), |o| (o.overwrite, o.ignore_if_exists));
                if self.text(&path, Some(client))?.is_some() {
                    if overwrite == Some(true) {
                        self.after.insert(path, Some(String::new()));
                    } else if ignore != Some(true) {
                        return Err(refuse(format!("`{}` already exists", path.display())));
                    }
                } else {
                    self.after.insert(path, Some(String::new()));
                }
            }
            ResourceOp::Rename(rename) => {
                let old = Self::path(rename.old_uri.as_str(), root)?;
                let new = Self::path(rename.new_uri.as_str(), root)?;
                self.rename(&old, &new, Some(client))?;
            }
            ResourceOp::Delete(delete) => {
                let path = Self::path(delete.uri.as_str(), root)?;
                if path.is_dir() {
                    return Err(refuse(format!(
                        "it deletes the folder `{}` (radium moves and deletes files only)",
                        path.display()
                    )));
                }
                if self.text(&path, Some(client))?.is_none() {
                    let ignore = delete.options.and_then(|o| o.ignore_if_not_exists);
                    if ignore != Some(true) {
                        return Err(refuse(format!("`{}` does not exist", path.display())));
                    }
                }
                self.after.insert(path, None);
            }
        }
        Ok(())
    }

    /// Moves `old`'s text to `new` (which must not exist).
    pub fn rename(&mut self, old: &Path, new: &Path, client: Option<&Client>) -> Result<()> {
        if old.is_dir() {
            return Err(refuse(format!(
                "it moves the folder `{}` (radium moves files only)",
                old.display()
            )));
        }
        let Some(text) = self.text(old, client)? else {
            return Err(refuse(format!("`{}` does not exist", old.display())));
        };
        if self.text(new, client)?.is_some() {
            return Err(refuse(format!("`{}` already exists", new.display())));
        }
        self.after.insert(old.to_owned(), None);
        self.after.insert(new.to_owned(), Some(text));
        Ok(())
    }

    /// The files whose text changes, with their new text.
    pub fn changed(&self) -> Vec<(&PathBuf, &Option<String>)> {
        self.after
            .iter()
            .filter(|(path, after)| self.before.get(*path) != Some(after))
            .collect()
    }
}
