//! `rename-file` without a server: the imports that name the moved file,
//! and the moved file's own relative imports, rewritten by the syntax tree
//! for JS/TS (every import and export form, `require`, dynamic `import()`),
//! Python (`import`, `from ... import`, relative imports), Lua (`require`)
//! and Rust (`mod` and `crate::` paths, for a move within its folder).

use std::path::{Component, Path, PathBuf};

use tree_sitter::Node;

use super::syntax::Grammar;
use super::walk::source_files;

/// A byte range of a file and its new text.
pub type Edit = (usize, usize, String);

/// Reads a file's current text (what a plan made of it so far).
pub type Reader<'a> = &'a mut dyn FnMut(&Path) -> Option<String>;

/// `path` with `.` and `..` resolved by their names.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `to` relative to the folder `from`, with `/`.
fn relative_to(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
    parts.extend(
        to_parts[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

fn walk<'t>(node: Node<'t>, visit: &mut dyn FnMut(Node<'t>)) {
    visit(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        walk(child, visit);
    }
}

fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    &source[node.byte_range()]
}

const JS_EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"];

/// The file a relative JS/TS specifier names from `dir`.
fn resolve_js(dir: &Path, spec: &str, exists: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    if !(spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..") {
        return None;
    }
    let base = normal(&dir.join(spec));
    if exists(&base) {
        return Some(base);
    }
    let name = base.file_name()?.to_string_lossy().into_owned();
    // `./a.js` naming `a.ts` (TypeScript's ESM style).
    for (js, ts) in [("js", "ts"), ("jsx", "tsx"), ("mjs", "mts"), ("cjs", "cts")] {
        if let Some(stem) = name.strip_suffix(&format!(".{js}")) {
            let candidate = base.with_file_name(format!("{stem}.{ts}"));
            if exists(&candidate) {
                return Some(candidate);
            }
        }
    }
    for ext in JS_EXTENSIONS {
        let candidate = base.with_file_name(format!("{name}.{ext}"));
        if exists(&candidate) {
            return Some(candidate);
        }
    }
    JS_EXTENSIONS
        .iter()
        .map(|ext| base.join(format!("index.{ext}")))
        .find(|c| exists(c))
}

/// The specifier naming `target` from `dir`, in the style of `old_spec`
/// (which named `old_target`): with or without the extension, `.js` for a
/// TypeScript file, a folder for its `index`.
fn style_js(dir: &Path, target: &Path, old_spec: &str, old_target: &Path) -> String {
    let old_name = old_spec.rsplit('/').next().unwrap_or("");
    let old_file = old_target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let old_stem = old_file.split('.').next().unwrap_or("");
    let stem_of = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut path = relative_to(dir, target);
    if old_name == old_file {
        // The full name was written.
    } else if old_stem == "index" && !old_name.starts_with("index") && stem_of(target) == "index" {
        path = relative_to(dir, target.parent().unwrap_or(dir));
    } else {
        let written_ext = old_name
            .rsplit_once('.')
            .map(|(_, e)| e)
            .filter(|_| old_name != old_stem);
        let without = path
            .rsplit_once('.')
            .map_or(path.clone(), |(p, _)| p.to_owned());
        path = match written_ext {
            Some(ext) => format!("{without}.{ext}"),
            None => without,
        };
    }
    if path.is_empty() {
        ".".into()
    } else if path.starts_with("../") || path == ".." {
        path
    } else {
        format!("./{path}")
    }
}

/// The specifier strings of a JS/TS file: (fragment node range, specifier).
fn js_specifiers(tree: &tree_sitter::Tree, source: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    walk(tree.root_node(), &mut |node| {
        if node.kind() != "string" {
            return;
        }
        let Some(parent) = node.parent() else { return };
        let named = match parent.kind() {
            "import_statement" | "export_statement" => {
                parent.child_by_field_name("source") == Some(node)
            }
            "arguments" => parent.parent().is_some_and(|call| {
                call.kind() == "call_expression"
                    && call
                        .child_by_field_name("function")
                        .is_some_and(|f| f.kind() == "import" || text(f, source) == "require")
                    && parent.named_child(0) == Some(node)
            }),
            _ => false,
        };
        if named {
            let inner = node.start_byte() + 1..node.end_byte().saturating_sub(1);
            if inner.start <= inner.end {
                found.push((inner.start, inner.end, source[inner].to_owned()));
            }
        }
    });
    found
}

/// The edits of moving `old` to `new` in JS/TS files.
fn js_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
) {
    let exists = |p: &Path| p.is_file();
    let files: Vec<String> = JS_EXTENSIONS.iter().map(|s| (*s).to_owned()).collect();
    for file in source_files(root, &files, super::lookup::MAX_FILES) {
        let Some(source) = read(&file) else {
            continue;
        };
        let Some(tree) = Grammar::of(&file).and_then(|g| g.parse(&source)) else {
            continue;
        };
        let dir = file.parent().unwrap_or(root);
        let mut edits = Vec::new();
        for (start, end, spec) in js_specifiers(&tree, &source) {
            let Some(target) = resolve_js(dir, &spec, &exists) else {
                continue;
            };
            let replacement = if file == old {
                if target == old {
                    continue;
                }
                style_js(new.parent().unwrap_or(root), &target, &spec, &target)
            } else if target == old {
                style_js(dir, new, &spec, old)
            } else {
                continue;
            };
            if replacement != spec {
                edits.push((start, end, replacement));
            }
        }
        if !edits.is_empty() {
            out.push((file, edits));
        }
    }
}

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
fn py_edits(
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
    for file in source_files(root, &files, super::lookup::MAX_FILES) {
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
fn lua_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
) {
    let (olds, news) = (lua_modules(root, old), lua_modules(root, new));
    let files = vec!["lua".to_owned()];
    for file in source_files(root, &files, super::lookup::MAX_FILES) {
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
fn rust_edits(
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
    for file in source_files(root, &files, super::lookup::MAX_FILES) {
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

/// The edits of moving `old` to `new` (absolute paths in `root`), by file,
/// reading each file with `read`. Without `own`, the moved file's own
/// imports are left alone (a server already rewrote them).
pub fn import_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    own: bool,
) -> (Vec<(PathBuf, Vec<Edit>)>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    match Grammar::of(old) {
        Some(Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx) => {
            js_edits(root, old, new, read, &mut out);
        }
        Some(Grammar::Python) => py_edits(root, old, new, read, &mut out),
        Some(Grammar::Lua) => lua_edits(root, old, new, read, &mut out),
        Some(Grammar::Rust) => rust_edits(root, old, new, read, &mut out, &mut warnings),
        None => warnings.push(
            "radium does not know this kind of file's imports: nothing that names it was changed"
                .into(),
        ),
    }
    if !own {
        out.retain(|(file, _)| file != old);
    }
    (out, warnings)
}
