//! Clipboard mode through the request door, with the text given in the
//! request (the system clipboard itself is tested under Xvfb by
//! scripts/test-clipboard.sh): what `clipboard-send` writes, what
//! `clipboard-receive` finds, applies as one step, and refuses.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{Engine, EngineConfig, Request};
use serde_json::{json, Value};

struct Env {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    engine: Engine,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/main.rs"),
        "use std::io;\n\nfn main() {\n    println!(\"hi\");\n}\n\nfn other() {}\n",
    )
    .unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(root.clone()),
        radium_home: Some(dir.path().join("home")),
        ..EngineConfig::default()
    })
    .unwrap();
    Env {
        _dir: dir,
        root,
        engine,
    }
}

impl Env {
    fn call(&self, command: &str, args: Value, tag: Option<&str>) -> Value {
        let mut request = Request::new(command, args);
        request.tag = tag.map(str::to_owned);
        self.engine.handle(&request).to_json()
    }
    fn read(&self, file: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(file)).ok()
    }
}

#[test]
fn send_prints_a_fenced_block_with_language_path_lines_and_prompt() {
    let env = env();
    let out = env.call(
        "clipboard-send",
        json!({"path": "src/main.rs", "start_line": 3, "end_line": 5, "context_lines": 1,
               "prompt": "Make it greet the user", "print": true}),
        None,
    );
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["data"]["copied"], false);
    assert_eq!(out["data"]["language"], "rust");
    let text = out["data"]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Make it greet the user\n\n`src/main.rs`, lines 3-5:\n\n```rust:src/main.rs lines=3-5\nfn main() {\n    println!(\"hi\");\n}\n```\n"),
        "{text}"
    );
    assert!(
        text.contains("Around it (lines 2-6, for context only)"),
        "{text}"
    );
    // A text given with the path as a label (an editor's unsaved buffer) may
    // not be the file on disk: its range is not marked for the answer.
    let label = env.call(
        "clipboard-send",
        json!({"path": "src/main.rs", "text": "a\nb\nc\n", "start_line": 2, "end_line": 2, "print": true}),
        None,
    );
    assert!(
        label["data"]["text"]
            .as_str()
            .unwrap()
            .contains("```rust:src/main.rs\nb\n```"),
        "{label}"
    );
    // What send writes, receive and extract read back: the same path.
    let back = env.call("clipboard-receive", json!({"text": text}), None);
    assert_eq!(back["data"]["blocks"][0]["path"], "src/main.rs", "{back}");
    assert_eq!(back["data"]["blocks"][1]["status"], "no path", "{back}");
}

#[test]
fn receive_lists_blocks_with_diffs_and_apply_is_one_undoable_step() {
    let env = env();
    let answer = "Here you go:\n\n```rust:src/main.rs lines=3-5\nfn main() {\n    println!(\"hello\");\n}\n```\n\nAnd a new helper:\n\n```python title=\"tools/gen.py\"\nprint('gen')\n```\n\nRun it with:\n\n```sh\npython tools/gen.py\n```\n";
    let listed = env.call("clipboard-receive", json!({"text": answer}), None);
    assert_eq!(listed["ok"], true, "{listed}");
    let blocks = listed["data"]["blocks"].as_array().unwrap();
    let statuses: Vec<&str> = blocks
        .iter()
        .map(|b| b["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["changed", "new", "no path"]);
    assert_eq!(blocks[1]["language"], "python");
    assert_eq!(blocks[1]["content"], "print('gen')\n");
    assert!(
        blocks[0]["diff"]
            .as_str()
            .unwrap()
            .contains("+    println!(\"hello\");"),
        "{}",
        blocks[0]["diff"]
    );
    assert_eq!(listed["data"]["applied"], false);
    assert!(env.read("tools/gen.py").is_none(), "listing writes nothing");

    let applied = env.call(
        "clipboard-receive",
        json!({"text": answer, "apply": true}),
        None,
    );
    assert_eq!(applied["ok"], true, "{applied}");
    assert_eq!(applied["data"]["applied"], true);
    assert_eq!(applied["data"]["files"].as_array().unwrap().len(), 2);
    assert_eq!(env.read("tools/gen.py").as_deref(), Some("print('gen')\n"));
    let tag = applied["tag"].as_str().unwrap().to_owned();
    let undo = env.call("undo", Value::Null, Some(&tag));
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(undo["data"]["undone"]["files"].as_array().unwrap().len(), 2);
    assert!(
        env.read("tools/gen.py").is_none(),
        "the new file is gone again"
    );
    assert!(env.read("src/main.rs").unwrap().contains("\"hi\""));
}

#[test]
fn a_block_answering_a_range_replaces_it_and_a_snippet_needs_whole_file() {
    let env = env();
    let before = env.read("src/main.rs").unwrap();
    // A range: only those lines change, the rest of the file stays.
    let answer =
        "```rust:src/main.rs lines=4\n    println!(\"hello\");\n    println!(\"again\");\n```\n";
    let listed = env.call("clipboard-receive", json!({"text": answer}), None);
    let block = &listed["data"]["blocks"][0];
    assert_eq!(block["status"], "changed", "{listed}");
    assert_eq!(block["range"], json!({"start_line": 4, "end_line": 4}));
    assert_eq!(
        block["content"],
        "    println!(\"hello\");\n    println!(\"again\");\n"
    );
    let expected = "use std::io;\n\nfn main() {\n    println!(\"hello\");\n    println!(\"again\");\n}\n\nfn other() {}\n";
    assert_eq!(block["file_text"], expected);
    let applied = env.call(
        "clipboard-receive",
        json!({"text": answer, "apply": true}),
        None,
    );
    assert_eq!(applied["ok"], true, "{applied}");
    assert_eq!(env.read("src/main.rs").as_deref(), Some(expected));
    let undo = env.call("undo", Value::Null, applied["tag"].as_str());
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(env.read("src/main.rs").unwrap(), before);

    // A file without a last newline keeps that when its last line is replaced.
    std::fs::write(env.root.join("src/x.txt"), "a\nb").unwrap();
    let out = env.call(
        "clipboard-receive",
        json!({"text": "```text:src/x.txt lines=2\nB\n```\n", "apply": true}),
        None,
    );
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(env.read("src/x.txt").as_deref(), Some("a\nB"));

    // A snippet named as the whole file would delete most of it: refused.
    let snippet = "```rust:src/main.rs\nfn main() {}\n```\n";
    let listed = env.call("clipboard-receive", json!({"text": snippet}), None);
    let block = &listed["data"]["blocks"][0];
    assert_eq!(block["status"], "snippet", "{listed}");
    assert!(
        block["error"]
            .as_str()
            .unwrap()
            .contains("would delete most of the file"),
        "{listed}"
    );
    let refused = env.call(
        "clipboard-receive",
        json!({"text": snippet, "apply": true}),
        None,
    );
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(refused["code"], "edit", "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("has 1 line(s) for `src/main.rs`, which has 7"),
        "{refused}"
    );
    assert_eq!(env.read("src/main.rs").unwrap(), before, "nothing written");
    // Asked for with `whole_file`: written, and one undo takes it back.
    let forced = env.call(
        "clipboard-receive",
        json!({"text": snippet, "apply": true, "whole_file": true}),
        None,
    );
    assert_eq!(forced["ok"], true, "{forced}");
    assert_eq!(forced["data"]["blocks"][0]["status"], "changed");
    assert_eq!(env.read("src/main.rs").as_deref(), Some("fn main() {}\n"));
    let undo = env.call("undo", Value::Null, forced["tag"].as_str());
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(env.read("src/main.rs").unwrap(), before);
}

#[test]
fn receive_refuses_outside_paths_duplicates_and_cut_answers_writing_nothing() {
    let env = env();
    let cases = [
        (
            "```rust:src/main.rs\nfn x() {}\n```\n```text:../escape.txt\nout\n```\n",
            "outside the project",
        ),
        (
            "```rust:src/main.rs\nfn a() {}\n```\n```rust:src/main.rs\nfn b() {}\n```\n",
            "has more than one block",
        ),
        ("```rust:src/main.rs\nfn a() {}\n", "cut short"),
        ("```text:.git/config\nx\n```\n", "`.git"),
    ];
    for (answer, expected) in cases {
        let out = env.call(
            "clipboard-receive",
            json!({"text": answer, "apply": true}),
            None,
        );
        assert_eq!(out["ok"], false, "{answer}: {out}");
        let error = out["error"].as_str().unwrap();
        assert!(
            error.contains(expected),
            "{answer}: `{error}` lacks `{expected}`"
        );
        assert!(
            env.read("src/main.rs").unwrap().contains("\"hi\""),
            "nothing written"
        );
    }
    // Listing shows the refused block with its reason instead of failing.
    let listed = env.call("clipboard-receive", json!({"text": cases[0].0}), None);
    assert_eq!(listed["data"]["blocks"][1]["status"], "refused", "{listed}");
    // No code at all: nothing applied, and said so.
    let none = env.call(
        "clipboard-receive",
        json!({"text": "just prose", "apply": true}),
        None,
    );
    assert_eq!(none["ok"], true, "{none}");
    assert_eq!(none["data"]["applied"], false);
    assert!(
        none["warnings"][0]
            .as_str()
            .unwrap()
            .contains("no code block"),
        "{none}"
    );
}

#[test]
fn bad_clipboard_arguments_are_errors_that_say_what_is_wrong() {
    let env = env();
    let cases = [
        (
            "clipboard-send",
            json!({}),
            "give `path` (a file) or `text`",
        ),
        (
            "clipboard-send",
            json!({"path": "nope.rs", "print": true}),
            "`nope.rs` does not exist",
        ),
        (
            "clipboard-send",
            json!({"path": "../x", "print": true}),
            "outside the project",
        ),
        (
            "clipboard-send",
            json!({"path": "src/main.rs", "start_line": 50, "print": true}),
            "not in the text",
        ),
        (
            "clipboard-send",
            json!({"path": "src/main.rs", "start_line": 3, "end_line": 2, "print": true}),
            "not in the text",
        ),
        (
            "clipboard-send",
            json!({"text": "x", "print": "yes"}),
            "`print` must be true or false",
        ),
        (
            "clipboard-send",
            json!({"text": "x", "context_lines": -1, "print": true}),
            "`context_lines`",
        ),
        (
            "clipboard-receive",
            json!({"text": 5}),
            "`text` must be a string",
        ),
        (
            "clipboard-receive",
            json!({"text": "x", "apply": 1}),
            "`apply` must be true or false",
        ),
        (
            "clipboard-receive",
            json!({"text": "x", "apply": true, "whole_file": "yes"}),
            "`whole_file` must be true or false",
        ),
    ];
    for (command, args, expected) in cases {
        let out = env.call(command, args.clone(), None);
        assert_eq!(out["ok"], false, "{command} {args}: {out}");
        let error = out["error"].as_str().unwrap();
        assert!(
            error.contains(expected),
            "{command} {args}: `{error}` lacks `{expected}`"
        );
    }
}
