//! The paths of one Rust file that name a moved module, each resolved from
//! the module the file is (`crate::`, `self::`, `super::`, a child module's
//! name, a name the file imported, the crate's name in its tests), and the
//! edits that make them name the module's new place.

use tree_sitter::Node;

use super::Move;
use crate::code::imports::Edit;

/// One segment of a path: its bytes and its text.
#[derive(Clone, Copy)]
struct Seg<'s> {
    start: usize,
    end: usize,
    text: &'s str,
}

/// A `use` tree item that may have to leave its list, and its declaration.
#[derive(Clone, Copy)]
struct Item<'t> {
    node: Node<'t>,
    decl: Node<'t>,
}

/// What the rewrite of one file found.
#[derive(Default)]
pub(super) struct Found {
    /// The edits, by byte range.
    pub edits: Vec<Edit>,
    /// A path outside the new parent module names the module (a private
    /// module must become `pub(crate)`).
    pub from_outside: bool,
}

/// One file being read: its text, its module (None: another crate of the
/// package, which names the library by its name) and what the move is.
struct File<'a, 's> {
    m: &'a Move,
    source: &'s str,
    /// The module the node being read is in: the file's, and the inline
    /// `mod x { ... }` it is inside.
    here: Option<Vec<String>>,
    /// The file is the moved module's own: its `super::` paths change.
    moved: bool,
    /// The file imports the module by its own name (`use crate::a::b;`).
    imported: bool,
    found: Found,
}

/// The edits of one file with the module path `here` (None: outside the
/// module tree), `moved` when it is the moved module's file.
pub(super) fn rewrite(m: &Move, source: &str, here: Option<&[String]>, moved: bool) -> Found {
    let Some(tree) = crate::code::syntax::Grammar::Rust.parse(source) else {
        return Found::default();
    };
    let mut file = File {
        m,
        source,
        here: here.map(<[String]>::to_vec),
        moved,
        imported: false,
        found: Found::default(),
    };
    // First the imports (a bare `b::f()` after `use crate::a::b;`), then
    // every path.
    file.visit(tree.root_node(), true);
    file.found.edits.clear();
    file.visit(tree.root_node(), false);
    file.found
}

impl<'s> File<'_, 's> {
    fn seg(&self, node: Node<'_>) -> Seg<'s> {
        Seg {
            start: node.start_byte(),
            end: node.end_byte(),
            text: &self.source[node.byte_range()],
        }
    }

    /// The segments of a path node, or false when it is not a plain path.
    fn flatten(&self, node: Node<'_>, out: &mut Vec<Seg<'s>>) -> bool {
        match node.kind() {
            "identifier" | "type_identifier" | "crate" | "self" | "super" => {
                out.push(self.seg(node));
                true
            }
            "scoped_identifier" | "scoped_type_identifier" => {
                match (
                    node.child_by_field_name("path"),
                    node.child_by_field_name("name"),
                ) {
                    (Some(path), Some(name)) => self.flatten(path, out) && self.flatten(name, out),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    fn visit(&mut self, node: Node<'_>, imports_only: bool) {
        match node.kind() {
            "use_declaration" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    self.use_tree(arg, &[], node);
                }
                return;
            }
            "attribute_item" | "inner_attribute_item" | "line_comment" | "block_comment" => return,
            "scoped_identifier" | "scoped_type_identifier" if !imports_only => {
                let mut segs = Vec::new();
                if self.flatten(node, &mut segs) {
                    self.check(&segs, 0, None, false);
                    return;
                }
            }
            "token_tree" if !imports_only => {
                self.token_runs(node);
                return;
            }
            "mod_item" if self.here.is_some() => {
                // An inline module: its paths are read from inside it.
                if let (Some(name), Some(body)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("body"),
                ) {
                    let name = self.source[name.byte_range()].to_owned();
                    if let Some(here) = &mut self.here {
                        here.push(name);
                    }
                    self.visit(body, imports_only);
                    if let Some(here) = &mut self.here {
                        here.pop();
                    }
                    return;
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.visit(child, imports_only);
        }
    }

    /// A `use` tree under the segments of its enclosing lists.
    fn use_tree(&mut self, node: Node<'_>, prefix: &[Seg<'s>], decl: Node<'_>) {
        let item = Some(Item { node, decl });
        let mut segs = prefix.to_vec();
        match node.kind() {
            "scoped_use_list" => {
                if let Some(path) = node.child_by_field_name("path") {
                    if !self.flatten(path, &mut segs) {
                        return;
                    }
                    self.check(&segs, prefix.len(), item, false);
                }
                if let Some(list) = node.child_by_field_name("list") {
                    self.use_tree(list, &segs, decl);
                }
            }
            "use_list" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.use_tree(child, prefix, decl);
                }
            }
            "use_as_clause" | "use_wildcard" => {
                let path = node
                    .child_by_field_name("path")
                    .or_else(|| node.named_child(0));
                if path.is_some_and(|p| self.flatten(p, &mut segs)) {
                    self.check(&segs, prefix.len(), item, false);
                }
            }
            _ => {
                if self.flatten(node, &mut segs) {
                    self.check(&segs, prefix.len(), item, true);
                }
            }
        }
    }

    /// Paths inside a macro's tokens: runs of names joined by `::`.
    fn token_runs(&mut self, tree: Node<'_>) {
        let mut run: Vec<Seg<'s>> = Vec::new();
        let mut after_sep = true;
        let mut cursor = tree.walk();
        let children: Vec<Node<'_>> = tree.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "identifier" | "crate" | "self" | "super" => {
                    if !after_sep {
                        self.flush(&mut run);
                    }
                    run.push(self.seg(child));
                    after_sep = false;
                }
                "::" if !after_sep => after_sep = true,
                kind => {
                    self.flush(&mut run);
                    after_sep = true;
                    if kind == "token_tree" {
                        self.token_runs(child);
                    }
                }
            }
        }
        self.flush(&mut run);
    }

    fn flush(&mut self, run: &mut Vec<Seg<'s>>) {
        let segs = std::mem::take(run);
        if segs.len() > 1 {
            self.check(&segs, 0, None, false);
        }
    }

    /// The module path `segs` names, and for each segment the index of the
    /// module path it stands for (None for `crate`, `self`, `super`).
    fn resolve(&self, segs: &[Seg<'_>]) -> Option<(Vec<String>, Vec<Option<usize>>)> {
        let words: Vec<&str> = segs.iter().map(|s| s.text).collect();
        let from = &self.m.from;
        let (base, skip): (Vec<String>, usize) = match (words[0], self.here.as_deref()) {
            ("crate", Some(_)) => (Vec::new(), 1),
            ("self", Some(here)) => (here.to_vec(), 1),
            ("super", Some(here)) => {
                let n = words.iter().take_while(|w| **w == "super").count();
                (here.get(..here.len().checked_sub(n)?)?.to_vec(), n)
            }
            (name, None) if self.m.layout.name.as_deref() == Some(name) => (Vec::new(), 1),
            (name, Some(here))
                if from.len() > here.len()
                    && from.starts_with(here)
                    && from[here.len()] == name =>
            {
                (here.to_vec(), 0)
            }
            (name, _) if self.imported && from.last().is_some_and(|l| l == name) => {
                (from[..from.len() - 1].to_vec(), 0)
            }
            _ => return None,
        };
        let map = (0..segs.len())
            .map(|j| j.checked_sub(skip).map(|i| base.len() + i))
            .collect();
        let mut path = base;
        path.extend(words[skip..].iter().map(|w| (*w).to_owned()));
        Some((path, map))
    }

    /// Checks the path `segs`, whose own segments start at `own` (those
    /// before belong to enclosing `use` lists).
    fn check(&mut self, segs: &[Seg<'s>], own: usize, item: Option<Item<'_>>, plain: bool) {
        let Some((path, map)) = self.resolve(segs) else {
            return;
        };
        let (from, to) = (&self.m.from, &self.m.to);
        if item.is_some()
            && plain
            && path == *from
            && segs.last().is_some_and(|s| s.text == from[from.len() - 1])
        {
            self.imported = true;
        }
        if !path.starts_with(from) {
            self.moved_super(segs, &path, &map, own);
            return;
        }
        // The segment where the module's path ends; the name itself or a
        // `self`/`super` that stays right where it is.
        let Some(k) = map.iter().position(|i| *i == Some(from.len() - 1)) else {
            return;
        };
        if k < own {
            return;
        }
        if !self.moved
            && self
                .here
                .as_ref()
                .is_none_or(|h| !h.starts_with(&to[..to.len() - 1]))
        {
            self.found.from_outside = true;
        }
        let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if segs[0].text == from[from.len() - 1]
            && map[0] == Some(from.len() - 1)
            && !self.is_child(segs)
        {
            // A name the file imported: it follows the import's new name.
            if from.last() != to.last() {
                self.push(segs[0].start, segs[0].end, to[to.len() - 1].clone());
            }
            return;
        }
        if let Some(j) = map.iter().position(|i| *i == Some(common)) {
            if j >= own && j <= k && common < to.len() {
                self.push(segs[j].start, segs[k].end, to[common..].join("::"));
                return;
            }
        }
        let word = match self.here {
            Some(_) => "crate".to_owned(),
            None => self.m.layout.name.clone().unwrap_or_default(),
        };
        let whole = format!("{word}::{}", to.join("::"));
        match item {
            Some(item) if own > 0 => self.split(item, segs[k].end, &whole),
            _ => self.push(segs[0].start, segs[k].end, whole),
        }
    }

    fn is_child(&self, segs: &[Seg<'_>]) -> bool {
        let from = &self.m.from;
        self.here.as_ref().is_some_and(|h| {
            from.len() > h.len() && from.starts_with(h) && from[h.len()] == segs[0].text
        })
    }

    /// In the moved module's own file, `super::` stops meaning the old
    /// parent: such a path is written from `crate::`.
    fn moved_super(
        &mut self,
        segs: &[Seg<'_>],
        path: &[String],
        map: &[Option<usize>],
        own: usize,
    ) {
        let n = segs.iter().take_while(|s| s.text == "super").count();
        if !self.moved
            || n == 0
            || own > 0
            || self.m.from[..self.m.from.len() - 1] == self.m.to[..self.m.to.len() - 1]
        {
            return;
        }
        let base = map.get(n).copied().flatten().unwrap_or(path.len());
        let mut word = "crate".to_owned();
        for name in &path[..base] {
            word.push_str("::");
            word.push_str(name);
        }
        self.push(segs[0].start, segs[n - 1].end, word);
    }

    /// Takes `item` out of its `use` list and declares `whole` (and the
    /// rest of the item after `end`) on a line of its own.
    fn split(&mut self, item: Item<'_>, end: usize, whole: &str) {
        let rest = &self.source[end..item.node.end_byte()];
        let decl = item.decl;
        let vis = decl
            .child(0)
            .filter(|c| c.kind() == "visibility_modifier")
            .map(|v| format!("{} ", &self.source[v.byte_range()]))
            .unwrap_or_default();
        let line = self.source[..decl.start_byte()]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let indent: String = self.source[line..decl.start_byte()]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect();
        let declared = format!("{vis}use {whole}{rest};");
        let (next, prev) = (item.node.next_sibling(), item.node.prev_sibling());
        if next.is_some_and(|n| n.kind() == ",") {
            let after = next
                .and_then(|n| n.next_sibling())
                .map_or(item.node.end_byte(), |n| n.start_byte());
            self.push(item.node.start_byte(), after, String::new());
        } else if prev.is_some_and(|p| p.kind() == ",") {
            let start = prev.map_or(item.node.start_byte(), |p| p.start_byte());
            self.push(start, item.node.end_byte(), String::new());
        } else if item.node.parent().and_then(|l| l.parent())
            == Some(decl.child_by_field_name("argument").unwrap_or(decl))
        {
            // The only item of the declaration's list: the declaration goes.
            self.push(decl.start_byte(), decl.end_byte(), declared);
            return;
        } else {
            self.push(item.node.start_byte(), item.node.end_byte(), String::new());
        }
        self.push(
            decl.end_byte(),
            decl.end_byte(),
            format!("\n{indent}{declared}"),
        );
    }

    fn push(&mut self, start: usize, end: usize, text: String) {
        self.found.edits.push((start, end, text));
    }
}
