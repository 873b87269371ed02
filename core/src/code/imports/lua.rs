//! Lua `require` names.

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
