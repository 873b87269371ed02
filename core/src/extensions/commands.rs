//! The extension commands of the protocol (`ext-install`, `ext-list`,
//! `ext-remove`, `trust`) and the bookkeeping of which extensions are active.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};

use super::manifest::{
    copy_tree, discover, read_extension, valid_name, Extension, Level, MANIFEST,
};
use super::trust::TrustStore;
use crate::error::{Error, Result};
use crate::hooks::registry::{HookOptions, HookRegistry};
use crate::hooks::script::ScriptHook;
use crate::support::json::{optional_string_arg, string_arg};

/// The active extensions of one engine: name → the hooks registered for it.
/// Cheap to clone; clones share the set.
#[derive(Debug, Clone, Default)]
pub(crate) struct ActiveExtensions(Arc<Mutex<BTreeMap<String, Vec<String>>>>);

/// What the extension commands work on: an engine's registry, its active
/// extensions, `$RADIUM_HOME` and its workspace.
pub(crate) struct ExtensionHost<'a> {
    /// The registry the extensions' hooks go into.
    pub registry: &'a HookRegistry,
    /// The engine's active extensions.
    pub active: &'a ActiveExtensions,
    /// `$RADIUM_HOME` (user extensions, the trust store).
    pub radium_home: &'a Path,
    /// The engine's workspace, used when a request gives no `cwd`.
    pub workspace: Option<&'a Path>,
}

impl ExtensionHost<'_> {
    fn workspace_for(&self, cwd: Option<&str>) -> Option<PathBuf> {
        cwd.map(PathBuf::from)
            .or_else(|| self.workspace.map(Path::to_path_buf))
    }

    fn trust_store(&self) -> TrustStore {
        TrustStore::new(self.radium_home)
    }

    /// Whether `workspace` is trusted (no workspace: nothing to trust).
    pub(crate) fn workspace_trusted(&self, workspace: Option<&Path>) -> bool {
        workspace.is_some_and(|ws| self.trust_store().is_trusted(ws))
    }

    fn lock_extensions(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<String>>> {
        self.active
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers the hooks of every runnable discovered extension that is not active yet.
    pub(crate) fn activate_discovered(&self) {
        let workspace = self.workspace.map(Path::to_path_buf);
        let trusted = self.workspace_trusted(workspace.as_deref());
        for found in discover(workspace.as_deref(), self.radium_home, trusted) {
            if let Ok(ext) = found.extension {
                let runnable = ext.level == Level::User || trusted;
                if runnable && !self.lock_extensions().contains_key(&ext.manifest.name) {
                    let _ = self.activate(&ext);
                }
            }
        }
    }

    /// Registers an extension's hooks (all or none).
    pub(crate) fn activate(&self, ext: &Extension) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::new();
        for settings in &ext.hooks {
            let Some(hook_type) = settings.hook_type else {
                continue;
            };
            let script = settings.script.clone().unwrap_or_default();
            let hook = ScriptHook::new(settings.name.clone(), hook_type, ext.path.join(script))
                .with_args(settings.args.iter().cloned())
                .with_cwd(&ext.path)
                .with_priority(settings.priority.unwrap_or_default());
            let options = HookOptions {
                priority: settings.priority,
                disabled: settings.enabled == Some(false),
                matcher: settings.matcher.clone(),
                timeout: settings.timeout,
            };
            if let Err(e) = self.registry.register_with(hook, options) {
                for name in &names {
                    let _ = self.registry.unregister(name);
                }
                return Err(Error::Extension(format!(
                    "extension `{}`: hook `{}`: {e}",
                    ext.manifest.name, settings.name
                )));
            }
            names.push(settings.name.clone());
        }
        self.lock_extensions()
            .insert(ext.manifest.name.clone(), names.clone());
        Ok(names)
    }

    pub(crate) fn deactivate(&self, name: &str) {
        if let Some(hooks) = self.lock_extensions().remove(name) {
            for hook in hooks {
                let _ = self.registry.unregister(&hook);
            }
        }
    }

    fn level_arg(command: &str, args: &Map<String, Value>) -> Result<Option<Level>> {
        match args.get("level") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(l)) if l == "user" => Ok(Some(Level::User)),
            Some(Value::String(l)) if l == "workspace" => Ok(Some(Level::Workspace)),
            Some(other) => Err(Error::InvalidArgument(format!(
                "`{command}`: argument `level` must be \"user\" or \"workspace\", got {other}"
            ))),
        }
    }

    pub(crate) fn ext_list(&self, cwd: Option<&str>) -> Value {
        let workspace = self.workspace_for(cwd);
        let trusted = self.workspace_trusted(workspace.as_deref());
        let active = self.lock_extensions().clone();
        let list: Vec<Value> = discover(workspace.as_deref(), self.radium_home, trusted)
            .into_iter()
            .map(|found| match found.extension {
                Err(e) => json!({
                    "path": found.path, "level": found.level, "status": "error", "reason": e.to_string(),
                }),
                Ok(ext) => {
                    let (status, reason) = if ext.level == Level::Workspace && !trusted {
                        ("blocked", Some("the workspace is not trusted: run `rad trust` in it to allow its extensions"))
                    } else if active.contains_key(&ext.manifest.name) {
                        ("active", None)
                    } else {
                        ("error", Some("its hooks could not be registered (a name clash?)"))
                    };
                    let hooks: Vec<Value> = ext
                        .hooks
                        .iter()
                        .map(|h| json!({
                            "name": h.name,
                            "hook_type": h.hook_type,
                            "enabled": self.registry.is_enabled(&h.name).unwrap_or(false) && status == "active",
                        }))
                        .collect();
                    let mut v = serde_json::to_value(&ext).unwrap_or_default();
                    v["status"] = json!(status);
                    v["hooks"] = json!(hooks);
                    if let Some(reason) = reason {
                        v["reason"] = json!(reason);
                    }
                    v
                }
            })
            .collect();
        Value::Array(list)
    }

    pub(crate) fn ext_install(
        &self,
        cwd: Option<&str>,
        args: &Map<String, Value>,
    ) -> Result<Value> {
        let source = PathBuf::from(string_arg("ext-install", args, "path")?);
        let source = match cwd {
            Some(cwd) if source.is_relative() => Path::new(cwd).join(source),
            _ => source,
        };
        let force = args.get("force").and_then(Value::as_bool).unwrap_or(false);
        let level = Self::level_arg("ext-install", args)?.unwrap_or(Level::User);
        let workspace = self.workspace_for(cwd);
        let ext = read_extension(&source, level)?;
        let folder = level
            .folder(workspace.as_deref(), self.radium_home)
            .ok_or_else(|| {
                Error::InvalidArgument(
                    "`ext-install`: level `workspace` needs a workspace (cwd)".into(),
                )
            })?;
        let dest = folder.join(&ext.manifest.name);
        if dest.exists() && !force {
            return Err(Error::Extension(format!(
                "extension `{}` is already installed at {}; install with force to replace it",
                ext.manifest.name,
                dest.display()
            )));
        }
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::Io { path, source }
        };
        std::fs::create_dir_all(&folder).map_err(io(&folder))?;
        let staging = folder.join(format!(
            ".{}.installing-{}",
            ext.manifest.name,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&staging);
        copy_tree(&source, &staging).map_err(io(&staging))?;
        self.deactivate(&ext.manifest.name);
        if dest.exists() {
            std::fs::remove_dir_all(&dest).map_err(io(&dest))?;
        }
        std::fs::rename(&staging, &dest).map_err(io(&dest))?;
        let installed = read_extension(&dest, level)?;
        let runnable = level == Level::User || self.workspace_trusted(workspace.as_deref());
        let hooks = if runnable {
            self.activate(&installed)?
        } else {
            // A user extension of the same name, stopped above, runs on.
            self.activate_discovered();
            Vec::new()
        };
        Ok(json!({
            "name": installed.manifest.name,
            "version": installed.manifest.version,
            "level": level,
            "path": dest,
            "hooks": hooks,
            "active": runnable,
        }))
    }

    pub(crate) fn ext_remove(&self, cwd: Option<&str>, args: &Map<String, Value>) -> Result<Value> {
        let name = string_arg("ext-remove", args, "name")?;
        if !valid_name(name) {
            return Err(Error::InvalidArgument(format!(
                "`ext-remove`: `{name}` is not an extension name (1-64 letters, digits, `-`, `_` or `.`, not starting with `.`)"
            )));
        }
        let wanted = Self::level_arg("ext-remove", args)?;
        let workspace = self.workspace_for(cwd);
        for level in [Level::Workspace, Level::User] {
            if wanted.is_some_and(|w| w != level) {
                continue;
            }
            let Some(folder) = level.folder(workspace.as_deref(), self.radium_home) else {
                continue;
            };
            let dir = folder.join(name);
            // Only a real folder inside the extension folder: a symlink
            // there could point anywhere.
            let is_folder = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_dir());
            if is_folder && dir.join(MANIFEST).exists() {
                self.deactivate(name);
                std::fs::remove_dir_all(&dir).map_err(|source| Error::Io {
                    path: dir.clone(),
                    source,
                })?;
                // A user extension hidden by the removed workspace one may run now.
                self.activate_discovered();
                return Ok(json!({"name": name, "level": level, "path": dir}));
            }
        }
        Err(Error::Extension(format!(
            "no extension named `{name}` is installed"
        )))
    }

    pub(crate) fn trust(&self, cwd: Option<&str>, args: &Map<String, Value>) -> Result<Value> {
        let path = optional_string_arg("trust", args, "path")?
            .map(PathBuf::from)
            .or_else(|| self.workspace_for(cwd))
            .ok_or_else(|| Error::InvalidArgument("`trust`: give a `path` (or a `cwd`)".into()))?;
        let revoke = args.get("revoke").and_then(Value::as_bool).unwrap_or(false);
        let store = self.trust_store();
        if revoke {
            store.revoke(&path)?;
            // Workspace extensions already running stop now, and user ones
            // they hid start.
            self.deactivate_workspace_level();
            self.activate_discovered();
            return Ok(json!({"path": path, "trusted": false}));
        }
        let real = store.trust(&path)?;
        if self.workspace_trusted(self.workspace) {
            // The workspace's extensions take over from user ones of the
            // same name.
            self.deactivate_workspace_level();
        }
        self.activate_discovered();
        Ok(json!({"path": real, "trusted": true}))
    }

    /// Stops every extension named like one of the workspace level (the
    /// workspace's own, or a user one of that name).
    fn deactivate_workspace_level(&self) {
        for found in discover(self.workspace, self.radium_home, true) {
            if let (Ok(ext), Level::Workspace) = (&found.extension, found.level) {
                self.deactivate(&ext.manifest.name);
            }
        }
    }
}
