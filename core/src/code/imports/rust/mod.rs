//! Rust: a module's file moved within its crate's module tree. Its `mod`
//! item leaves the old parent for the new one (renamed, `pub(crate)` when
//! paths from outside the new parent name it), and every path that names
//! it is rewritten, from whatever module it is written in: `crate::a::b`,
//! `super::b`, `self::b`, `b::f()` in the parent or after `use ...::b`, the
//! crate's name in `tests/`, `examples/` and binaries, and paths in macro
//! calls. The moved file's own `super::` paths are written from `crate::`
//! when its parent changes.

use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::{Edit, Reader};
use crate::code::syntax::Grammar;
use crate::code::walk::source_files;

mod paths;

/// Where a crate's modules live.
struct Layout {
    /// The package's folder (with `Cargo.toml`, or the parent of `src`).
    package: PathBuf,
    /// The folder of the module tree.
    src: PathBuf,
    /// The tree's root file (`lib.rs` or `main.rs`).
    root_file: PathBuf,
    /// The library's name as the package's other crates write it.
    name: Option<String>,
}

/// A module's move: its module path before and after.
struct Move {
    from: Vec<String>,
    to: Vec<String>,
    layout: Layout,
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The top-level `mod name;` item of a parsed file.
fn mod_item<'t>(root: Node<'t>, source: &str, name: &str) -> Option<Node<'t>> {
    let mut cursor = root.walk();
    let found = root.children(&mut cursor).find(|n| {
        n.kind() == "mod_item"
            && n.child_by_field_name("body").is_none()
            && n.child_by_field_name("name")
                .is_some_and(|m| &source[m.byte_range()] == name)
    });
    found
}

impl Layout {
    /// The module tree `old` is in: the nearest `Cargo.toml`'s `src`, or
    /// without one the nearest folder with a `lib.rs` or `main.rs`.
    fn find(root: &Path, old: &Path, read: Reader<'_>) -> Option<Layout> {
        let inside = |d: &&Path| d.starts_with(root);
        let package = old
            .ancestors()
            .skip(1)
            .take_while(inside)
            .find(|d| d.join("Cargo.toml").is_file());
        let (package, src) = if let Some(p) = package {
            (p.to_owned(), p.join("src"))
        } else {
            let src = old
                .ancestors()
                .skip(1)
                .take_while(inside)
                .find(|d| d.join("lib.rs").is_file() || d.join("main.rs").is_file())?;
            (src.parent().unwrap_or(root).to_owned(), src.to_owned())
        };
        let top = old.strip_prefix(&src).ok()?.components().next()?;
        let top = stem(Path::new(top.as_os_str()));
        let (lib, main) = (src.join("lib.rs"), src.join("main.rs"));
        let declares = |file: &Path, read: Reader<'_>| {
            read(file).is_some_and(|source| {
                Grammar::Rust
                    .parse(&source)
                    .is_some_and(|tree| mod_item(tree.root_node(), &source, &top).is_some())
            })
        };
        let root_file = if declares(&lib, read) || !main.is_file() {
            lib
        } else {
            main
        };
        let name = (root_file.ends_with("lib.rs"))
            .then(|| std::fs::read_to_string(package.join("Cargo.toml")).ok())
            .flatten()
            .and_then(|t| t.parse::<toml::Table>().ok())
            .and_then(|t| {
                let named = |key: &str| {
                    t.get(key)?
                        .get("name")?
                        .as_str()
                        .map(|n| n.replace('-', "_"))
                };
                named("lib").or_else(|| named("package"))
            });
        Some(Layout {
            package,
            src,
            root_file,
            name,
        })
    }

    /// The module path of a file of the tree (None: another crate of the
    /// package, or not Rust of this package).
    fn module_path(&self, file: &Path) -> Option<Vec<String>> {
        if file == self.root_file {
            return Some(Vec::new());
        }
        let rel = file.strip_prefix(&self.src).ok()?;
        if rel.starts_with("bin")
            || file == self.src.join("lib.rs")
            || file == self.src.join("main.rs")
        {
            return None;
        }
        let mut parts: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        (!parts.is_empty()).then_some(parts)
    }

    /// The file of a module, if it exists.
    fn module_file(&self, module: &[String], read: Reader<'_>) -> Option<PathBuf> {
        if module.is_empty() {
            return Some(self.root_file.clone());
        }
        let base = self.src.join(module.join("/"));
        [base.with_extension("rs"), base.join("mod.rs")]
            .into_iter()
            .find(|f| read(f).is_some())
    }

    /// Whether `file` belongs to this package (not to one nested in it).
    fn owns(&self, file: &Path) -> bool {
        file.ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(&self.package) && *d != self.package)
            .all(|d| !d.join("Cargo.toml").is_file())
    }
}

/// The edits of moving the Rust module file `old` to `new`.
pub(super) fn rust_edits(
    root: &Path,
    old: &Path,
    new: &Path,
    read: Reader<'_>,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
    warnings: &mut Vec<String>,
) {
    let special = |p: &Path| ["mod", "lib", "main"].contains(&stem(p).as_str());
    if special(old) || special(new) || new.extension().is_none_or(|e| e != "rs") {
        warnings.push("a mod.rs, lib.rs or main.rs (or a move to a name that is not a module's) is moved without rewriting `mod` items and paths".into());
        return;
    }
    let Some(layout) = Layout::find(root, old, &mut *read) else {
        warnings.push(
            "the file is not in a crate's module tree: nothing that names it was changed".into(),
        );
        return;
    };
    let (Some(from), Some(to)) = (layout.module_path(old), layout.module_path(new)) else {
        warnings.push("the new place is outside the crate's module tree: nothing that names the module was changed".into());
        return;
    };
    if to.starts_with(&from) {
        warnings
            .push("a module cannot move inside itself: nothing that names it was changed".into());
        return;
    }
    let m = Move { from, to, layout };
    let mut outside = false;
    let files = vec!["rs".to_owned()];
    for file in source_files(&m.layout.package, &files, crate::code::lookup::MAX_FILES) {
        let here = m.layout.module_path(&file);
        if (here.is_none() && m.layout.name.is_none()) || !m.layout.owns(&file) {
            continue;
        }
        let Some(source) = read(&file) else {
            continue;
        };
        let found = paths::rewrite(&m, &source, here.as_deref(), file == old);
        outside |= found.from_outside;
        if !found.edits.is_empty() {
            out.push((file, found.edits));
        }
    }
    move_item(&m, read, outside, out, warnings);
    let parent_changed = m.from[..m.from.len() - 1] != m.to[..m.to.len() - 1];
    let narrowed = read(old).is_some_and(|t| t.contains("pub(super)") || t.contains("pub(in "));
    if parent_changed && narrowed {
        warnings.push(
            "the module has `pub(super)` or `pub(in ...)` items: they are now visible to its new parent, not its old one"
                .into(),
        );
    }
    if old.with_extension("").is_dir() {
        warnings.push(format!(
            "the module's own submodules in `{}/` were not moved with it",
            old.with_extension("").display()
        ));
    }
    merge_deletions(out);
}

/// The edits of `file` in `out`, added when missing.
fn edits_of<'a>(out: &'a mut Vec<(PathBuf, Vec<Edit>)>, file: &Path) -> &'a mut Vec<Edit> {
    let i = out.iter().position(|(f, _)| f == file).unwrap_or_else(|| {
        out.push((file.to_owned(), Vec::new()));
        out.len() - 1
    });
    &mut out[i].1
}

/// `mod old;` renamed in place, or moved from the old parent's file to the
/// new parent's (with its attributes and doc comments).
fn move_item(
    m: &Move,
    read: Reader<'_>,
    outside: bool,
    out: &mut Vec<(PathBuf, Vec<Edit>)>,
    warnings: &mut Vec<String>,
) {
    let (old_parent, new_parent) = (&m.from[..m.from.len() - 1], &m.to[..m.to.len() - 1]);
    let (old_name, new_name) = (&m.from[m.from.len() - 1], &m.to[m.to.len() - 1]);
    let item = m
        .layout
        .module_file(old_parent, &mut *read)
        .and_then(|file| {
            let source = read(&file)?;
            let tree = Grammar::Rust.parse(&source)?;
            let item = mod_item(tree.root_node(), &source, old_name)?;
            let name = item.child_by_field_name("name")?.byte_range();
            let mut first = item;
            while let Some(prev) = first.prev_sibling() {
                let text = &source[prev.byte_range()];
                if prev.kind() == "attribute_item"
                    || (prev.kind() == "line_comment" && text.starts_with("///"))
                {
                    first = prev;
                } else {
                    break;
                }
            }
            let start = source[..first.start_byte()]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            let end = source[item.end_byte()..]
                .find('\n')
                .map_or(source.len(), |i| item.end_byte() + i + 1);
            let public = item
                .child(0)
                .is_some_and(|c| c.kind() == "visibility_modifier");
            let vis = if outside && !public {
                "pub(crate) "
            } else {
                ""
            };
            let moved = format!(
                "{}{vis}{}{new_name}{}\n",
                &source[start..item.start_byte()],
                &source[item.start_byte()..name.start],
                source[name.end..end].trim_end_matches('\n'),
            );
            Some((file, start, end, name, moved))
        });
    let Some((old_file, start, end, name, moved)) = item else {
        warnings.push(format!(
            "no `mod {old_name};` was found in the parent module's file"
        ));
        return;
    };
    if old_parent == new_parent {
        edits_of(out, &old_file).push((name.start, name.end, new_name.clone()));
        return;
    }
    edits_of(out, &old_file).push((start, end, String::new()));
    let target = m
        .layout
        .module_file(new_parent, &mut *read)
        .and_then(|file| {
            let source = read(&file)?;
            let at = insertion_point(&source)?;
            let gap = if at == source.len() && !source.is_empty() && !source.ends_with('\n') {
                "\n"
            } else {
                ""
            };
            Some((file, at, format!("{gap}{moved}")))
        });
    match target {
        Some((file, at, moved)) => edits_of(out, &file).push((at, at, moved)),
        None => warnings.push(format!(
            "no file holds the module `{}`: declare `{}` in it",
            new_parent.join("::"),
            moved.trim()
        )),
    }
}

/// Where a new `mod` item goes: after the file's last `mod x;`, or after
/// its inner attributes and `//!` docs.
fn insertion_point(source: &str) -> Option<usize> {
    let tree = Grammar::Rust.parse(source)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut after = None;
    let mut head = true;
    let mut last_mod = None;
    for node in root.children(&mut cursor) {
        let text = &source[node.byte_range()];
        let inner = node.kind() == "inner_attribute_item"
            || (node.kind() == "line_comment" && text.starts_with("//!"));
        if head && inner {
            after = Some(node.end_byte());
        } else {
            head = false;
        }
        if node.kind() == "mod_item" && node.child_by_field_name("body").is_none() {
            last_mod = Some(node.end_byte());
        }
    }
    // A line comment's node may hold its newline.
    Some(last_mod.or(after).map_or(0, |end| {
        if source[..end].ends_with('\n') {
            return end;
        }
        source[end..]
            .find('\n')
            .map_or(source.len(), |i| end + i + 1)
    }))
}

/// Deletions that overlap (two items leaving one `use` list share a comma)
/// become one.
fn merge_deletions(out: &mut [(PathBuf, Vec<Edit>)]) {
    for (_, edits) in out.iter_mut() {
        edits.sort_by_key(|e| (e.0, e.1));
        edits.dedup();
        let mut merged: Vec<Edit> = Vec::with_capacity(edits.len());
        for edit in edits.drain(..) {
            match merged.last_mut() {
                Some(last) if last.2.is_empty() && edit.2.is_empty() && edit.0 < last.1 => {
                    last.1 = last.1.max(edit.1);
                }
                _ => merged.push(edit),
            }
        }
        *edits = merged;
    }
}
