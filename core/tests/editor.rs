//! Editor context validation, surrounding lines, apply with diff, atomic writes.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::os::unix::fs::PermissionsExt;

use radium_core::{apply_block, surrounding_lines, write_atomic, ContextLimits, EditorContext};
use serde_json::{json, Value};

fn ctx(value: Value) -> Result<EditorContext, String> {
    EditorContext::from_json(&value, &ContextLimits::default()).map_err(|e| e.to_string())
}

fn refused(value: Value) -> String {
    ctx(value).expect_err("should be refused")
}

#[test]
fn a_valid_context_passes_and_language_is_detected() {
    let ws = tempfile::tempdir().unwrap();
    let file = ws.path().join("src/main.rs");
    let c = ctx(json!({
        "file_path": file, "selection": "fn main() {}", "surrounding_lines": "use x;\n---\n",
        "workspace": ws.path(), "selection_range": {"start_line": 3, "end_line": 4}
    }))
    .unwrap();
    assert_eq!(
        c.language, "rust",
        "detected from the extension; the file need not exist"
    );
    assert_eq!(c.selection_range.unwrap().end_line, 4);
    let j = c.to_json();
    assert_eq!(j["file_path"], file.to_str().unwrap());
    assert_eq!(j["surrounding_lines"], "use x;\n---\n");
    // The editor's own language id wins.
    let c = ctx(json!({"file_path": "/x/a.rs", "language": "typescriptreact"})).unwrap();
    assert_eq!(c.language, "typescriptreact");
    // A shebang in the selection.
    let c = ctx(json!({"file_path": "/x/tool", "selection": "#!/usr/bin/env python3\nprint(1)"}))
        .unwrap();
    assert_eq!(c.language, "python");
}

#[test]
fn a_shebang_in_the_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("deploy");
    std::fs::write(&script, "#!/bin/bash\necho hi\n").unwrap();
    assert_eq!(
        ctx(json!({"file_path": script})).unwrap().language,
        "shellscript"
    );
}

#[test]
fn control_characters_are_stripped_but_text_is_kept() {
    let c = ctx(json!({"file_path": "/a/b.py", "selection": "a\u{7}b\tc\r\nd\u{1b}[0m"})).unwrap();
    assert_eq!(c.selection, "ab\tc\r\nd[0m");
}

#[test]
fn every_refusal_names_the_field_and_the_rule() {
    let cases = [
        (
            json!(3),
            "the editor context must be an object, got a number",
        ),
        (json!({}), "file_path: is required"),
        (
            json!({"file_path": "src/main.rs"}),
            "file_path: must be an absolute path, got `src/main.rs`",
        ),
        (json!({"file_path": ""}), "file_path: is empty"),
        (
            json!({"file_path": 7}),
            "file_path: must be a string, got a number",
        ),
        (
            json!({"file_path": "/a/b\u{0}c"}),
            "file_path: contains a NUL character",
        ),
        (
            json!({"file_path": "/a/b\nc"}),
            "file_path: contains control characters",
        ),
        (
            json!({"file_path": format!("/{}", "a".repeat(5000))}),
            "file_path: is 5001 bytes, over the limit of 4096 bytes",
        ),
        (
            json!({"file_path": "/a.rs", "selection": "x\u{0}y"}),
            "selection: contains a NUL character",
        ),
        (
            json!({"file_path": "/a.rs", "selection": ["x"]}),
            "selection: must be a string, got an array",
        ),
        (
            json!({"file_path": "/a.rs", "selection": "x".repeat((1 << 20) + 1)}),
            "selection: is 1048577 bytes, over the limit of 1048576 bytes",
        ),
        (
            json!({"file_path": "/a.rs", "surrounding_lines": "x".repeat((256 << 10) + 1)}),
            "surrounding_lines: is 262145 bytes, over the limit",
        ),
        (
            json!({"file_path": "/a.rs", "language": "rust lang"}),
            "language: must be a language id",
        ),
        (
            json!({"file_path": "/a.rs", "language": 1}),
            "language: must be a string",
        ),
        (
            json!({"file_path": "/a.rs", "workspace": "rel"}),
            "workspace: must be an absolute path",
        ),
        (
            json!({"file_path": "/a.rs", "workspace": "/no/such/dir"}),
            "workspace: `/no/such/dir` is not a directory",
        ),
        (
            json!({"file_path": "/a.rs", "selection_range": {"start_line": 0, "end_line": 1}}),
            "selection_range: lines are 1-based",
        ),
        (
            json!({"file_path": "/a.rs", "selection_range": {"start_line": 5, "end_line": 2}}),
            "end_line must not be before start_line",
        ),
        (
            json!({"file_path": "/a.rs", "selection_range": {"start": 1}}),
            "selection_range: must be {start_line, end_line}",
        ),
        (
            json!({"file_path": "/a.rs", "selction": "typo"}),
            "selction: unknown field; known fields: file_path, language",
        ),
    ];
    for (value, expected) in cases {
        let err = refused(value.clone());
        assert!(
            err.contains(expected),
            "{value}: got `{err}`, expected `{expected}`"
        );
        assert!(err.starts_with("invalid editor context: "), "{err}");
    }
}

#[test]
fn file_path_must_stay_inside_the_workspace_after_resolving_symlinks() {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("escape")).unwrap();

    ctx(json!({"file_path": ws.join("src/a.rs"), "workspace": ws})).unwrap();
    ctx(json!({"file_path": ws.join("new/dir/b.rs"), "workspace": ws})).unwrap();
    let err = refused(json!({"file_path": outside.join("a.rs"), "workspace": ws}));
    assert!(
        err.contains("file_path: `") && err.contains("is outside the workspace"),
        "{err}"
    );
    let err = refused(json!({"file_path": ws.join("escape/a.rs"), "workspace": ws}));
    assert!(
        err.contains("is outside the workspace"),
        "symlink escape: {err}"
    );
    let err = refused(json!({"file_path": ws.join("src/../../outside/a.rs"), "workspace": ws}));
    assert!(
        err.contains("is outside the workspace"),
        "dot-dot escape: {err}"
    );
    let err = refused(json!({"file_path": ws.join("missing/../../outside/a.rs"), "workspace": ws}));
    assert!(
        err.contains("is outside the workspace"),
        "dot-dot through a missing dir: {err}"
    );
    // A workspace given through a symlink works.
    let link = root.path().join("ws-link");
    std::os::unix::fs::symlink(&ws, &link).unwrap();
    ctx(json!({"file_path": ws.join("src/a.rs"), "workspace": link})).unwrap();
}

#[test]
fn contexts_come_from_the_environment_variables() {
    let vars = [
        ("RADIUM_EDITOR_FILE_PATH", "/p/x.go"),
        ("RADIUM_EDITOR_SELECTION", "package main"),
        ("RADIUM_EDITOR_SURROUNDING_LINES", "a\n---\nb"),
    ];
    let lookup = |k: &str| {
        vars.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    };
    let c = EditorContext::from_env(lookup, &ContextLimits::default()).unwrap();
    assert_eq!(c.language, "go");
    assert_eq!(c.selection, "package main");
    let env = c.env_vars();
    assert!(env.contains(&("RADIUM_EDITOR_FILE_PATH", "/p/x.go".to_owned())));
    assert!(env.contains(&("RADIUM_EDITOR_LANGUAGE", "go".to_owned())));
    let err = EditorContext::from_env(|_| None, &ContextLimits::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("file_path: is required (set RADIUM_EDITOR_FILE_PATH"),
        "{err}"
    );
}

#[test]
fn surrounding_lines_from_a_buffer() {
    let buffer = "l1\nl2\nl3\nl4\nl5\nl6\nl7\n";
    assert_eq!(surrounding_lines(buffer, 4, 4, 2), "l2\nl3\n---\nl5\nl6");
    assert_eq!(surrounding_lines(buffer, 1, 2, 3), "\n---\nl3\nl4\nl5");
    assert_eq!(surrounding_lines(buffer, 6, 7, 3), "l3\nl4\nl5\n---\n");
    assert_eq!(surrounding_lines(buffer, 3, 3, 0), "\n---\n");
    assert_eq!(surrounding_lines("", 1, 1, 3), "\n---\n");
}

#[test]
fn apply_replaces_a_range_or_the_whole_text_with_a_diff() {
    let original = "fn a() {}\nfn b() {}\nfn c() {}\n";
    let p = apply_block(original, "fn b() { todo!() }\n", Some((2, 2)), "src/lib.rs").unwrap();
    assert_eq!(p.new_text, "fn a() {}\nfn b() { todo!() }\nfn c() {}\n");
    assert!(p.changed);
    assert!(
        p.diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@"),
        "{}",
        p.diff
    );
    assert!(
        p.diff.contains("-fn b() {}\n+fn b() { todo!() }\n"),
        "{}",
        p.diff
    );

    // A block without a final newline still keeps the next line separate.
    let p = apply_block(original, "fn b2() {}", Some((2, 2)), "x").unwrap();
    assert_eq!(p.new_text, "fn a() {}\nfn b2() {}\nfn c() {}\n");
    // Several lines replaced by one.
    let p = apply_block(original, "fn all() {}\n", Some((1, 3)), "x").unwrap();
    assert_eq!(p.new_text, "fn all() {}\n");
    // Appending after the last line.
    let p = apply_block(original, "fn d() {}\n", Some((4, 4)), "x").unwrap();
    assert_eq!(p.new_text, "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\n");
    // The whole text.
    let p = apply_block(original, "new\n", None, "x").unwrap();
    assert_eq!(p.new_text, "new\n");
    // No change, no diff.
    let p = apply_block(original, original, None, "x").unwrap();
    assert!(!p.changed);
    assert_eq!(p.diff, "");
    // CRLF files stay CRLF.
    let p = apply_block("a\r\nb\r\n", "B\n", Some((2, 2)), "x").unwrap();
    assert_eq!(p.new_text, "a\r\nB\r\n");
    // Bad ranges are errors.
    let err = apply_block(original, "x", Some((0, 1)), "x")
        .unwrap_err()
        .to_string();
    assert!(err.contains("lines are 1-based"), "{err}");
    let err = apply_block(original, "x", Some((3, 2)), "x")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("end_line must not be before start_line"),
        "{err}"
    );
    let err = apply_block(original, "x", Some((9, 9)), "x")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("start_line 9 is past the end of the text (3 lines)"),
        "{err}"
    );
}

#[test]
fn atomic_writes_keep_permissions_and_leave_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.sh");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o750)).unwrap();
    write_atomic(&file, "#!/bin/sh\nnew\n").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "#!/bin/sh\nnew\n");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o750
    );
    let new_file = dir.path().join("fresh.txt");
    write_atomic(&new_file, "hello").unwrap();
    assert_eq!(std::fs::read_to_string(&new_file).unwrap(), "hello");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".radium-"))
        .collect();
    assert!(leftovers.is_empty());
    let err = write_atomic(&dir.path().join("no/such/dir/x"), "x").unwrap_err();
    assert_eq!(err.code(), "io");
}

#[test]
fn atomic_writes_clear_old_temporary_files_of_killed_writers_only() {
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str, age_secs: u64| {
        let path = dir.path().join(name);
        let file = std::fs::File::create(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(age_secs))
            .unwrap();
        path
    };
    let stale = make(".radium-killed.tmp", 3600);
    let in_flight = make(".radium-writing.tmp", 1);
    let not_ours = make(".other-old.tmp", 3600);
    let also_not_ours = make(".radium-notes.txt", 3600);
    write_atomic(&dir.path().join("a.txt"), "a").unwrap();
    assert!(!stale.exists(), "an hour-old temporary file is removed");
    assert!(
        in_flight.exists(),
        "a fresh one may belong to a write in flight"
    );
    assert!(
        not_ours.exists() && also_not_ours.exists(),
        "other files are left alone"
    );
}
