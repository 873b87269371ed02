//! The shared request vectors (`tests/vectors/requests.txt`): each request
//! must produce exactly the expected response text (compact JSON, sorted
//! keys), the form every door hands back. Also checks that requests.txt is
//! in step with the readable sources (extract.jsonl, context.jsonl).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{Engine, EngineConfig};
use serde_json::{json, Value};

fn read(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../tests/vectors/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn every_request_vector_gives_the_expected_response_text() {
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let text = read("requests.txt");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 60 && lines.len() % 2 == 0);
    for pair in lines.chunks(2) {
        let request: Value = serde_json::from_str(pair[0]).unwrap();
        let response = engine.handle_json(request).to_json().to_string();
        assert_eq!(response, pair[1], "request {}", pair[0]);
    }
}

#[test]
fn requests_txt_is_generated_from_the_sources() {
    let mut expected = Vec::new();
    for line in read("extract.jsonl").lines() {
        let c: Value = serde_json::from_str(line).unwrap();
        expected.push(json!({"command": "extract", "args": {"text": c["answer"]}}));
        expected.push(json!({"ok": true, "data": {"original_output": c["answer"], "code_blocks": c["code_blocks"], "block_count": c["block_count"]}}));
    }
    for line in read("context.jsonl").lines() {
        let c: Value = serde_json::from_str(line).unwrap();
        expected.push(json!({"command": "context", "args": c["context"]}));
        expected.push(c["response"].clone());
    }
    let actual: Vec<Value> = read("requests.txt")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        actual, expected,
        "tests/vectors/requests.txt is stale: run python3 tests/vectors/gen_requests.py"
    );
}
