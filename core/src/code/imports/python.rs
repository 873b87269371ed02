//! Python imports: `import`, `from ... import`, relative imports, dotted uses.

use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::{text, walk, Edit, Reader};
use crate::code::syntax::Grammar;
use crate::code::walk::source_files;

/// The dotted module name of a Python file under `root`.
fn py_module(root: &Path, path: &Path) -> Option<Vec<String>> {
    let rel = path.strip_prefix(root).ok()?.with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "__init__") {
        parts.pop();
    }
    Some(parts)
}

/// The edits of moving `old` to `new` in Python files.
pub(super) fn py_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
) {
    let (Some(old_mod), Some(new_mod)) = (py_module(root, old), py_module(root, new)) else {
        return;
    };
    let files = vec!["py".to_owned(), "pyi".to_owned()];
    for file in source_files(root, &files, crate::code::lookup::MAX_FILES) {
        let Some(source) = read(&file) else {
            continue;
        };
        let Some(tree) = Grammar::Python.parse(&source) else {
            continue;
        };
        let Some(mut package) = py_module(root, &file) else {
            continue;
        };
        if !file.ends_with("__init__.py") {
            package.pop();
        }
        let mut edits = Vec::new();
        walk(tree.root_node(), &mut |node| {
            match node.kind() {
                "import_statement" => {
                    let mut cursor = node.walk();
                    for name in node.children_by_field_name("name", &mut cursor) {
                        let dotted = if name.kind() == "aliased_import" {
                            name.child_by_field_name("name")
                        } else {
                            Some(name)
                        };
                        if let Some(dotted) = dotted.filter(|d| {
                            text(*d, &source)
                                .split('.')
                                .eq(old_mod.iter().map(String::as_str))
                        }) {
                            edits.push((dotted.start_byte(), dotted.end_byte(), new_mod.join(".")));
                        }
                    }
                }
                // `pkg.util.x` after `import pkg.util`.
                "attribute"
                    if text(node, &source)
                        .split('.')
                        .eq(old_mod.iter().map(String::as_str)) =>
                {
                    edits.push((node.start_byte(), node.end_byte(), new_mod.join(".")));
                }
                "import_from_statement" => {
                    let Some(module) = node.child_by_field_name("module_name") else {
                        return;
                    };
                    let written = text(module, &source);
                    let dots = written.chars().take_while(|c| *c == '.').count();
                    let resolved: Vec<String> = if dots == 0 {
                        written.split('.').map(str::to_owned).collect()
                    } else {
                        let up = dots - 1;
                        if up > package.len() {
                            return;
                        }
                        let mut base = package[..package.len() - up].to_vec();
                        base.extend(
                            written[dots..]
                                .split('.')
                                .filter(|s| !s.is_empty())
                                .map(str::to_owned),
                        );
                        base
                    };
                    let moved_here = file == old
                        && dots > 0
                        && new_mod[..new_mod.len() - 1] != old_mod[..old_mod.len() - 1];
                    if resolved == old_mod || moved_here {
                        let target = if resolved == old_mod {
                            new_mod.clone()
                        } else {
                            resolved.clone()
                        };
                        edits.push((module.start_byte(), module.end_byte(), target.join(".")));
                        return;
                    }
                    // `from pkg import util` naming the module itself.
                    let mut cursor = node.walk();
                    let names: Vec<Node> =
                        node.children_by_field_name("name", &mut cursor).collect();
                    for name in &names {
                        let dotted = if name.kind() == "aliased_import" {
                            name.child_by_field_name("name")
                        } else {
                            Some(*name)
                        };
                        let Some(dotted) = dotted else { continue };
                        let mut full = resolved.clone();
                        full.push(text(dotted, &source).to_owned());
                        if full == old_mod {
                            let (parent, last) = new_mod.split_at(new_mod.len() - 1);
                            if parent != &old_mod[..old_mod.len() - 1] {
                                if names.len() > 1 || parent.is_empty() {
                                    continue;
                                }
                                edits.push((
                                    module.start_byte(),
                                    module.end_byte(),
                                    parent.join("."),
                                ));
                            }
                            edits.push((dotted.start_byte(), dotted.end_byte(), last[0].clone()));
                        }
                    }
                }
                _ => {}
            }
        });
        if !edits.is_empty() {
            out.push((file, edits));
        }
    }
}
