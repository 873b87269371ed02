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
    assert!(lines.len() >= 60 && lines.len().is_multiple_of(2));
    for pair in lines.chunks(2) {
        let request: Value = serde_json::from_str(pair[0]).unwrap();
        let response = engine.handle_json(request).to_json().to_string();
        assert_eq!(response, pair[1], "request {}", pair[0]);
        // The text door (JSON text in and out) answers the same text.
        assert_eq!(
            engine.handle_json_text(pair[0]).unwrap(),
            pair[1],
            "request {}",
            pair[0]
        );
    }
}

#[test]
fn the_text_door_answers_exactly_like_the_value_door() {
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let round_trip = read("roundtrip.txt");
    let mut requests: Vec<String> = round_trip.lines().map(str::to_owned).collect();
    for value in [
        json!({"command": "ping", "args": null}),
        json!({"command": "nope"}),
        json!({"command": "ping", "bogus": 1}),
        json!({"command": 3}),
        json!({"args": {}}),
        json!({"command": "extract", "args": {"text": "ctl \u{1b}[31m \u{7f} é \u{2028} \"q\" \\ /\n```\u{0}x\n```"}}),
        json!({"command": "hooks-execute", "args": {"hook_type": "before_model", "data": {"n": [1, -2, 3.5, 1e300, null, true], "s": "\u{1}"}}}),
        json!({"command": "hooks-execute", "args": {"hook_type": "nope"}}),
        json!({"command": "context", "args": {"file_path": "rel"}}),
        json!([1, 2]),
        json!("ping"),
    ] {
        requests.push(value.to_string());
    }
    // Text as editors write it: escapes of every kind, repeated fields,
    // numbers past u64, nesting deeper than a SIMD parser is given.
    let deep = format!(
        "{{\"command\": \"hooks-execute\", \"args\": {{\"hook_type\": \"before_model\", \"data\": {{\"d\": {}1{}}}}}}}",
        "[".repeat(100),
        "]".repeat(100)
    );
    for text in [
        r#"{"command": "extract", "args": {"text": "\u00e9 \ud83d\ude00 \t\r\n\b\f \/ \\ \"\n```py\nx = 1\n```"}}"#,
        r#"{"command": "ping", "command": "version"}"#,
        r#"{"command": "hooks-execute", "args": {"hook_type": "before_model", "data": {"big": 18446744073709551616, "neg": -9223372036854775809, "e": 2E-3}}}"#,
        r#" { "tag" : null , "cwd" : null , "id" : null , "follow" : false , "command" : "ping" } "#,
        r#"{"command": "ping", "follow": "yes"}"#,
        r#"{"command": "ping", "tag": 7}"#,
        deep.as_str(),
    ] {
        requests.push(text.to_owned());
    }
    for request in &requests {
        let by_value = engine
            .handle_json(serde_json::from_str(request).unwrap())
            .to_json();
        let by_text: Value =
            serde_json::from_str(&engine.handle_json_text(request).unwrap()).unwrap();
        // Durations differ from run to run; everything else is equal.
        let strip = |mut v: Value| {
            if let Some(data) = v.get_mut("data").and_then(Value::as_object_mut) {
                data.remove("duration_ns");
                if let Some(Value::Array(hooks)) = data.get_mut("hooks") {
                    for hook in hooks {
                        hook.as_object_mut().unwrap().remove("duration_ns");
                    }
                }
            }
            v
        };
        assert_eq!(strip(by_text), strip(by_value), "request {request}");
    }
    // Text that is not JSON is an error of the call, not a response.
    let err = engine.handle_json_text("{\"command\": ").unwrap_err();
    assert!(err.to_string().contains("EOF while parsing"), "{err}");
    assert!(engine.handle_json_text("").is_err());
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
