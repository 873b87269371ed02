//! Path resolution shared by every part that confines paths to a folder.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// Resolves `path` component by component: every prefix that exists is
/// canonicalised (symlinks followed), so `..` after a symlink goes where the
/// file system goes; parts that do not exist yet are joined as written.
pub(crate) fn resolve(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if let Ok(real) = out.canonicalize() {
                    out = real;
                }
            }
        }
    }
    out
}

/// The folders of a project that the edit tools, `apply` and agents do not
/// write: radium's own configuration (a written `hooks.toml` or
/// `agents.toml` could turn off checks or replace the user's agent) and git's.
pub const PROTECTED_FOLDERS: [&str; 2] = [".radium", ".git"];

/// The user-level settings file, in `$RADIUM_HOME`.
pub const SETTINGS_FILE: &str = "settings.toml";

/// Refuses a write to `real` (a resolved path inside `root`) that lies in a
/// protected folder, unless the user allows that folder in
/// `$RADIUM_HOME/settings.toml` (`allow_writes_in = [".git"]`). Only the
/// user's own settings can allow it, never a workspace.
pub(crate) fn check_protected(root: &Path, real: &Path, radium_home: &Path) -> Result<()> {
    let Ok(relative) = real.strip_prefix(root) else {
        return Ok(());
    };
    let Some(folder) = relative.components().find_map(|c| match c {
        Component::Normal(name) => PROTECTED_FOLDERS.iter().find(|p| name == **p),
        _ => None,
    }) else {
        return Ok(());
    };
    let settings = radium_home.join(SETTINGS_FILE);
    if allowed_folders(&settings)?.iter().any(|a| a == folder) {
        return Ok(());
    }
    Err(Error::Protected(format!(
        "`{}` is inside `{folder}/`, which the edit tools, apply and agents do not write; to allow it, add `allow_writes_in = [\"{folder}\"]` to {}",
        relative.display(),
        settings.display()
    )))
}

/// `allow_writes_in` of the user's settings (none when there is no file).
fn allowed_folders(settings: &Path) -> Result<Vec<String>> {
    let text = match std::fs::read_to_string(settings) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(Error::Io {
                path: settings.to_owned(),
                source,
            })
        }
    };
    let at = |span: Option<std::ops::Range<usize>>, message: String| {
        let offset = span.map_or(0, |s| s.start).min(text.len());
        let before = &text[..offset];
        Error::Config {
            path: settings.to_owned(),
            line: before.matches('\n').count() + 1,
            column: before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1,
            message,
        }
    };
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| at(e.span(), e.message().trim().to_owned()))?;
    let key = text
        .find("allow_writes_in")
        .map(|start| start..start + "allow_writes_in".len());
    match table.get("allow_writes_in") {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                toml::Value::String(s) => Ok(s.clone()),
                _ => Err(at(
                    key.clone(),
                    "`allow_writes_in` must list folder names (strings)".into(),
                )),
            })
            .collect(),
        Some(_) => Err(at(
            key.clone(),
            "`allow_writes_in` must be a list of folder names".into(),
        )),
    }
}
