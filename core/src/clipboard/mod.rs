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
use crate::editor::extract::extract_code_blocks;
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

/// `clipboard-receive` without the writing: every block of `answer` with
/// its text (`content`), path, language, status (`new`, `changed`, `unchanged`, `no path`,
/// `incomplete`, `refused`) and a diff against the file.
pub fn receive(answer: &str, root: &Path, radium_home: &Path) -> Result<Received> {
    let project = Project::open(root, radium_home)?;
    let mut blocks = Vec::new();
    let mut writes: Vec<(String, Option<String>)> = Vec::new();
    let mut refusal = None;
    for block in extract_code_blocks(answer) {
        let mut entry = json!({
            "index": block.index, "language": block.language,
            "path": block.file_path, "lines": block.content.lines().count(),
            "content": block.content,
        });
        let status = match &block.file_path {
            None => "no path".to_owned(),
            Some(path) if block.incomplete => {
                refusal.get_or_insert_with(|| {
                    Error::Edit(format!(
                        "block {} for `{path}` is cut short (its fence is not closed); nothing applied",
                        block.index + 1
                    ))
                });
                "incomplete".to_owned()
            }
            Some(path) => match project.confine_write(path) {
                Err(e) => {
                    entry["error"] = json!(e.to_string());
                    refusal.get_or_insert(e);
                    "refused".to_owned()
                }
                Ok(file) => {
                    let current = read_text_file(&file).ok();
                    let old = current.as_deref().unwrap_or("");
                    let shown = project.relative(&file);
                    let diff = TextDiff::from_lines(old, &block.content)
                        .unified_diff()
                        .header(&format!("a/{shown}"), &format!("b/{shown}"))
                        .to_string();
                    entry["diff"] = json!(diff);
                    entry["path"] = json!(shown);
                    if writes.iter().any(|(p, _)| *p == shown) {
                        refusal.get_or_insert_with(|| {
                            Error::Edit(format!(
                                "`{shown}` has more than one block; nothing applied (copy one answer per file)"
                            ))
                        });
                    }
                    let status = match &current {
                        None => "new",
                        Some(text) if *text == block.content => "unchanged",
                        Some(_) => "changed",
                    };
                    if status != "unchanged" {
                        writes.push((shown, Some(block.content.clone())));
                    }
                    status.to_owned()
                }
            },
        };
        entry["status"] = json!(status);
        blocks.push(entry);
    }
    Ok(Received {
        listing: json!({"blocks": blocks}),
        writes,
        refusal,
    })
}
