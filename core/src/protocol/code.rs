//! The code-intelligence commands (see [`crate::code`]): `read-var`,
//! `modify-var` and `rename-file` through the tool hooks, their edits
//! written as one step of the request's conversation; `lsp-list`.

use std::future::Future;
use std::pin::Pin;

use serde_json::{json, Value};

use super::dispatch::outcome_response;
use super::engine::Engine;
use super::envelope::{Request, Response};
use crate::code::{self, CodeContext, Prepared};
use crate::edit::commands::around;
use crate::edit::{EditOutcome, EditSession};
use crate::error::{Error, Result};
use crate::support::json::args_object;

/// The code commands.
pub const CODE_COMMANDS: &[&str] = &["read-var", "modify-var", "rename-file", "lsp-list"];

/// Writes what `prepared` planned as one step of `tag`'s conversation,
/// after checking that no file changed since the plan was made.
fn write(
    ctx: &CodeContext,
    depth: u64,
    command: &str,
    prepared: &mut Prepared,
    tag: Option<String>,
    follow: bool,
) -> Result<Option<String>> {
    let mut session = EditSession::open(&ctx.root, &ctx.radium_home, depth)?;
    let shown = |p: &std::path::Path| code::lookup::relative(&ctx.root, p);
    let changed = prepared.plan.changed();
    let expected: Vec<(String, Option<String>)> = changed
        .iter()
        .map(|(p, _)| (shown(p), prepared.plan.before.get(*p).cloned().flatten()))
        .collect();
    session.expect_texts(&expected)?;
    let writes: Vec<(String, Option<String>)> = changed
        .iter()
        .map(|(p, after)| (shown(p), (*after).clone()))
        .collect();
    let tag = match tag {
        Some(tag) if follow => Some(session.latest_tag(&tag)),
        other => other,
    };
    let outcome = session.write_step(command, &writes, tag.as_deref())?;
    prepared.warnings.extend(outcome.warnings);
    // A folder a move left empty goes too (an undo makes it again).
    for (path, after) in &changed {
        if after.is_none() {
            if let Some(parent) = path.parent().filter(|p| *p != ctx.root) {
                let _ = std::fs::remove_dir(parent);
            }
        }
    }
    Ok(outcome.tag)
}

/// A preview (`apply: false`): each file's new text (null: moved away)
/// and its unified diff, for a door's review.
fn preview(ctx: &CodeContext, prepared: &mut Prepared) {
    let files: Vec<Value> = prepared
        .plan
        .changed()
        .iter()
        .map(|(path, after)| {
            let before = prepared.plan.before.get(*path).cloned().flatten();
            let shown = code::lookup::relative(&ctx.root, path);
            let diff = similar::TextDiff::from_lines(
                before.as_deref().unwrap_or(""),
                after.as_deref().unwrap_or(""),
            )
            .unified_diff()
            .header(&format!("a/{shown}"), &format!("b/{shown}"))
            .to_string();
            json!({"path": shown, "old_text": before, "new_text": after, "diff": diff})
        })
        .collect();
    prepared.data["preview"] = Value::Array(files);
}

impl Engine {
    /// A code command's work, answered with its tag and warnings.
    pub(super) fn code(
        &self,
        request: Request,
    ) -> Pin<Box<dyn Future<Output = Response> + Send + 'static>> {
        let command = request.command.clone();
        let workspace = self.workspace_for(request.cwd.as_deref());
        let trusted = self.workspace_trusted(workspace.as_deref());
        let prepared = workspace
            .ok_or_else(|| {
                Error::InvalidArgument(format!("`{command}`: give the workspace as `cwd`"))
            })
            .and_then(|root| {
                let root = root.canonicalize().map_err(|source| Error::Io {
                    path: root.clone(),
                    source,
                })?;
                let args = args_object(&command, &request.args)?.clone();
                let handle = self.registry.runtime_handle()?;
                Ok((root, args, handle))
            });
        let (home, servers, registry) = (
            self.radium_home(),
            std::sync::Arc::clone(&self.servers),
            self.registry.clone(),
        );
        let depth = self.config.history_depth;
        let (request_tag, follow) = (request.tag, request.follow);
        Box::pin(async move {
            let outcome = async move {
                let (root, args, handle) = prepared?;
                let ctx = CodeContext {
                    root,
                    radium_home: home,
                    trusted,
                    servers,
                };
                if command == "lsp-list" {
                    let (data, warnings) = code::lsp_list(&ctx)?;
                    return Ok(EditOutcome {
                        data,
                        tag: None,
                        warnings,
                    });
                }
                let name = command.clone();
                // The servers and the disk work run on the engine's runtime.
                let work = around(&registry, command.clone(), args, move |args| async move {
                    let task = handle.spawn(async move {
                        if name == "read-var" {
                            let (data, warnings) = code::read_var(&ctx, &args).await?;
                            return Ok(EditOutcome {
                                data,
                                tag: None,
                                warnings,
                            });
                        }
                        let mut prepared = if name == "modify-var" {
                            code::modify_var(&ctx, &args).await?
                        } else {
                            code::rename_file(&ctx, &args).await?
                        };
                        let apply = !matches!(args.get("apply"), Some(Value::Bool(false)));
                        let mut tag = None;
                        let changes = !prepared.plan.changed().is_empty();
                        if apply && changes {
                            let (ctx2, step) = (ctx.clone(), name.clone());
                            let (result, p) = tokio::task::spawn_blocking(move || {
                                let r =
                                    write(&ctx2, depth, &step, &mut prepared, request_tag, follow);
                                (r, prepared)
                            })
                            .await
                            .map_err(|e| {
                                Error::Runtime(format!("the `{name}` edit did not finish: {e}"))
                            })?;
                            prepared = p;
                            tag = result?;
                            if let Some((client, old, new)) = &prepared.moved {
                                let text = std::fs::read_to_string(new).unwrap_or_default();
                                client.renamed(old, new, &text);
                            }
                        }
                        if !apply {
                            preview(&ctx, &mut prepared);
                        }
                        prepared.data["applied"] = json!(apply && changes);
                        Ok(EditOutcome {
                            data: prepared.data,
                            tag,
                            warnings: prepared.warnings,
                        })
                    });
                    task.await.map_err(|e| {
                        Error::Runtime(format!("the code command did not finish: {e}"))
                    })?
                });
                work.await
            }
            .await;
            outcome_response(outcome)
        })
    }
}
