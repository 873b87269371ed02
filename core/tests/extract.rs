//! Code-block extraction against the shared vectors in `tests/vectors/`.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{extract_code_blocks, ExtractedAnswer};
use serde_json::{json, Value};

fn vectors(name: &str) -> Vec<Value> {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn commonmark_spec_fences() {
    let cases = vectors("commonmark-fences.jsonl");
    assert_eq!(cases.len(), 41);
    let mut blocks_seen = 0;
    for case in cases {
        let got = extract_code_blocks(case["markdown"].as_str().unwrap());
        let expected = case["blocks"].as_array().unwrap();
        let got_simple: Vec<Value> = got
            .iter()
            .map(|b| json!({"language": b.language, "content": b.content}))
            .collect();
        let expected_simple: Vec<Value> = expected
            .iter()
            .map(|b| json!({"language": b["language"], "content": b["content"]}))
            .collect();
        assert_eq!(
            got_simple, expected_simple,
            "example {}: {:?}",
            case["example"], case["markdown"]
        );
        blocks_seen += got.len();
    }
    assert_eq!(blocks_seen, 36);
}

#[test]
fn radium_extract_vectors() {
    let cases = vectors("extract.jsonl");
    assert!(cases.len() >= 20);
    for case in cases {
        let answer = case["answer"].as_str().unwrap();
        let got = serde_json::to_value(ExtractedAnswer::from_answer(answer)).unwrap();
        assert_eq!(got["code_blocks"], case["code_blocks"], "{}", case["name"]);
        assert_eq!(got["block_count"], case["block_count"], "{}", case["name"]);
        assert_eq!(got["original_output"], answer);
        // The moving form is the same JSON.
        assert_eq!(
            ExtractedAnswer::from_answer(answer).into_json(),
            got,
            "{}",
            case["name"]
        );
    }
}

#[test]
fn a_lines_word_in_the_info_string_is_the_range_a_block_stands_for() {
    let cases = [
        ("rust:src/a.rs lines=10-20", Some((10, 20))),
        ("rust:src/a.rs lines=7", Some((7, 7))),
        ("rust:src/a.rs", None),
        ("rust:src/a.rs lines=0-3", None),
        ("rust:src/a.rs lines=5-2", None),
        ("rust:src/a.rs lines=x", None),
        ("rust:src/a.rs lines=", None),
        // A range without a path means nothing.
        ("rust lines=1-2", None),
    ];
    for (info, range) in cases {
        let blocks = extract_code_blocks(&format!("```{info}\nx\n```\n"));
        assert_eq!(blocks[0].range, range, "{info}");
    }
    let json = extract_code_blocks("```rust:src/a.rs lines=3-4\nx\n```\n")
        .remove(0)
        .into_json();
    assert_eq!(json["range"], json!([3, 4]));
    assert_eq!(json["file_path"], "src/a.rs");
}
