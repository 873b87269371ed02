//! The editor commands of the protocol: `context`, `extract` and `apply`.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::apply::apply_block;
use super::context::{ContextLimits, EditorContext};
use super::extract::ExtractedAnswer;
use crate::error::{Error, Result};
use crate::support::atomic::{read_text_file, write_atomic};
use crate::support::json::{bool_arg, line_arg, optional_string_arg, string_arg};
use crate::support::paths::{check_protected, resolve};

/// `context`: the request's arguments validated and sanitised as an editor context.
pub(crate) fn context(args: &Value, limits: &ContextLimits) -> Result<Value> {
    Ok(EditorContext::from_json(args, limits)?.into_json())
}

/// `extract`: `{text}` → the answer's code blocks.
pub(crate) fn extract(args: &Map<String, Value>) -> Result<Value> {
    let text = string_arg("extract", args, "text")?;
    Ok(ExtractedAnswer::from_answer(text).into_json())
}

/// `apply`: `{content, text? | file?, start_line?, end_line?, write?}`.
pub(crate) fn apply(
    args: &Map<String, Value>,
    cwd: Option<&str>,
    workspace: Option<&Path>,
    radium_home: &Path,
    limits: &ContextLimits,
) -> Result<Value> {
    let content = string_arg("apply", args, "content")?;
    let start = line_arg("apply", args, "start_line")?;
    let end = line_arg("apply", args, "end_line")?;
    let range = match (start, end) {
        (None, None) => None,
        (Some(s), None) => Some((s, s)),
        (None, Some(_)) => {
            return Err(Error::InvalidArgument(
                "`apply`: `end_line` needs a `start_line`".into(),
            ))
        }
        (Some(s), Some(e)) => Some((s, e)),
    };
    let write = bool_arg("apply", args, "write")?;

    let file = optional_string_arg("apply", args, "file")?.map(PathBuf::from);

    let text = optional_string_arg("apply", args, "text")?.map(str::to_owned);

    if let Some(file) = &file {
        if !file.is_absolute() && cwd.is_none() {
            return Err(Error::InvalidArgument(format!(
                "`apply`: `file` must be absolute (or give `cwd`), got `{}`",
                file.display()
            )));
        }
    }
    let file = file.map(|f| match cwd {
        Some(cwd) => Path::new(cwd).join(f),
        None => f,
    });
    // Confined to the request's `cwd`, else to the engine's workspace; only
    // a host that gives neither works outside any workspace.
    let root = cwd.map(Path::new).or(workspace);
    if let (Some(f), Some(root)) = (&file, root) {
        let ctx = json!({"file_path": f, "workspace": root});
        EditorContext::from_json(&ctx, limits)?;
    }
    let original = match (&text, &file) {
        (Some(t), _) => t.clone(),
        (None, Some(f)) => match read_text_file(f) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => {
                return Err(Error::Io {
                    path: f.clone(),
                    source,
                })
            }
        },
        (None, None) => {
            return Err(Error::InvalidArgument(
                "`apply`: give the target as `text` (a buffer's text) or `file`".into(),
            ))
        }
    };
    let label = file
        .as_ref()
        .map_or_else(|| "buffer".to_owned(), |f| f.display().to_string());
    let label = label.trim_start_matches('/');
    let preview = apply_block(&original, content, range, label)?;
    let mut out = serde_json::to_value(&preview).unwrap_or_default();
    out["written"] = json!(false);
    if write {
        let Some(f) = &file else {
            return Err(Error::InvalidArgument(
                "`apply`: `write` needs a `file`".into(),
            ));
        };
        if let Some(root) = root {
            check_protected(&resolve(root), &resolve(f), radium_home)?;
        }
        write_atomic(f, &preview.new_text)?;
        out["written"] = json!(true);
    }
    Ok(out)
}
