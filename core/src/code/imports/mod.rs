//! `rename-file` without a server: the imports that name the moved file,
//! and the moved file's own relative imports, rewritten by the syntax tree
//! for JS/TS (every import and export form, `require`, dynamic `import()`),
//! Python (`import`, `from ... import`, relative imports), Lua (`require`)
//! and Rust (`mod` items and every path that names the module, in its
//! crate and, by the crate's name, in its tests, examples and binaries).

use std::path::{Component, Path, PathBuf};

use tree_sitter::Node;

use super::syntax::Grammar;

mod js;
mod lua;
mod python;
mod rust;

/// A byte range of a file and its new text.
pub type Edit = (usize, usize, String);

/// Reads a file's current text (what a plan made of it so far).
pub type Reader<'a> = &'a mut dyn FnMut(&Path) -> Option<String>;

/// `path` with `.` and `..` resolved by their names.
pub(super) fn normal(path: &Path) -> PathBuf {
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
pub(super) fn relative_to(from: &Path, to: &Path) -> String {
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

pub(super) fn walk<'t>(node: Node<'t>, visit: &mut dyn FnMut(Node<'t>)) {
    visit(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        walk(child, visit);
    }
}

pub(super) fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    &source[node.byte_range()]
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
            js::js_edits(root, old, new, read, &mut out);
        }
        Some(Grammar::Python) => python::py_edits(root, old, new, read, &mut out),
        Some(Grammar::Lua) => lua::lua_edits(root, old, new, read, &mut out),
        Some(Grammar::Rust) => rust::rust_edits(root, old, new, read, &mut out, &mut warnings),
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
