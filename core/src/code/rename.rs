//! `rename-file`: the server's `workspace/willRenameFiles` edits (or the
//! syntax rewrite of the imports), then the move, as one plan.

use serde_json::{json, Map, Value};

use super::commands::{engine_arg, target, CodeContext, Mode, Prepared};
use super::edits::Plan;
use super::imports::import_edits;
use super::lookup::{ask, relative, server_name, show_workspace};
use super::lsp::uri::path_uri;
use super::servers::spec_for;
use crate::error::{Error, Result};
use crate::support::json::string_arg;

/// Prepares moving `from` to `to` and updating what names it.
pub async fn rename_file(ctx: &CodeContext, args: &Map<String, Value>) -> Result<Prepared> {
    let command = "rename-file";
    let old = target(ctx, command, string_arg(command, args, "from")?)?;
    let shown_new = string_arg(command, args, "to")?;
    let new = old.project.confine_write(shown_new)?;
    old.project.confine_write(&old.shown)?;
    if new.exists() {
        return Err(Error::Edit(format!(
            "`{command}`: `{shown_new}` already exists: nothing was moved"
        )));
    }
    let mode = engine_arg(command, args)?;
    let (table, mut warnings) = ctx.table()?;
    let spec = spec_for(&table, &old.path).cloned();
    let mut client = ctx.server(spec.as_ref(), mode, &mut warnings).await?;
    if let Some(c) = client.clone() {
        let offers = !c.capabilities()["workspace"]["fileOperations"]["willRename"].is_null();
        if !offers {
            let why = format!(
                "the language server `{}` does not offer file renames",
                c.spec.name()
            );
            if mode == Mode::Lsp {
                return Err(Error::NotFound(why));
            }
            warnings.push(format!("{why}; the syntax rewrite updates the imports"));
            client = None;
        }
    }
    let mut plan = Plan::default();
    let mut used = "syntax";
    if let Some(c) = client.clone() {
        let text = std::fs::read_to_string(&old.path).map_err(|source| Error::Io {
            path: old.path.clone(),
            source,
        })?;
        c.sync(&old.path, &text);
        if c.spec.open_workspace {
            show_workspace(&c);
        }
        let params = json!({"files": [{"oldUri": path_uri(&old.path), "newUri": path_uri(&new)}]});
        match ask(&c, "workspace/willRenameFiles", params).await {
            Ok(Value::Null) => used = "lsp",
            Ok(answer) => {
                let edit: lsp_types::WorkspaceEdit =
                    serde_json::from_value(answer).map_err(|e| {
                        Error::Edit(format!(
                            "the language server's answer is not a workspace edit: {e}"
                        ))
                    })?;
                plan.apply_workspace_edit(edit, &ctx.root, &c)?;
                used = "lsp";
            }
            Err(e) => {
                warnings.push(format!(
                    "the language server `{}` failed: {e}; the syntax rewrite updates the imports",
                    c.spec.name()
                ));
                client = None;
            }
        }
    }
    // Without a server, the syntax rewrite updates the imports; after a
    // server, it updates those the server left naming the old path (a
    // `require` in a TypeScript file, which tsserver does not follow).
    let by_server = used == "lsp";
    let (edits, notes) = {
        let c = client.clone();
        let mut read = |p: &std::path::Path| plan.text(p, c.as_deref()).ok().flatten();
        import_edits(&ctx.root, &old.path, &new, &mut read, !by_server)
    };
    if by_server {
        if !edits.is_empty() {
            let n: usize = edits.iter().map(|(_, e)| e.len()).sum();
            warnings.push(format!(
                "{n} more imports naming `{}` were updated by the syntax rewrite",
                old.shown
            ));
        }
    } else {
        warnings.extend(notes);
        warnings.push("imports found by the syntax tree, not by a language server".into());
    }
    for (path, edits) in edits {
        plan.apply_ranges(&path, edits, client.as_deref())?;
    }
    plan.rename(&old.path, &new, client.as_deref())?;
    let files: Vec<Value> = plan
        .changed()
        .iter()
        .map(|(path, after)| {
            let mut file = json!({
                "path": relative(&ctx.root, path),
                "edits": plan.edits.get(*path).copied().unwrap_or(0),
            });
            if after.is_none() {
                file["removed"] = json!(true);
            } else if !plan.before.get(*path).is_some_and(Option::is_some) {
                file["created"] = json!(true);
            }
            file
        })
        .collect();
    Ok(Prepared {
        data: json!({
            "from": relative(&ctx.root, &old.path),
            "to": relative(&ctx.root, &new),
            "engine": used,
            "server": server_name(client.as_ref()),
            "files": files,
            "edits": plan.edits.values().sum::<usize>(),
        }),
        plan,
        warnings,
        moved: client.map(|c| (c, old.path, new)),
    })
}
