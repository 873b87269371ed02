//! `agents-list`: every agent a user can run, the catalogue's and the
//! configured ones, each with its status (`configured`, `installed`,
//! `not_installed`), where it is and how to sign in. `agents-install`: a
//! catalogue agent's pinned npm package installed into radium's cache, on
//! the engine's runtime (the caller's thread is free; the answer comes when
//! npm is done).

use serde_json::{json, Value};

use super::engine::Engine;
use super::envelope::Request;
use crate::agents::catalogue::{catalogue, entry, Found, Places, CATALOGUE_SOURCE};
use crate::agents::config::AgentProtocol;
use crate::error::{Error, Result};

/// The ids of the catalogue, for error messages.
fn catalogue_ids() -> String {
    catalogue()
        .iter()
        .map(|e| e.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for `id` when it is a catalogue agent that is not installed.
pub(super) fn not_installed(id: &str) -> Option<Error> {
    let e = entry(id)?;
    let package = e.package.as_deref()?;
    let version = e.version.as_deref().unwrap_or("latest");
    let bin = e.bin.as_deref().unwrap_or(package);
    Some(Error::NotFound(format!(
        "agent `{id}` is not installed: `rad agents install {id}` installs {package}@{version} into radium's cache (or put `{bin}` on PATH, or configure it in agents.toml)"
    )))
}

impl Engine {
    /// `agents-list`: `{agents: [{id, name, protocol, status, ready, found,
    /// command, source, package, version, sign_in, sign_in_vars,
    /// signed_in_by_env, pitfalls, url}]}`, the catalogue's in its order,
    /// then the configured agents it does not hold. `ready`: it can start a
    /// chat (an ACP agent that is configured or installed).
    pub(super) fn agents_list(&self, cwd: Option<&str>) -> Value {
        let workspace = self.workspace_for(cwd);
        let usable = self.agents(workspace.as_deref()).unwrap_or_default();
        let places = Places::from_env();
        let mut list = Vec::new();
        for e in catalogue() {
            let configured = usable
                .iter()
                .find(|a| a.id == e.id && a.source.as_os_str() != CATALOGUE_SOURCE);
            let located = e.locate(&places);
            let (status, found, command, source, protocol) = match (configured, &located) {
                (Some(a), _) => (
                    "configured",
                    Value::from("agents.toml"),
                    a.command.clone(),
                    a.source.to_string_lossy().into_owned(),
                    a.protocol,
                ),
                (None, Some((command, found))) => (
                    "installed",
                    json!(found),
                    command.clone(),
                    CATALOGUE_SOURCE.to_owned(),
                    e.protocol,
                ),
                (None, None) => (
                    "not_installed",
                    Value::Null,
                    Vec::new(),
                    CATALOGUE_SOURCE.to_owned(),
                    e.protocol,
                ),
            };
            // The example agent's command is its whole script: only its program is shown.
            let command = if located.as_ref().is_some_and(|(_, f)| *f == Found::Builtin)
                && configured.is_none()
            {
                vec![
                    "sh".to_owned(),
                    "-c".to_owned(),
                    "<radium's example agent>".to_owned(),
                ]
            } else {
                command
            };
            list.push(json!({
                "id": e.id,
                "name": e.name,
                "protocol": protocol,
                "status": status,
                "ready": status != "not_installed" && protocol == AgentProtocol::Acp,
                "found": found,
                "command": command,
                "source": source,
                "package": e.package,
                "version": e.version,
                "sign_in": e.sign_in,
                "sign_in_vars": e.sign_in_vars,
                "signed_in_by_env": e.signed_in_by_env(),
                "pitfalls": e.pitfalls,
                "url": e.url,
            }));
        }
        for a in usable.iter().filter(|a| entry(&a.id).is_none()) {
            list.push(json!({
                "id": a.id,
                "name": a.id,
                "protocol": a.protocol,
                "status": "configured",
                "ready": a.protocol == AgentProtocol::Acp,
                "found": "agents.toml",
                "command": a.command,
                "source": a.source,
                "package": null,
                "version": null,
                "sign_in": null,
                "sign_in_vars": [],
                "signed_in_by_env": null,
                "pitfalls": [],
                "url": null,
            }));
        }
        json!({ "agents": list, "cache": places.cache })
    }

    /// `agents-install {agent}`: installs the catalogue agent's pinned
    /// package (see [`crate::agents::install`]); answers `{agent, package,
    /// path, fetched}`.
    pub(super) fn agents_install(
        &self,
        request: &Request,
    ) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value>> + Send>>> {
        let command = "agents-install";
        let args = crate::support::json::args_object(command, &request.args)?;
        let id = crate::support::json::string_arg(command, args, "agent")?;
        let Some(entry) = entry(id) else {
            return Err(Error::InvalidArgument(format!(
                "agents-install: `{id}` is not in radium's catalogue (one of: {}); agents of your own go in agents.toml",
                catalogue_ids()
            )));
        };
        let cache = Places::from_env().cache;
        let npm = crate::support::process::find_on_path("npm");
        let runtime = self.registry.runtime_handle()?;
        let task =
            runtime.spawn(async move { crate::agents::install::install(entry, &cache, npm).await });
        // A dropped request (a cancel by `id`) stops npm's process group and
        // removes the staging folder.
        let abort = AbortOnDrop(task.abort_handle());
        Ok(Box::pin(async move {
            let _abort = abort;
            let installed = task
                .await
                .map_err(|e| Error::Runtime(format!("the install did not run: {e}")))??;
            Ok(serde_json::to_value(installed).unwrap_or_default())
        }))
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
