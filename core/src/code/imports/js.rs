//! JS/TS imports: `import`/`export ... from`, `require`, `import()`.

use std::path::{Path, PathBuf};

use super::{normal, relative_to, text, walk, Edit, Reader};
use crate::code::syntax::Grammar;
use crate::code::walk::source_files;

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
pub(super) fn js_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
) {
    let exists = |p: &Path| p.is_file();
    let files: Vec<String> = JS_EXTENSIONS.iter().map(|s| (*s).to_owned()).collect();
    for file in source_files(root, &files, crate::code::lookup::MAX_FILES) {
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
