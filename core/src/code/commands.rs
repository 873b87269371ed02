//! `read-var`, `modify-var` and `lsp-list`: their arguments, the server or
//! the fallback that answers, and the answer.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::edits::Plan;
use super::lookup::{
    anchor, ask, context, describe, fallback_places, location, location_path, position_params,
    relative, server_name, show_workspace, Place,
};
use super::lsp::{Client, Servers};
use super::servers::{server_table, spec_for, ServerSpec};
use crate::edit::Project;
use crate::error::{Error, Result};
use crate::support::json::{line_arg, optional_string_arg, string_arg};

/// What a code command works in: the workspace, `$RADIUM_HOME`, whether
/// the workspace is trusted, and the engine's servers.
#[derive(Clone)]
pub struct CodeContext {
    /// The workspace root.
    pub root: PathBuf,
    /// `$RADIUM_HOME`.
    pub radium_home: PathBuf,
    /// Whether the workspace's own `.radium/lsp.toml` may be used.
    pub trusted: bool,
    /// The engine's running servers.
    pub servers: Arc<Servers>,
}

/// Which engine answers: a server when one works (`auto`), a server or an
/// error (`lsp`), or the syntax tree (`syntax`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Auto,
    Lsp,
    Syntax,
}

pub(super) fn engine_arg(command: &str, args: &Map<String, Value>) -> Result<Mode> {
    match optional_string_arg(command, args, "engine")? {
        None | Some("auto") => Ok(Mode::Auto),
        Some("lsp") => Ok(Mode::Lsp),
        Some("syntax") => Ok(Mode::Syntax),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`{command}`: `engine` must be auto, lsp or syntax, got `{other}`"
        ))),
    }
}

/// A file argument: inside the workspace and existing.
pub(super) struct Target {
    pub project: Project,
    pub path: PathBuf,
    pub shown: String,
}

pub(super) fn target(ctx: &CodeContext, command: &str, shown: &str) -> Result<Target> {
    let project = Project::open(&ctx.root, &ctx.radium_home)?;
    let path = project.confine(shown)?;
    if !path.is_file() {
        return Err(Error::NotFound(format!(
            "`{command}`: `{shown}` is not a file of the workspace"
        )));
    }
    Ok(Target {
        project,
        path,
        shown: shown.to_owned(),
    })
}

impl CodeContext {
    /// The server table of the workspace, with its warnings.
    pub fn table(&self) -> Result<(Vec<ServerSpec>, Vec<String>)> {
        server_table(&self.root, &self.radium_home, self.trusted)
    }

    /// The server for `spec` (`None` and why when there is none or it
    /// cannot start, unless `engine` asks for a server: then an error).
    pub(super) async fn server(
        &self,
        spec: Option<&ServerSpec>,
        engine: Mode,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Arc<Client>>> {
        if engine == Mode::Syntax {
            return Ok(None);
        }
        let why = match spec {
            None => "radium has no language server for this kind of file".to_owned(),
            Some(ServerSpec {
                blocked: Some(why), ..
            }) => why.clone(),
            Some(spec) if spec.command.is_empty() => {
                format!(
                    "the {} server is disabled in {}",
                    spec.language, spec.source
                )
            }
            Some(spec) => match self.servers.get(&self.root, spec).await {
                Ok(client) => return Ok(Some(client)),
                Err(why) => why,
            },
        };
        if engine == Mode::Lsp {
            return Err(Error::NotFound(format!("no language server: {why}")));
        }
        warnings.push(format!("{why}; the syntax fallback answers"));
        Ok(None)
    }
}

/// What a fallback answer says about itself.
fn fallback_warning(syntax: bool) -> String {
    if syntax {
        "found by the syntax tree, not type-aware: a name bound in a function is kept to it, but another variable of the same name elsewhere may be listed too".into()
    } else {
        "found as plain words (radium has no grammar for this language): comments and strings are included".into()
    }
}

/// The common part of `read-var` and `modify-var`: the file, its text, the
/// name's anchor, and the server if one answers.
struct Query {
    target: Target,
    text: String,
    name: String,
    at: super::syntax::Occurrence,
    spec: Option<ServerSpec>,
    client: Option<Arc<Client>>,
    warnings: Vec<String>,
}

impl Query {
    /// The places the fallback finds in `root` for the query's anchor, and
    /// the engine to name (`syntax`, or `text` without a grammar); the
    /// warning is added and the server set aside.
    fn fallback(&mut self, root: &Path) -> (Vec<Place>, &'static str) {
        let (places, syntax) = fallback_places(
            root,
            &self.target.path,
            self.spec.as_ref(),
            &self.name,
            &self.text,
            &self.at,
        );
        self.warnings.push(fallback_warning(syntax));
        self.client = None;
        (places, if syntax { "syntax" } else { "text" })
    }
}

async fn query(
    ctx: &CodeContext,
    command: &str,
    args: &Map<String, Value>,
    name_arg: &str,
) -> Result<Query> {
    let shown = string_arg(command, args, "file")?;
    let name = string_arg(command, args, name_arg)?.to_owned();
    if name.trim().is_empty() {
        return Err(Error::InvalidArgument(format!(
            "`{command}`: `{name_arg}` is empty"
        )));
    }
    let line = line_arg(command, args, "line")?;
    let column = line_arg(command, args, "column")?;
    let engine = engine_arg(command, args)?;
    let target = target(ctx, command, shown)?;
    let text = match optional_string_arg(command, args, "text")? {
        Some(text) => text.to_owned(),
        None => crate::edit::read_text(&target.path, shown)?,
    };
    let at = anchor(&target.path, shown, &text, &name, (line, column))?;
    let (table, mut warnings) = ctx.table()?;
    let spec = spec_for(&table, &target.path).cloned();
    let client = ctx.server(spec.as_ref(), engine, &mut warnings).await?;
    if let Some(client) = &client {
        client.sync(&target.path, &text);
        if client.spec.open_workspace {
            show_workspace(client);
        }
    }
    Ok(Query {
        target,
        text,
        name,
        at,
        spec,
        client,
        warnings,
    })
}

/// `read-var`: the name's definition and every reference in the workspace.
pub async fn read_var(
    ctx: &CodeContext,
    args: &Map<String, Value>,
) -> Result<(Value, Vec<String>)> {
    let mut q = query(ctx, "read-var", args, "var").await?;
    let around = line_arg("read-var", args, "context_lines")?.unwrap_or(3);
    let mut places: Option<Vec<Place>> = None;
    let mut engine = "lsp";
    if let Some(client) = q.client.clone() {
        let params = position_params(&client, &q.target.path, &q.text, q.at.start);
        let mut refs = params.clone();
        refs["context"] = json!({"includeDeclaration": true});
        match ask(&client, "textDocument/references", refs).await {
            Ok(answer) => {
                let definition = ask(&client, "textDocument/definition", params)
                    .await
                    .ok()
                    .and_then(|d| match d {
                        Value::Array(mut all) if !all.is_empty() => Some(all.remove(0)),
                        Value::Object(_) => Some(d),
                        _ => None,
                    })
                    .and_then(|d| location(&d, &client, &ctx.root));
                let mut outside = 0;
                // Locations outside the workspace are dropped before any
                // file is opened; only regular files are read.
                let mut found: Vec<Place> = answer
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|l| {
                        let inside = location_path(l).is_some_and(|p| p.starts_with(&ctx.root));
                        outside += usize::from(!inside);
                        inside
                    })
                    .filter_map(|l| location(l, &client, &ctx.root))
                    .map(|(path, start, end)| Place {
                        definition: definition.as_ref() == Some(&(path.clone(), start, end)),
                        path,
                        start,
                        end,
                    })
                    .collect();
                if let Some((path, start, end)) = definition {
                    if path.starts_with(&ctx.root) && !found.iter().any(|p| p.definition) {
                        found.push(Place {
                            path,
                            start,
                            end,
                            definition: true,
                        });
                    }
                }
                if outside > 0 {
                    q.warnings.push(format!(
                        "{outside} references outside the workspace are left out"
                    ));
                }
                places = Some(found);
            }
            Err(e) => q.warnings.push(format!(
                "the language server `{}` failed: {e}; the syntax fallback answers",
                client.spec.name()
            )),
        }
    }
    let mut places = if let Some(places) = places {
        places
    } else {
        {
            let (mut found, said) = q.fallback(&ctx.root);
            engine = said;
            // One definition is marked: the anchor's, else the first in
            // its file, else the first anywhere.
            let chosen = found
                .iter()
                .position(|p| p.path == q.target.path && p.start == q.at.start && p.definition)
                .or_else(|| {
                    found
                        .iter()
                        .position(|p| p.path == q.target.path && p.definition)
                })
                .or_else(|| found.iter().position(|p| p.definition));
            for (i, p) in found.iter_mut().enumerate() {
                p.definition = Some(i) == chosen;
            }
            found
        }
    };
    places.sort();
    places.dedup_by(|a, b| a.path == b.path && a.start == b.start);
    let occurrences = describe(
        &places,
        &ctx.root,
        q.client.as_deref(),
        &q.target.path,
        &q.text,
    );
    let definition = occurrences
        .iter()
        .find(|o| o["definition"] == true)
        .map(|d| {
            let mut d = d.clone();
            let text = places
                .iter()
                .find(|p| p.definition)
                .and_then(|p| lookup_text(&p.path, &q.target.path, &q.text, q.client.as_deref()));
            let line = usize::try_from(d["line"].as_u64().unwrap_or(1)).unwrap_or(1);
            d["context"] = json!(text.map(|t| context(&t, line, around)).unwrap_or_default());
            d
        });
    let files: std::collections::BTreeSet<&str> = occurrences
        .iter()
        .filter_map(|o| o["file"].as_str())
        .collect();
    let data = json!({
        "variable": q.name,
        "file": relative(&ctx.root, &q.target.path),
        "line": q.text[..q.at.start].matches('\n').count() + 1,
        "engine": engine,
        "server": server_name(q.client.as_ref()),
        "definition": definition,
        "files": files.len(),
        "occurrences": occurrences,
    });
    Ok((data, q.warnings))
}

/// The text of `path`: the anchor's text for the anchor's file.
fn lookup_text(
    path: &std::path::Path,
    anchor: &std::path::Path,
    text: &str,
    client: Option<&Client>,
) -> Option<String> {
    if path == anchor {
        Some(text.to_owned())
    } else {
        super::lookup::file_text(path, client)
    }
}

/// What `modify-var` and `rename-file` prepared: the answer, the files it
/// was computed from and what to write, and whom to tell after.
pub struct Prepared {
    /// The answer (without `applied`).
    pub data: Value,
    /// The plan of the files to write.
    pub plan: Plan,
    /// The warnings so far.
    pub warnings: Vec<String>,
    /// The server to tell of a moved file: (client, old, new).
    pub moved: Option<(Arc<Client>, PathBuf, PathBuf)>,
}

/// `modify-var`: the rename the server proposes, or the fallback's.
pub async fn modify_var(ctx: &CodeContext, args: &Map<String, Value>) -> Result<Prepared> {
    let to = string_arg("modify-var", args, "to")?.to_owned();
    if to.trim().is_empty() || to.contains(char::is_whitespace) {
        return Err(Error::InvalidArgument(format!(
            "`modify-var`: `to` is not a name: `{to}`"
        )));
    }
    let mut q = query(ctx, "modify-var", args, "from").await?;
    if q.name == to {
        return Err(Error::InvalidArgument(format!(
            "`modify-var`: `{to}` is already its name"
        )));
    }
    let mut plan = Plan::default();
    let mut engine = "lsp";
    let mut done = false;
    if let Some(client) = q.client.clone() {
        let mut params = position_params(&client, &q.target.path, &q.text, q.at.start);
        params["newName"] = json!(to);
        match ask(&client, "textDocument/rename", params).await {
            Ok(Value::Null) => {
                q.warnings.push(format!(
                    "the language server `{}` proposes no edit for `{}`",
                    client.spec.name(),
                    q.name
                ));
                done = true;
            }
            Ok(answer) => {
                let edit: lsp_types::WorkspaceEdit =
                    serde_json::from_value(answer).map_err(|e| {
                        Error::Edit(format!(
                            "the language server's rename is not a workspace edit: {e}"
                        ))
                    })?;
                plan.apply_workspace_edit(edit, &ctx.root, &client)?;
                done = true;
                if plan.changed().is_empty() {
                    q.warnings.push(format!(
                        "the language server `{}` proposes no edit for `{}`",
                        client.spec.name(),
                        q.name
                    ));
                }
            }
            Err(super::lsp::LspError::Server(code, message)) => {
                return Err(Error::Edit(format!(
                    "the language server `{}` refused the rename ({code}): {message}",
                    client.spec.name()
                )))
            }
            Err(e) => q.warnings.push(format!(
                "the language server `{}` failed: {e}; the syntax fallback answers",
                client.spec.name()
            )),
        }
    }
    if !done {
        let (places, said) = q.fallback(&ctx.root);
        engine = said;
        let mut by_file: std::collections::BTreeMap<PathBuf, Vec<(usize, usize, String)>> =
            std::collections::BTreeMap::default();
        for p in places {
            by_file
                .entry(p.path)
                .or_default()
                .push((p.start, p.end, to.clone()));
        }
        for (path, edits) in by_file {
            plan.apply_ranges(&path, edits, None)?;
        }
    }
    let files: Vec<Value> = plan
        .changed()
        .iter()
        .map(|(path, _)| json!({"path": relative(&ctx.root, path), "edits": plan.edits.get(*path).copied().unwrap_or(0)}))
        .collect();
    let edits: usize = plan.edits.values().sum();
    Ok(Prepared {
        data: json!({
            "variable": q.name,
            "to": to,
            "file": relative(&ctx.root, &q.target.path),
            "engine": engine,
            "server": server_name(q.client.as_ref()),
            "files": files,
            "edits": edits,
        }),
        plan,
        warnings: q.warnings,
        moved: None,
    })
}

/// `lsp-list`: each language's server, where the entry came from, whether
/// it is installed and whether it runs for this workspace.
pub fn lsp_list(ctx: &CodeContext) -> Result<(Value, Vec<String>)> {
    let (table, warnings) = ctx.table()?;
    let servers: Vec<Value> = table
        .iter()
        .map(|spec| {
            let running = ctx.servers.running(&ctx.root, &spec.language);
            json!({
                "language": spec.language,
                "command": spec.command,
                "extensions": spec.extensions,
                "source": spec.source,
                "installed": spec.program.is_some(),
                "program": spec.program,
                "blocked": spec.blocked,
                "running": running.is_some(),
                "pid": running.as_ref().and_then(|c| c.pid),
                "start_ms": running.as_ref().map(|c| c.start_ms()),
            })
        })
        .collect();
    Ok((json!({"workspace": ctx.root, "servers": servers}), warnings))
}
