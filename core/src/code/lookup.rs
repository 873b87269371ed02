//! Finding a name: where it is in the file asked about (the anchor), and
//! every place it occurs, through a language server or the syntax tree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::lsp::uri::{path_uri, uri_path};
use super::lsp::{Client, LspError};
use super::position::{display_column, line_starts, line_text, to_offset, to_position};
use super::servers::ServerSpec;
use super::syntax::{occurrences, Occurrence};
use super::walk::source_files;
use crate::error::{Error, Result};

/// How many files the fallback searches, and a server is shown, at most.
pub const MAX_FILES: usize = 20_000;

/// One place a name occurs, as answered.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// The file.
    pub path: PathBuf,
    /// Its first byte.
    pub start: usize,
    /// The byte after it.
    pub end: usize,
    /// Whether it is the definition.
    pub definition: bool,
}

/// Where `name` is in `text` (of `path`): the occurrence on `line`
/// (1-based) when given, the one at `column` of it (1-based, in characters,
/// the name's first character to the one after its last) when that is
/// given too, else its definition in the file, else its first occurrence
/// as code.
pub fn anchor(
    path: &Path,
    shown: &str,
    text: &str,
    name: &str,
    (line, column): (Option<usize>, Option<usize>),
) -> Result<Occurrence> {
    let (found, _) = occurrences(path, text, name);
    let starts = line_starts(text);
    if column.is_some() && line.is_none() {
        return Err(Error::InvalidArgument(
            "`column` is a column of `line`: give both".into(),
        ));
    }
    if let Some(line) = line {
        if line == 0 || line > starts.len() {
            return Err(Error::InvalidArgument(format!(
                "`line` {line} is not a line of `{shown}` (it has {})",
                starts.len()
            )));
        }
        if column == Some(0) {
            return Err(Error::InvalidArgument("`column` counts from 1".into()));
        }
        let mut on_line = found
            .into_iter()
            .filter(|o| starts.partition_point(|&s| s <= o.start) == line);
        let Some(column) = column else {
            return on_line.next().ok_or_else(|| {
                Error::NotFound(format!(
                    "`{name}` is not on line {line} of `{shown}` (as code)"
                ))
            });
        };
        return on_line
            .find(|o| {
                let first = display_column(text, &starts, o.start);
                let after = display_column(text, &starts, o.end);
                (first..=after).contains(&column)
            })
            .ok_or_else(|| {
                Error::NotFound(format!(
                    "`{name}` is not at line {line}, column {column} of `{shown}` (as code)"
                ))
            });
    }
    found
        .iter()
        .find(|o| o.definition)
        .or(found.first())
        .copied()
        .ok_or_else(|| {
            Error::NotFound(format!(
                "`{name}` does not occur in `{shown}` (comments and strings aside)"
            ))
        })
}

/// The text of `path`: what the server was shown, else the disk (see
/// [`read_source`]).
pub fn file_text(path: &Path, client: Option<&Client>) -> Option<String> {
    client
        .and_then(|c| c.open_doc(path))
        .map(|d| d.text)
        .or_else(|| read_source(path))
}

/// A source file's text from the disk: a regular file of at most
/// [`MAX_FILE`](super::walk::MAX_FILE) bytes, opened without blocking, so
/// a path a server names that is a FIFO (which would block the open), a
/// device (`/dev/zero`, read until memory runs out) or a huge file is
/// never read. None for those and for anything unreadable.
pub fn read_source(path: &Path) -> Option<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > super::walk::MAX_FILE {
        return None;
    }
    let mut text = String::new();
    // Capped again: the file may grow while it is read.
    file.take(super::walk::MAX_FILE + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= super::walk::MAX_FILE).then_some(text)
}

/// Shows `client` the workspace's files of its language (for servers
/// that know only what they are shown).
pub fn show_workspace(client: &Client) {
    for file in source_files(&client.root, &client.spec.extensions, MAX_FILES) {
        if !client.is_open(&file) {
            if let Ok(text) = std::fs::read_to_string(&file) {
                client.sync(&file, &text);
            }
        }
    }
}

/// The `textDocument/position` parameters of byte `at` in `path`.
pub fn position_params(client: &Client, path: &Path, text: &str, at: usize) -> Value {
    let (line, character) = to_position(text, &line_starts(text), at, client.encoding());
    json!({
        "textDocument": {"uri": path_uri(path)},
        "position": {"line": line, "character": character},
    })
}

/// Sends `method` once the server is ready; an empty answer from a server
/// that began work meanwhile (indexing) is asked again once it is done.
pub async fn ask(
    client: &Client,
    method: &str,
    params: Value,
) -> std::result::Result<Value, LspError> {
    let limit = client.spec.timeout_ms;
    let deadline = Instant::now() + Duration::from_millis(limit);
    client.wait_ready(deadline).await;
    let begun = client.progress_begun();
    let answer = client.request(method, params.clone(), limit).await?;
    let empty = answer.is_null() || answer.as_array().is_some_and(Vec::is_empty);
    if empty && client.progress_begun() > begun && client.wait_ready(deadline).await {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_millis();
        let left = u64::try_from(left).unwrap_or(0).max(1);
        return client.request(method, params, left).await;
    }
    Ok(answer)
}

/// The file of an LSP `Location` or `LocationLink`, symlinks resolved.
pub fn location_path(value: &Value) -> Option<PathBuf> {
    let uri = value
        .get("uri")
        .or_else(|| value.get("targetUri"))?
        .as_str()?;
    Some(crate::support::paths::resolve(&uri_path(uri)?))
}

/// The (path, byte range) of an LSP `Location` or `LocationLink` in the
/// workspace at `root`. A location outside it is None before its file is
/// opened, and only a regular source file is read (see [`read_source`]).
pub fn location(value: &Value, client: &Client, root: &Path) -> Option<(PathBuf, usize, usize)> {
    let path = location_path(value).filter(|p| p.starts_with(root))?;
    let range = value
        .get("range")
        .or_else(|| value.get("targetSelectionRange"))?;
    let text = file_text(&path, Some(client))?;
    let starts = line_starts(&text);
    let at = |p: &Value| {
        to_offset(
            &text,
            &starts,
            u32::try_from(p["line"].as_u64()?).ok()?,
            u32::try_from(p["character"].as_u64()?).ok()?,
            client.encoding(),
        )
    };
    Some((path, at(&range["start"])?, at(&range["end"])?))
}

/// Every occurrence of `name` in the workspace by the syntax tree (or as
/// words where radium has no grammar): the files of `spec`'s language, or
/// of `path`'s extension, in the scope of the anchor `at` (in `path`): a
/// name bound in a function is looked for in that function only; one bound
/// outside every function is not looked for where a function binds the
/// same name. True when every file had a grammar.
pub fn fallback_places(
    root: &Path,
    path: &Path,
    spec: Option<&ServerSpec>,
    name: &str,
    anchor_text: &str,
    at: &Occurrence,
) -> (Vec<Place>, bool) {
    let extensions = spec.map_or_else(
        || vec![super::servers::extension(path)],
        |s| s.extensions.clone(),
    );
    let mut places = Vec::new();
    let mut syntax = true;
    let mut files = source_files(root, &extensions, MAX_FILES);
    if !files.iter().any(|f| f == path) {
        files.push(path.to_owned());
    }
    for file in files {
        let owned;
        let text = if file == path {
            anchor_text
        } else {
            match std::fs::read_to_string(&file) {
                Ok(text) => {
                    owned = text;
                    &owned
                }
                Err(_) => continue,
            }
        };
        if at.scope.is_some() && file != path {
            continue;
        }
        let (found, grammar) = occurrences(&file, text, name);
        syntax &= grammar || found.is_empty();
        places.extend(
            found
                .into_iter()
                .filter(|o| o.scope == at.scope)
                .map(|o| Place {
                    path: file.clone(),
                    start: o.start,
                    end: o.end,
                    definition: o.definition,
                }),
        );
    }
    (places, syntax)
}

/// The answer's entry for each place: file, line, column, the line's text.
pub fn describe(
    places: &[Place],
    root: &Path,
    client: Option<&Client>,
    anchor_path: &Path,
    anchor_text: &str,
) -> Vec<Value> {
    // Each file is read, and its lines found, once: (text, line starts, path shown).
    type Read = Option<(String, Vec<usize>, String)>;
    let mut texts: BTreeMap<&Path, Read> = BTreeMap::new();
    places
        .iter()
        .filter_map(|p| {
            let entry = texts.entry(&p.path).or_insert_with(|| {
                let text = if p.path == anchor_path {
                    Some(anchor_text.to_owned())
                } else {
                    file_text(&p.path, client)
                }?;
                let starts = line_starts(&text);
                Some((text, starts, relative(root, &p.path)))
            });
            let (text, starts, shown) = entry.as_ref()?;
            let (text, starts) = (text.as_str(), starts.as_slice());
            let line = starts.partition_point(|&s| s <= p.start);
            Some(json!({
                "file": shown,
                "line": line,
                "column": display_column(text, starts, p.start),
                "text": line_text(text, starts, line - 1).trim_end_matches('\r'),
                "definition": p.definition,
            }))
        })
        .collect()
}

/// The lines around line `line` (1-based) of `text`, ±`around`.
pub fn context(text: &str, line: usize, around: usize) -> Vec<Value> {
    let starts = line_starts(text);
    let first = line.saturating_sub(around).max(1);
    let last = (line + around).min(starts.len());
    (first..=last)
        .map(|n| json!({"line": n, "text": line_text(text, &starts, n - 1).trim_end_matches('\r')}))
        .collect()
}

/// `path` relative to `root`, with `/`.
pub fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A client's name for the answer's `server`.
pub fn server_name(client: Option<&Arc<Client>>) -> Value {
    client.map_or(Value::Null, |c| json!(c.spec.name()))
}
