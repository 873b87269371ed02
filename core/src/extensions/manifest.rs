//! Extensions: a folder with a `radium-extension.json` manifest and hook
//! files (`hooks/*.toml`) whose hooks are scripts.
//!
//! ```json
//! {"name": "lint", "version": "1.0.0", "description": "...", "author": "...",
//!  "components": {"hooks": ["hooks/*.toml"]}}
//! ```
//!
//! Each hook file has `[[hooks]]` entries like `.radium/hooks.toml`'s, plus
//! `script` (a program relative to the extension's folder) and `args`.
//! Extensions are found in `$RADIUM_HOME/extensions/` (user level, trusted)
//! and `<workspace>/.radium/extensions/` (workspace level: run only when the
//! workspace is trusted). A trusted workspace's extension wins over a user
//! one of the same name; an untrusted workspace's never hides the user's.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::hooks::config::{HookConfigFile, HookSettings};

/// The manifest file name.
pub const MANIFEST: &str = "radium-extension.json";

/// Where an extension is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// `$RADIUM_HOME/extensions/`.
    User,
    /// `<workspace>/.radium/extensions/`.
    Workspace,
}

impl Level {
    /// The folder that holds extensions of this level.
    pub fn folder(self, workspace: Option<&Path>, radium_home: &Path) -> Option<PathBuf> {
        match self {
            Level::User => Some(radium_home.join("extensions")),
            Level::Workspace => workspace.map(|w| w.join(".radium/extensions")),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    name: String,
    version: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    author: String,
    #[serde(default)]
    components: RawComponents,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawComponents {
    #[serde(default)]
    hooks: Vec<String>,
    #[serde(default)]
    agents: Vec<String>,
}

/// A validated manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Manifest {
    /// The extension's name (letters, digits, `-`, `_`, `.`).
    pub name: String,
    /// Its version.
    pub version: String,
    /// What it does.
    pub description: String,
    /// Who wrote it.
    pub author: String,
    /// Globs of hook files, relative to the extension's folder.
    pub hooks: Vec<String>,
    /// Globs of agent files (reserved).
    pub agents: Vec<String>,
}

/// An extension found on disk, with its hooks.
#[derive(Debug, Clone, Serialize)]
pub struct Extension {
    /// Its manifest.
    #[serde(flatten)]
    pub manifest: Manifest,
    /// Its level.
    pub level: Level,
    /// Its folder.
    pub path: PathBuf,
    /// Its hooks, from its hook files.
    #[serde(skip)]
    pub hooks: Vec<HookSettings>,
}

fn manifest_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Config {
        path: path.to_owned(),
        line: 0,
        column: 0,
        message: message.into(),
    }
}

/// Whether `name` can name an extension: 1-64 letters, digits, `-`, `_` or
/// `.`, not starting with `.`, so it is one plain folder name (never a path).
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !name.starts_with('.')
}

/// Reads and validates the manifest in `dir`, and parses its hook files.
pub fn read_extension(dir: &Path, level: Level) -> Result<Extension> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    let raw: RawManifest = serde_json::from_str(&text).map_err(|e| Error::Config {
        path: path.clone(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    if !valid_name(&raw.name) {
        return Err(manifest_error(
            &path,
            format!(
                "field `name`: `{}` must be 1-64 letters, digits, `-`, `_` or `.`",
                raw.name
            ),
        ));
    }
    if raw.version.trim().is_empty() {
        return Err(manifest_error(&path, "field `version`: must not be empty"));
    }
    let mut hooks = Vec::new();
    for pattern in &raw.components.hooks {
        if Path::new(pattern).is_absolute() || pattern.split('/').any(|p| p == "..") {
            return Err(manifest_error(
                &path,
                format!("field `components.hooks`: `{pattern}` must stay inside the extension"),
            ));
        }
        let full = dir.join(pattern);
        let matches = glob::glob(&full.to_string_lossy()).map_err(|e| {
            manifest_error(&path, format!("field `components.hooks`: `{pattern}`: {e}"))
        })?;
        let mut files: Vec<PathBuf> = matches.filter_map(std::result::Result::ok).collect();
        files.sort();
        for file in files {
            let parsed = HookConfigFile::from_path(&file)?;
            for entry in parsed.hooks {
                let Some(script) = &entry.script else {
                    return Err(entry.error(format!(
                        "field `script`: hook `{}` of an extension needs a `script` to run",
                        entry.name
                    )));
                };
                if Path::new(script).is_absolute() || script.split('/').any(|p| p == "..") {
                    return Err(entry.error(format!(
                        "field `script`: `{script}` must be a path inside the extension"
                    )));
                }
                hooks.push(entry);
            }
        }
    }
    Ok(Extension {
        manifest: Manifest {
            name: raw.name,
            version: raw.version,
            description: raw.description,
            author: raw.author,
            hooks: raw.components.hooks,
            agents: raw.components.agents,
        },
        level,
        path: dir.to_owned(),
        hooks,
    })
}

/// One discovered extension folder: the extension, or why it could not be read.
#[derive(Debug)]
pub struct Found {
    /// The folder.
    pub path: PathBuf,
    /// Its level.
    pub level: Level,
    /// The extension, or the error reading it.
    pub extension: Result<Extension>,
}

/// The extensions of both levels. Of two with the same name, one hides the
/// other (the hidden one is not returned): a `trusted` workspace's hides the
/// user's, and the user's hides an untrusted workspace's, so a cloned
/// repository cannot keep the user's own extension from running.
pub fn discover(workspace: Option<&Path>, radium_home: &Path, trusted: bool) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    let order = if trusted {
        [Level::Workspace, Level::User]
    } else {
        [Level::User, Level::Workspace]
    };
    for level in order {
        let Some(folder) = level.folder(workspace, radium_home) else {
            continue;
        };
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(std::result::Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir() && p.join(MANIFEST).exists())
            .collect();
        dirs.sort();
        for dir in dirs {
            let extension = read_extension(&dir, level);
            let name = match &extension {
                Ok(e) => e.manifest.name.clone(),
                Err(_) => dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            let shadowed = found.iter().any(|f| match &f.extension {
                Ok(e) => e.manifest.name == name,
                Err(_) => f.path.file_name() == dir.file_name(),
            });
            if !shadowed {
                found.push(Found {
                    path: dir,
                    level,
                    extension,
                });
            }
        }
    }
    found
}

/// Copies the folder `from` to `to` (which must not exist), files and folders only.
pub(crate) fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
