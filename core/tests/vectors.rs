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

/// `text` with every `"duration_ns":<digits>` written `"duration_ns":0`
/// (durations differ from run to run; every other byte must not).
fn zero_durations(text: &str) -> String {
    let key = "\"duration_ns\":";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = rest[at + key.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('0');
    }
    out.push_str(rest);
    out
}

#[test]
fn a_chain_answered_as_text_is_byte_for_byte_the_value_doors_answer() {
    use radium_core::{FnHook, HookResult, HookType};
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let registry = engine.registry();
    registry
        .register(FnHook::new("adds", HookType::BeforeModel, |c| {
            let mut data = c.data.clone();
            data["added"] = json!({"z": 1, "a": [true, null, 2.5, "\n\"é\u{1}"]});
            Ok(HookResult::with_data(data))
        }))
        .unwrap();
    registry
        .register(FnHook::new("fails", HookType::BeforeModel, |_| {
            Ok(HookResult::error("broken \"quoted\"\n"))
        }))
        .unwrap();
    registry
        .register(FnHook::new("refuses", HookType::BeforeModel, |c| {
            if c.data["stop"] == json!(true) {
                return Ok(HookResult::stop("stop \u{2028} asked"));
            }
            Ok(HookResult::success())
        }))
        .unwrap();
    registry
        .register(FnHook::new("panics", HookType::AfterModel, |_| {
            panic!("hook panic")
        }))
        .unwrap();
    let requests = [
        json!({"command": "hooks-execute", "args": {"hook_type": "before_model", "data": {"b": "x\ny", "stop": false}}}),
        json!({"command": "hooks-execute", "args": {"hook_type": "before_model", "data": {"stop": true}}}),
        json!({"command": "hooks-execute", "args": {"hook_type": "before_model"}, "id": "req-1"}),
        json!({"command": "hooks-execute", "args": {"hook_type": "after_model", "data": [1, {"y": 2, "x": 1}]}}),
        json!({"command": "hooks-execute", "args": {"hook_type": "on_error"}}),
        json!({"command": "hooks-execute", "args": {"hook_type": "before_model", "timeout_ms": -1}}),
        json!({"command": "hooks-execute", "args": {"hook_type": "before_model"}, "tag": "t".repeat(300)}),
    ];
    for request in requests {
        let by_value = engine.handle_json(request.clone()).to_json().to_string();
        let by_text = engine.handle_json_text(&request.to_string()).unwrap();
        assert_eq!(
            zero_durations(&by_text),
            zero_durations(&by_value),
            "request {request}"
        );
        // The future form writes the same text.
        let by_future =
            pollster::block_on(engine.handle_json_text_async(&request.to_string()).unwrap());
        assert_eq!(zero_durations(&by_future), zero_durations(&by_value));
    }
    // The chain's answer is what a user reads: the hooks in order, the stop.
    let answer: Value = serde_json::from_str(
        &engine
            .handle_json_text(&json!({"command": "hooks-execute", "args": {"hook_type": "before_model", "data": {"stop": true}}}).to_string())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(answer["data"]["status"], "stopped");
    assert_eq!(answer["data"]["stopped_by"]["hook"], "refuses");
    assert_eq!(answer["data"]["hooks"][1]["error"], "broken \"quoted\"\n");
    assert_eq!(answer["data"]["data"]["added"]["a"][3], "\n\"é\u{1}");
}
