//! Lua `require` names and Rust `mod` / `crate::` paths.

use std::path::{Path, PathBuf};

use super::{text, walk, Edit, Reader};
use crate::code::syntax::Grammar;
use crate::code::walk::source_files;

/// The `require` names of a Lua file: itself under `root` and under
/// `root/lua` (Neovim's runtime path).
fn lua_modules(root: &Path, path: &Path) -> Vec<String> {
    [root.to_owned(), root.join("lua")]
        .iter()
        .filter_map(|base| {
            let rel = path.strip_prefix(base).ok()?.with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "init") && parts.len() > 1 {
                parts.pop();
            }
            Some(parts.join("."))
        })
        .collect()
}

/// The edits of moving `old` to `new` in Lua files.
pub(super) fn lua_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
) {
    let (olds, news) = (lua_modules(root, old), lua_modules(root, new));
    let files = vec!["lua".to_owned()];
    for file in source_files(root, &files, crate::code::lookup::MAX_FILES) {
        let Some(source) = read(&file) else {
            continue;
        };
        let Some(tree) = Grammar::Lua.parse(&source) else {
            continue;
        };
        let mut edits = Vec::new();
        walk(tree.root_node(), &mut |node| {
            if node.kind() != "string_content" {
                return;
            }
            let call = node
                .parent()
                .and_then(|s| s.parent())
                .and_then(|a| a.parent());
            let required = call.is_some_and(|c| {
                c.kind() == "function_call"
                    && c.child_by_field_name("name")
                        .is_some_and(|n| text(n, &source) == "require")
            });
            if !required {
                return;
            }
            let name = text(node, &source);
            if let Some(i) = olds.iter().position(|m| m == name) {
                if let Some(new_name) = news.get(i) {
                    edits.push((node.start_byte(), node.end_byte(), new_name.clone()));
                }
            }
        });
        if !edits.is_empty() {
            out.push((file, edits));
        }
    }
}

/// The edits of renaming the Rust module file `old` to `new` in its
/// folder: `mod old;` and the `crate::` paths through it.
pub(super) fn rust_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
    warnings: &mut Vec<String>,
) {
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let (old_name, new_name) = (stem(old), stem(new));
    if old.parent() != new.parent() || ["mod", "lib", "main"].contains(&old_name.as_str()) {
        warnings.push("a Rust module moved to another folder (or a mod.rs, lib.rs, main.rs) is moved without rewriting its `mod` and `use` paths".into());
        return;
    }
    let files = vec!["rs".to_owned()];
    for file in source_files(root, &files, crate::code::lookup::MAX_FILES) {
        let Some(source) = read(&file) else {
            continue;
        };
        let Some(tree) = Grammar::Rust.parse(&source) else {
            continue;
        };
        let sibling = file.parent() == old.parent();
        let mut edits = Vec::new();
        walk(tree.root_node(), &mut |node| {
            let name = match node.kind() {
                "mod_item" if sibling => node.child_by_field_name("name"),
                "scoped_identifier" | "scoped_use_list" | "use_as_clause" => {
                    // `old::x` from a sibling module, or `crate::...::old`.
                    node.child_by_field_name("path")
                        .filter(|p| p.kind() == "identifier" && sibling)
                }
                "use_declaration" => node
                    .child_by_field_name("argument")
                    .filter(|a| a.kind() == "identifier" && sibling),
                _ => None,
            };
            if let Some(name) = name.filter(|n| text(*n, &source) == old_name) {
                edits.push((name.start_byte(), name.end_byte(), new_name.clone()));
            }
            if node.kind() == "scoped_identifier" {
                if let Some(name) = node
                    .child_by_field_name("name")
                    .filter(|n| text(*n, &source) == old_name)
                {
                    let path = node.child_by_field_name("path").map(|p| text(p, &source));
                    if matches!(path, Some("crate" | "self" | "super"))
                        || path.is_some_and(|p| p.starts_with("crate::"))
                    {
                        edits.push((name.start_byte(), name.end_byte(), new_name.clone()));
                    }
                }
            }
        });
        edits.sort();
        edits.dedup();
        if !edits.is_empty() {
            out.push((file, edits));
        }
    }
}
