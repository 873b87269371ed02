//! The fallback without a language server: a name found as code with
//! tree-sitter (an identifier node, never the inside of a comment or a
//! string), not type-aware; and plain words for files with no grammar.

use std::path::Path;

use tree_sitter::{Language, Node, Parser, Tree};

use crate::code::servers::extension;

/// A grammar radium carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    /// Python.
    Python,
    /// JavaScript (with JSX).
    JavaScript,
    /// TypeScript.
    TypeScript,
    /// TypeScript with JSX.
    Tsx,
    /// Rust.
    Rust,
    /// Lua.
    Lua,
}

impl Grammar {
    /// The grammar of `path`, by its extension.
    pub fn of(path: &Path) -> Option<Grammar> {
        Some(match extension(path).as_str() {
            "py" | "pyi" => Grammar::Python,
            "js" | "jsx" | "mjs" | "cjs" => Grammar::JavaScript,
            "ts" | "mts" | "cts" => Grammar::TypeScript,
            "tsx" => Grammar::Tsx,
            "rs" => Grammar::Rust,
            "lua" => Grammar::Lua,
            _ => return None,
        })
    }

    fn language(self) -> Language {
        match self {
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::Rust => tree_sitter_rust::LANGUAGE.into(),
            Grammar::Lua => tree_sitter_lua::LANGUAGE.into(),
        }
    }

    /// Parses `text` (`None` if the parser gives up).
    pub fn parse(self, text: &str) -> Option<Tree> {
        let mut parser = Parser::new();
        parser.set_language(&self.language()).ok()?;
        parser.parse(text, None)
    }
}

/// One place a name occurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    /// Its first byte.
    pub start: usize,
    /// The byte after it.
    pub end: usize,
    /// Whether the syntax says it is where the name is defined (a
    /// declaration, an assignment's target, a parameter).
    pub definition: bool,
    /// The byte range of the function the name is bound in here (a
    /// parameter or a local of it, seen from this place); `None`: bound
    /// outside every function (the module's, or another file's, name).
    pub scope: Option<(usize, usize)>,
}

/// Node kinds that open a scope of their own: functions, methods, lambdas
/// and closures of the five grammars.
const FUNCTION_KINDS: &[&str] = &[
    "function_definition",
    "lambda",
    "function_declaration",
    "function_expression",
    "function",
    "generator_function_declaration",
    "generator_function",
    "arrow_function",
    "method_definition",
    "function_item",
    "closure_expression",
];

/// The functions around `node`, innermost first.
fn functions_around(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut at = node.parent();
    while let Some(n) = at {
        if FUNCTION_KINDS.contains(&n.kind()) {
            out.push(n);
        }
        at = n.parent();
    }
    out
}

/// Gives each occurrence the function its name is bound in, where the
/// grammar makes that simple: a function binds the name when one of its
/// own definitions (a parameter, an assignment, a `let`/`local`/`const`)
/// is of it and it does not say `global`/`nonlocal` of it. A function's
/// own name is bound in the scope around it.
fn set_scopes(nodes: &[Node<'_>], found: &mut [Occurrence]) {
    // The byte ranges of the functions each occurrence is in, innermost first.
    let around: Vec<Vec<(usize, usize)>> = nodes
        .iter()
        .map(|n| {
            scopes_of(*n)
                .iter()
                .map(|f| (f.start_byte(), f.end_byte()))
                .collect()
        })
        .collect();
    let mut binding: Vec<(usize, usize)> = Vec::new();
    let mut escaped: Vec<(usize, usize)> = Vec::new();
    for ((node, o), around) in nodes.iter().zip(found.iter()).zip(&around) {
        let parent = node.parent();
        if parent.is_some_and(|p| matches!(p.kind(), "global_statement" | "nonlocal_statement")) {
            escaped.extend(around.first());
        } else if o.definition {
            binding.extend(around.first());
        }
    }
    binding.retain(|b| !escaped.contains(b));
    for (o, around) in found.iter_mut().zip(around) {
        o.scope = around.into_iter().find(|r| binding.contains(r));
    }
}

/// The functions whose scope `node` is in, innermost first: those around
/// it, but not the one it names (a function's name is bound outside it).
fn scopes_of(node: Node<'_>) -> Vec<Node<'_>> {
    let mut around = functions_around(node);
    if around
        .first()
        .is_some_and(|f| f.child_by_field_name("name") == Some(node))
    {
        around.remove(0);
    }
    around
}

/// Node kinds whose identifier children are definitions.
const DEFINING_PARENTS: &[&str] = &[
    "parameters",
    "formal_parameters",
    "lambda_parameters",
    "typed_parameter",
    "default_parameter",
    "typed_default_parameter",
    "required_parameter",
    "optional_parameter",
    "parameter",
    "variable_list",
    "attribute_name_list",
    "for_in_clause",
    "aliased_import",
];

/// Whether the identifier `node` is where its name is defined.
fn defines(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    let is = |field: &str| parent.child_by_field_name(field) == Some(node);
    let kind = parent.kind();
    if DEFINING_PARENTS.contains(&kind) {
        // A Lua `variable_list` defines only in `local x = ...`.
        return kind != "variable_list"
            || parent
                .parent()
                .and_then(|p| p.parent())
                .is_some_and(|p| p.kind() == "variable_declaration");
    }
    if kind.ends_with("assignment") || kind == "assignment_statement" {
        return is("left");
    }
    is("name") || is("pattern") || kind.ends_with("declarator") && !is("value")
}

/// Every identifier of `tree` whose text is `name`, each with its scope.
pub fn identifiers(tree: &Tree, text: &str, name: &str) -> Vec<Occurrence> {
    let mut found = Vec::new();
    let mut nodes = Vec::new();
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let range = node.byte_range();
        if node.child_count() == 0
            && node.kind().ends_with("identifier")
            && text.get(range.clone()) == Some(name)
        {
            found.push(Occurrence {
                start: range.start,
                end: range.end,
                definition: defines(node),
                scope: None,
            });
            nodes.push(node);
        }
        // Depth first, skipping subtrees that cannot hold the name.
        let descend = range.len() >= name.len() && cursor.goto_first_child();
        if descend {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                set_scopes(&nodes, &mut found);
                return found;
            }
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every whole-word occurrence of `name` in `text` (the plain-text
/// fallback: comments and strings included).
pub fn words(text: &str, name: &str) -> Vec<Occurrence> {
    if name.is_empty() {
        return Vec::new();
    }
    text.match_indices(name)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
        .map(|(at, _)| Occurrence {
            start: at,
            end: at + name.len(),
            definition: false,
            scope: None,
        })
        .collect()
}

/// The occurrences of `name` in the file at `path` with `text`: by its
/// grammar when radium has one (true), else as words (false).
pub fn occurrences(path: &Path, text: &str, name: &str) -> (Vec<Occurrence>, bool) {
    if !text.contains(name) {
        return (Vec::new(), Grammar::of(path).is_some());
    }
    match Grammar::of(path).and_then(|g| g.parse(text)) {
        Some(tree) => (identifiers(&tree, text, name), true),
        None => (words(text, name), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_comments_and_strings_are_not_code() {
        let text = "# total is summed\ntotal = 1\nprint(\"total\", total)\ndef f(total):\n    return total\n";
        let (found, syntax) = occurrences(Path::new("a.py"), text, "total");
        assert!(syntax);
        let lines: Vec<(usize, bool)> = found
            .iter()
            .map(|o| (text[..o.start].matches('\n').count() + 1, o.definition))
            .collect();
        assert_eq!(lines, [(2, true), (3, false), (4, true), (5, false)]);
        assert_eq!(words(text, "total").len(), 6);
        assert_eq!(words("subtotal total_x total", "total").len(), 1);
    }

    #[test]
    fn definitions_in_each_grammar() {
        for (file, text) in [
            (
                "a.ts",
                "const count = 1;\nfunction g(count: number) { return count; }\n",
            ),
            ("a.js", "let count = 1; count++;"),
            ("a.rs", "fn g() { let count = 1; count + 1; }"),
            ("a.lua", "local count = 1\nprint(count)\n"),
        ] {
            let (found, _) = occurrences(Path::new(file), text, "count");
            assert!(found.len() >= 2, "{file}: {found:?}");
            assert!(found[0].definition, "{file}: {found:?}");
            assert!(
                !found.last().expect("found").definition,
                "{file}: {found:?}"
            );
        }
    }

    /// The lines of the occurrences of `name` whose scope is the one of
    /// the occurrence on line `line`.
    fn same_scope(file: &str, text: &str, name: &str, line: usize) -> Vec<usize> {
        let (found, _) = occurrences(Path::new(file), text, name);
        let line_of = |o: &Occurrence| text[..o.start].matches('\n').count() + 1;
        let scope = found
            .iter()
            .find(|o| line_of(o) == line)
            .expect("on the line")
            .scope;
        found
            .iter()
            .filter(|o| o.scope == scope)
            .map(line_of)
            .collect()
    }

    #[test]
    fn a_name_bound_in_a_function_is_kept_to_it() {
        let py = "total = 1\ndef f(total):\n    return total + 1\ndef g():\n    total = 2\n    return total\ndef h():\n    global total\n    total = 3\ndef total_user():\n    return total\ndef total():\n    pass\n";
        assert_eq!(same_scope("a.py", py, "total", 1), [1, 8, 9, 11, 12]);
        assert_eq!(same_scope("a.py", py, "total", 3), [2, 3]);
        assert_eq!(same_scope("a.py", py, "total", 6), [5, 6]);
        let ts = "const count = 1;\nfunction inc(count: number) {\n  return count + 1;\n}\nconst show = () => count;\n";
        assert_eq!(same_scope("a.ts", ts, "count", 1), [1, 5]);
        assert_eq!(same_scope("a.ts", ts, "count", 3), [2, 3]);
        let rs = "fn a() -> u8 { let n = 1; n }\nfn b(n: u8) -> u8 {\n    n + 1\n}\n";
        assert_eq!(same_scope("a.rs", rs, "n", 3), [2, 3]);
        assert_eq!(same_scope("a.rs", rs, "n", 1), [1, 1]);
        let lua = "local n = 1\nlocal function f(n)\n  return n\nend\nprint(n)\n";
        assert_eq!(same_scope("a.lua", lua, "n", 5), [1, 5]);
        assert_eq!(same_scope("a.lua", lua, "n", 3), [2, 3]);
    }
}
