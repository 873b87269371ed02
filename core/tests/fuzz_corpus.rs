//! The fuzz regression corpus, replayed on stable: every file of
//! `tests/fuzz-corpus/<target>/` goes through the same checks as fuzz target
//! `<target>` (`fuzz/src/lib.rs`, included here), and so do the inputs that
//! once crashed but are too big to commit, generated below. See
//! `docs/fuzzing.md`.

#![allow(clippy::unwrap_used, clippy::pedantic)]

#[path = "common/deep.rs"]
mod deep;
#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod targets;
use deep::{nested, on_stack};

use std::path::{Path, PathBuf};

/// A committed corpus file stays small: big inputs are generated in a test.
const MAX_CORPUS_FILE: u64 = 64 << 10;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fuzz-corpus")
}

/// `"<target>/<file>: <panic message>"` when target `name` panics on `data`.
fn replay(name: &str, file: &str, data: &[u8]) -> Option<String> {
    std::panic::catch_unwind(|| targets::run(name, data))
        .err()
        .map(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            format!("{name}/{file}: {message}")
        })
}

#[test]
fn every_corpus_file_replays_through_its_target_without_a_panic() {
    let mut folders: Vec<String> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut expected: Vec<String> = targets::TARGETS.iter().map(|t| (*t).to_owned()).collect();
    expected.sort();
    assert_eq!(folders, expected, "one folder per fuzz target");

    let mut failures = Vec::new();
    for name in targets::TARGETS {
        let mut files: Vec<_> = std::fs::read_dir(corpus_dir().join(name))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        assert!(files.len() >= 5, "{name}: seed inputs are missing");
        for path in files {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let size = std::fs::metadata(&path).unwrap().len();
            assert!(
                size <= MAX_CORPUS_FILE,
                "{name}/{file}: {size} bytes; generate big inputs in this test instead"
            );
            let data = std::fs::read(&path).unwrap();
            failures.extend(replay(name, &file, &data));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `payload` as one daemon frame (4-byte big-endian length first).
fn frame(payload: &str) -> Vec<u8> {
    let mut bytes = u32::try_from(payload.len()).unwrap().to_be_bytes().to_vec();
    bytes.extend_from_slice(payload.as_bytes());
    bytes
}

#[test]
fn json_nested_100_000_levels_deep_replays_on_a_small_stack() {
    let cases = [
        // The whole request.
        nested(100_000, "[", "]", ""),
        nested(100_000, "{\"a\":", "}", "1"),
        // Where a string belongs: cwd, tag, id.
        format!(
            r#"{{"command":"ping","cwd":{}}}"#,
            nested(100_000, "[", "]", "")
        ),
        format!(
            r#"{{"command":"ping","tag":{}}}"#,
            nested(100_000, "[", "]", "1")
        ),
        format!(
            r#"{{"command":"ping","id":{}}}"#,
            nested(100_000, "{\"a\":", "}", "1")
        ),
    ];
    // 256 KiB, as a C host's worker might have.
    for text in cases {
        on_stack(256, move || {
            // The refusal is an `Err` of the text door, never an answer.
            let answer = targets::engine().handle_json_text(&text);
            assert!(answer.is_err(), "deep JSON is refused");
            targets::request(text.as_bytes());
            targets::daemon_frame(&frame(&text));
        });
    }
}

#[test]
fn a_u64_max_time_limit_replays_past_the_clock_calibration() {
    let text = std::fs::read(
        corpus_dir()
            .join("request")
            .join("hooks-execute-timeout-u64-max.json"),
    )
    .unwrap();
    assert!(String::from_utf8_lossy(&text).contains("18446744073709551615"));
    // The fast clock calibrates itself after 256 chains: cross that point.
    for _ in 0..300 {
        targets::request(&text);
    }
}

#[test]
fn hooks_toml_nested_100_000_levels_deep_is_refused_by_the_parser() {
    let head = "[[hooks]]\nname = \"a\"\ntype = \"before_tool\"\n";
    let keys = vec!["a"; 100_000].join(".");
    let cases = [
        format!(
            "{head}[hooks.config]\nx = {}\n",
            nested(100_000, "[", "]", "")
        ),
        format!(
            "{head}[hooks.config]\nx = {}\n",
            nested(100_000, "{a = ", "}", "1")
        ),
        format!("{head}[hooks.config]\n{keys} = 1\n"),
        format!("{head}[hooks.config.{keys}]\nb = 1\n"),
    ];
    // toml stops at 80 levels; a debug build needs more than 256 KiB of
    // stack for those (a release build does not).
    for text in cases {
        on_stack(1024, move || {
            let parsed = radium_core::HookConfigFile::parse(&text, ".radium/hooks.toml");
            assert!(parsed.is_err(), "nesting this deep is refused");
            targets::hooks_toml(text.as_bytes());
        });
    }
}

#[test]
fn markdown_nested_100_000_levels_deep_replays() {
    let cases = [
        format!("{}```rust\nfn a() {{}}\n```\n", "> ".repeat(100_000)),
        format!("{}```rust\nfn a() {{}}\n```\n", "- ".repeat(100_000)),
        format!("{}\n```\nx\n```\n", nested(100_000, "[", "]", "x")),
        format!("{}\n", "*a **".repeat(50_000)),
    ];
    for text in cases {
        on_stack(256, move || targets::extract(text.as_bytes()));
    }
}
