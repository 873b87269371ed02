//! The layout of `core/src` holds: each part (a folder) uses only the parts
//! `docs/architecture.md` allows, every part says what it is at the top of
//! its `mod.rs`, and no hand-written source file (Rust, Lua, JavaScript,
//! TypeScript) grows past the size limit.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each part and the parts it may use. `support` and the shared error type
/// (`error.rs`) are the base every part may use; `protocol` is the top.
const ALLOWED: &[(&str, &[&str])] = &[
    ("support", &[]),
    ("hooks", &["support"]),
    ("editor", &["hooks", "support"]),
    ("edit", &["hooks", "support"]),
    ("agents", &["hooks", "editor", "support"]),
    ("extensions", &["hooks", "support"]),
    ("clipboard", &["edit", "editor", "support"]),
    ("code", &["edit", "support"]),
    (
        "sessions",
        &["agents", "edit", "editor", "hooks", "support"],
    ),
    (
        "protocol",
        &[
            "hooks",
            "editor",
            "edit",
            "agents",
            "extensions",
            "sessions",
            "code",
            "clipboard",
            "support",
        ],
    ),
];

/// The most lines a hand-written source file may have.
const MAX_LINES: usize = 500;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_ending(dir, &["rs"], out);
}

/// The files below `dir` whose extension is one of `extensions`, skipping
/// installed packages and build output.
fn files_ending(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if !["node_modules", "target", "out", "dist", ".vscode-test"].contains(&name) {
                files_ending(&path, extensions, out);
            }
        } else if path
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| extensions.contains(&x))
        {
            out.push(path);
        }
    }
}

/// The code of a Rust file without its comments (`//` to the end of a line),
/// so doc links to other parts do not count as uses.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segment after every `crate::` in `code` (`crate::hooks::X`
/// gives `hooks`; `crate::{a, b}` gives `a` and `b`).
fn crate_uses(code: &str) -> BTreeSet<String> {
    let mut uses = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end].split(',').collect()
        } else {
            vec![rest]
        };
        for name in names {
            let name: String = name
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                uses.insert(name);
            }
        }
    }
    uses
}

/// Every forbidden use in `core/src`, as `file: part -> used`.
fn violations(src: &Path) -> Vec<String> {
    let parts: BTreeSet<&str> = ALLOWED.iter().map(|(part, _)| *part).collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap_or(&file);
        let Some(part) = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .filter(|first| parts.contains(first))
        else {
            continue;
        };
        let allowed = ALLOWED
            .iter()
            .find(|(name, _)| *name == part)
            .map(|(_, allowed)| *allowed)
            .unwrap_or_default();
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for used in crate_uses(&code_of(&text)) {
            let ok = used == part
                || used == "error"
                || (parts.contains(used.as_str()) && allowed.contains(&used.as_str()))
                // The protocol layer may use the crate root (VERSION, re-exports).
                || part == "protocol";
            if !ok {
                let why = if parts.contains(used.as_str()) {
                    format!("`{part}` may not use `{used}`")
                } else {
                    format!("`{part}` uses the crate root's `{used}`: name the part it lives in")
                };
                found.push(format!("{}: {why}", relative.display()));
            }
        }
    }
    found
}

#[test]
fn parts_use_only_the_parts_they_may() {
    let found = violations(&root().join("src"));
    assert!(
        found.is_empty(),
        "forbidden dependencies between parts (see docs/architecture.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_shared_error_type_uses_no_part() {
    let text = std::fs::read_to_string(root().join("src/error.rs")).expect("src/error.rs");
    let uses = crate_uses(&code_of(&text));
    let parts: Vec<&str> = ALLOWED
        .iter()
        .map(|(part, _)| *part)
        .filter(|part| *part != "support")
        .collect();
    let bad: Vec<&String> = uses
        .iter()
        .filter(|u| parts.contains(&u.as_str()))
        .collect();
    assert!(bad.is_empty(), "error.rs uses parts: {bad:?}");
}

#[test]
fn the_check_sees_a_forbidden_use() {
    // A part folder written on the fly: `hooks` reaching up to `protocol`.
    let dir = tempfile::tempdir().expect("temporary folder");
    let hooks = dir.path().join("hooks");
    std::fs::create_dir_all(&hooks).expect("folder");
    std::fs::write(
        hooks.join("mod.rs"),
        "//! Hooks.\n/// [`crate::protocol::Engine`] in a comment is fine.\nuse crate::protocol::Engine;\nuse crate::{support::x, editor};\nfn f() -> crate::HookType { todo!() }\n",
    )
    .expect("write");
    let found = violations(dir.path());
    assert_eq!(
        found,
        [
            "hooks/mod.rs: `hooks` uses the crate root's `HookType`: name the part it lives in",
            "hooks/mod.rs: `hooks` may not use `editor`",
            "hooks/mod.rs: `hooks` may not use `protocol`",
        ]
    );
}

#[test]
fn every_part_says_what_it_is() {
    for (part, _) in ALLOWED {
        let path = root().join("src").join(part).join("mod.rs");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            text.starts_with("//! "),
            "{} must start with a few `//!` lines saying what the part is",
            path.display()
        );
    }
}

#[test]
fn no_hand_written_source_file_is_oversized() {
    let workspace = root()
        .parent()
        .expect("core/ sits in the workspace")
        .to_path_buf();
    let mut files = Vec::new();
    for dir in [
        "core/src",
        "core/tests",
        "core/benches",
        "core/examples",
        "ffi/src",
        "fuzz/src",
        "fuzz/fuzz_targets",
    ] {
        rust_files(&workspace.join(dir), &mut files);
    }
    // Every door's hand-written sources and tests, in every language.
    files_ending(
        &workspace.join("bindings"),
        &["rs", "lua", "js", "ts"],
        &mut files,
    );
    // Generated by napi from the Rust sources.
    let generated = [
        workspace.join("bindings/node/index.js"),
        workspace.join("bindings/node/index.d.ts"),
    ];
    files.retain(|f| !generated.contains(f));
    let over: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(file).ok()?.lines().count();
            let shown = file.strip_prefix(&workspace).unwrap_or(file);
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", shown.display()))
        })
        .collect();
    assert!(
        over.is_empty(),
        "split these by concept (at most {MAX_LINES} lines a file):\n{}",
        over.join("\n")
    );
}
