//! Clipboard mode (seed 000): the way in for editors with no extension and
//! for agents that live in a browser tab.
//!
//! - `clipboard-send` puts code on the clipboard as text ready to paste into
//!   a chat: an optional prompt, the file's path and lines, a fenced block
//!   annotated with the language and the path, and the lines around it
//!   ([`format`]).
//! - `clipboard-receive` reads an answer copied from a chat, finds its code
//!   blocks with the same extraction as agent answers, and shows each block
//!   that names a file as a diff against that file; with `apply`, it writes
//!   them as one step (undoable, dog tags). Blocks without a path are
//!   listed, never guessed.
//!
//! The system clipboard is reached through `arboard` (X11 and Wayland),
//! behind the `clipboard` cargo feature (on by default); see [`system`] for
//! how a copied text outlives a short-lived program.

mod format;
mod system;

use std::path::Path;

use serde_json::{json, Map, Value};
use similar::TextDiff;

pub use format::{format, Snippet};
pub use system::{hold, SystemClipboard};

use crate::edit::{read_text, Project};
use crate::editor::extract::{extract_code_blocks, CodeBlock};
use crate::editor::language::detect_language;
use crate::error::{Error, Result};
use crate::support::atomic::read_text_file;
use crate::support::json::{line_arg, optional_string_arg};

/// How many lines around a range `clipboard-send` shows by default.
pub const DEFAULT_CONTEXT_LINES: usize = 3;

fn invalid(command: &str, message: impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("`{command}`: {message}"))
}

/// An optional true/false argument (`false` when absent or null).
pub(crate) fn flag(command: &str, args: &Map<String, Value>, key: &str) -> Result<bool> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(invalid(command, format!("`{key}` must be true or false"))),
    }
}

/// `clipboard-send`: the text (and whether it went on the clipboard).
/// `root` is the workspace the path is confined to.
pub fn send(
    args: &Map<String, Value>,
    root: Option<&Path>,
    radium_home: &Path,
    clipboard: &SystemClipboard,
) -> Result<Value> {
    const CMD: &str = "clipboard-send";
    let given = optional_string_arg(CMD, args, "text")?;
    let path = optional_string_arg(CMD, args, "path")?;
    let from_disk = given.is_none();
    let (shown, text) = match (given, path) {
        (Some(text), path) => (path.map(str::to_owned), text.to_owned()),
        (None, Some(path)) => {
            let root = root.ok_or_else(|| invalid(CMD, "give the workspace as `cwd`"))?;
            let project = Project::open(root, radium_home)?;
            let file = project.confine(path)?;
            let text = read_text(&file, path)?;
            (Some(project.relative(&file)), text)
        }
        (None, None) => return Err(invalid(CMD, "give `path` (a file) or `text`")),
    };
    let total = text.lines().count();
    let start = line_arg(CMD, args, "start_line")?;
    let end = line_arg(CMD, args, "end_line")?;
    let lines = match (start, end) {
        (None, None) => None,
        (start, end) => {
            let start = start.unwrap_or(1).max(1);
            let end = end.unwrap_or(total);
            if start > total.max(1) || end < start {
                return Err(invalid(
                    CMD,
                    format!("lines {start}-{end} are not in the text ({total} lines)"),
                ));
            }
            Some((start, end.min(total)))
        }
    };
    let context_lines = match args.get("context_lines") {
        None | Some(Value::Null) => DEFAULT_CONTEXT_LINES,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n <= 1000)
            .ok_or_else(|| invalid(CMD, "`context_lines` must be a whole number up to 1000"))?,
    };
    let language = match optional_string_arg(CMD, args, "language")? {
        Some(language) => language.to_owned(),
        None => shown
            .as_deref()
            .map(|p| detect_language(p, text.lines().next()))
            .unwrap_or_default()
            .to_owned(),
    };
    let out = format(&Snippet {
        path: shown.as_deref(),
        language: &language,
        text: &text,
        lines,
        context_lines,
        prompt: optional_string_arg(CMD, args, "prompt")?,
        from_disk,
    });
    let print = flag(CMD, args, "print")?;
    if !print {
        clipboard.set_text(&out)?;
    }
    let (start_line, end_line) = lines.unwrap_or((1, total));
    Ok(json!({
        "text": out, "copied": !print, "path": shown, "language": language,
        "start_line": start_line, "end_line": end_line,
    }))
}

/// What `clipboard-receive` found: the listing, and the files to write.
#[derive(Debug)]
pub struct Received {
    /// `{blocks: [...]}`, each block with its status and diff.
    pub listing: Value,
    /// `(path, new text)` of every block that names a file and changes it.
    pub writes: Vec<(String, Option<String>)>,
    /// Why the blocks cannot be applied, if they cannot.
    pub refusal: Option<Error>,
}

/// Why an apply is refused; a block that would cut most of a file is the
/// weakest reason (`whole_file` overrides it), so any other one is said first.
struct Refusal {
    error: Option<Error>,
    only_snippets: bool,
}

impl Refusal {
    fn add(&mut self, error: Error, snippet: bool) {
        if self.error.is_none() || (self.only_snippets && !snippet) {
            self.error = Some(error);
            self.only_snippets = snippet;
        }
    }
}

/// `text` with its lines `start..=end` (1-based, inside the text) replaced by
/// `lines`; a text without a last newline keeps that.
fn splice(text: &str, (start, end): (usize, usize), lines: &str) -> String {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let before: String = all[..start - 1].concat();
    let after: String = all[end..].concat();
    let mut middle = lines.to_owned();
    if !after.is_empty() && !middle.is_empty() && !middle.ends_with('\n') {
        middle.push('\n');
    }
    if after.is_empty() && !text.ends_with('\n') && middle.ends_with('\n') {
        middle.pop();
    }
    before + &middle + &after
}

/// The file's new text for a block: the block itself, or, for a block
/// answering a range (`lines=`), the file with that range replaced. An
/// error for a range the file no longer has.
fn new_text(block: &CodeBlock, shown: &str, current: Option<&str>) -> Result<String> {
    let Some((start, end)) = block.range else {
        return Ok(block.content.clone());
    };
    let n = block.index + 1;
    let Some(text) = current else {
        return Err(Error::Edit(format!(
            "block {n} answers lines {start}-{end} of `{shown}`, which does not exist; nothing applied"
        )));
    };
    let total = text.split_inclusive('\n').count();
    if end > total {
        return Err(Error::Edit(format!(
            "block {n} answers lines {start}-{end} of `{shown}`, which has {total} lines now; nothing applied (send the lines again)"
        )));
    }
    Ok(splice(text, (start, end), &block.content))
}

/// True when writing `new` over `old` would delete most of the file: the new
/// text keeps fewer than half of its lines.
fn cuts_most(old: &str, new: &str) -> bool {
    new.lines().count() * 2 < old.lines().count()
}

/// `clipboard-receive` without the writing: every block of `answer` with
/// its text (`content`), path, language, status (`new`, `changed`,
/// `unchanged`, `no path`, `incomplete`, `refused`, `snippet`), a diff
/// against the file and the file's new text (`file_text`). A block that
/// answers a range radium sent (`lines=` in its info string) replaces that
/// range only. A block that would delete most of a file (`snippet`) refuses
/// the apply unless `whole_file` is true.
pub fn receive(
    answer: &str,
    root: &Path,
    radium_home: &Path,
    whole_file: bool,
) -> Result<Received> {
    let project = Project::open(root, radium_home)?;
    let mut blocks = Vec::new();
    let mut writes: Vec<(String, Option<String>)> = Vec::new();
    let mut refusal = Refusal {
        error: None,
        only_snippets: false,
    };
    for block in extract_code_blocks(answer) {
        let mut entry = json!({
            "index": block.index, "language": block.language,
            "path": block.file_path, "lines": block.content.lines().count(),
            "content": block.content,
        });
        if let Some((start, end)) = block.range {
            entry["range"] = json!({"start_line": start, "end_line": end});
        }
        let status = match &block.file_path {
            None => "no path".to_owned(),
            Some(path) if block.incomplete => {
                refusal.add(
                    Error::Edit(format!(
                        "block {} for `{path}` is cut short (its fence is not closed); nothing applied",
                        block.index + 1
                    )),
                    false,
                );
                "incomplete".to_owned()
            }
            Some(path) => match project.confine_write(path) {
                Err(e) => {
                    entry["error"] = json!(e.to_string());
                    refusal.add(e, false);
                    "refused".to_owned()
                }
                Ok(file) => {
                    let current = read_text_file(&file).ok();
                    let shown = project.relative(&file);
                    entry["path"] = json!(shown);
                    match new_text(&block, &shown, current.as_deref()) {
                        Err(e) => {
                            entry["error"] = json!(e.to_string());
                            refusal.add(e, false);
                            "refused".to_owned()
                        }
                        Ok(new) => file_status(
                            &block,
                            &shown,
                            current.as_deref(),
                            &new,
                            whole_file,
                            &mut entry,
                            &mut writes,
                            &mut refusal,
                        ),
                    }
                }
            },
        };
        entry["status"] = json!(status);
        blocks.push(entry);
    }
    Ok(Received {
        listing: json!({"blocks": blocks}),
        writes,
        refusal: refusal.error,
    })
}

/// The status of a block whose file's new text is `new`; records the write
/// (and any refusal) and adds the diff and the new text to `entry`.
#[allow(clippy::too_many_arguments)]
fn file_status(
    block: &CodeBlock,
    shown: &str,
    current: Option<&str>,
    new: &str,
    whole_file: bool,
    entry: &mut Value,
    writes: &mut Vec<(String, Option<String>)>,
    refusal: &mut Refusal,
) -> String {
    let old = current.unwrap_or("");
    let diff = TextDiff::from_lines(old, new)
        .unified_diff()
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();
    entry["diff"] = json!(diff);
    if writes.iter().any(|(p, _)| p == shown) {
        refusal.add(
            Error::Edit(format!(
                "`{shown}` has more than one block; nothing applied (copy one answer per file)"
            )),
            false,
        );
    }
    let mut status = match current {
        None => "new",
        Some(text) if text == new => "unchanged",
        Some(_) => "changed",
    };
    if let Some(old) = current.filter(|old| status == "changed" && cuts_most(old, new)) {
        let (had, has) = (old.lines().count(), new.lines().count());
        let why = format!(
            "block {} has {has} line(s) for `{shown}`, which has {had}: writing it would delete most of the file (a snippet, not the whole file?); nothing applied. Ask for the whole file, or apply with `whole_file` to replace it anyway",
            block.index + 1
        );
        if !whole_file {
            entry["error"] = json!(why);
            refusal.add(Error::Edit(why), true);
            status = "snippet";
        }
    }
    if status != "unchanged" {
        writes.push((shown.to_owned(), Some(new.to_owned())));
    }
    entry["file_text"] = json!(new);
    status.to_owned()
}
