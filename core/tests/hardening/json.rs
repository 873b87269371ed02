//! JSON nested too deep for any parser: refused with one error on every path.

use super::*;

#[test]
fn deep_json_is_refused_with_one_error_on_every_path() {
    let refused = format!("JSON nested deeper than {MAX_JSON_DEPTH} levels is refused");
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let cases = [
        // A top-level array, the whole request.
        nested(100_000, "[", "]", ""),
        // Arrays where strings belong.
        format!(
            r#"{{"command":"ping","cwd":{}}}"#,
            nested(5_000, "[", "]", "")
        ),
        format!(
            r#"{{"command":"ping","tag":{}}}"#,
            nested(5_000, "[", "]", "1")
        ),
        format!(
            r#"{{"command":"ping","id":{}}}"#,
            nested(5_000, "{\"a\":", "}", "1")
        ),
        // Deep data where data belongs.
        format!(
            r#"{{"command":"hooks-execute","args":{{"hook_type":"before_tool","data":{}}}}}"#,
            nested(MAX_JSON_DEPTH, "[", "]", "")
        ),
    ];
    for text in cases {
        let engine = engine.clone();
        let answer = on_stack(256, move || {
            engine.handle_json_text(&text).map_err(|e| e.to_string())
        });
        let error = answer.expect_err("deep JSON is refused");
        assert!(error.contains(&refused), "{error}");
    }
    assert_eq!(
        check_json_depth(nested(129, "[", "]", "").as_bytes()),
        Err(refused.clone())
    );
    assert_eq!(parse_json(&nested(129, "{\"k\":", "}", "0")), Err(refused));
}

#[test]
fn json_up_to_the_limit_parses_and_brackets_in_strings_do_not_count() {
    let engine = Engine::new(EngineConfig::default()).unwrap();
    // The request object is one level: data may take the rest.
    let text = format!(
        r#"{{"command":"hooks-execute","args":{{"hook_type":"before_tool","data":{}}}}}"#,
        nested(MAX_JSON_DEPTH - 2, "[", "]", "")
    );
    let answer = engine.handle_json_text(&text).unwrap();
    assert!(answer.contains(r#""ok":true"#), "{answer}");
    let in_strings = format!(
        r#"{{"command":"ping","args":{{"x":"{}"}}}}"#,
        "[{".repeat(5_000)
    );
    assert!(check_json_depth(in_strings.as_bytes()).is_ok());
    let escaped = format!(r#"["\"{}"]"#, "[".repeat(500));
    assert!(parse_json(&escaped).is_ok());
    // serde_json's own limit is the same: what we let through, it parses.
    assert!(parse_json(&nested(MAX_JSON_DEPTH, "[", "]", "")).is_ok());
}

#[test]
fn error_messages_never_repeat_a_huge_input_whole() {
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let huge = "x".repeat(10 << 20);
    for request in [
        serde_json::json!({"command": huge}),
        serde_json::json!({"command": "hooks-execute", "args": {"hook_type": huge}}),
        serde_json::json!({"command": "hooks-enable", "args": {"name": huge}}),
    ] {
        let answer = engine.handle_json(request).to_json();
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.len() <= radium_core::protocol::MAX_ERROR_MESSAGE,
            "{}",
            error.len()
        );
        assert!(
            error.ends_with("more bytes not shown)"),
            "{}",
            &error[error.len() - 80..]
        );
    }
}

#[test]
fn the_json_text_door_takes_exactly_max_depth_and_refuses_one_more() {
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let refused = format!("JSON nested deeper than {MAX_JSON_DEPTH} levels is refused");
    // The request object and `args` are two levels; `data` takes the rest.
    let request = |levels: usize| {
        format!(
            r#"{{"command":"hooks-execute","args":{{"hook_type":"before_tool","data":{}}}}}"#,
            nested(levels, "[", "]", "")
        )
    };
    let answer = engine
        .handle_json_text(&request(MAX_JSON_DEPTH - 2))
        .unwrap();
    assert!(answer.contains(r#""ok":true"#), "{answer}");
    // One level more, well-formed otherwise: refused as too deep, on a
    // small stack (the parser stops at its own limit).
    for text in [
        request(MAX_JSON_DEPTH - 1),
        // Too deep and broken after the deep part: the depth is the error.
        format!("{} trailing", request(MAX_JSON_DEPTH - 1)),
        // Too deep with an unknown field before it.
        format!(
            r#"{{"unknown":1,"command":"ping","args":{{"x":{}}}}}"#,
            nested(MAX_JSON_DEPTH, "{\"k\":", "}", "0")
        ),
    ] {
        let engine = engine.clone();
        let error = on_stack(256, move || {
            engine.handle_json_text(&text).map_err(|e| e.to_string())
        })
        .expect_err("one level too deep is refused");
        assert_eq!(error, refused);
    }
    // The future form refuses the same text the same way.
    let error = engine
        .handle_json_text_async(&request(MAX_JSON_DEPTH - 1))
        .err()
        .expect("refused")
        .to_string();
    assert_eq!(error, refused);
}
