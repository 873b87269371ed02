//! The request door: `{command, args, tag?, cwd?}` → `{ok, data?, error?, code?, ...}`.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType, Request};
use serde_json::{json, Value};

fn engine() -> Engine {
    let e = Engine::new(EngineConfig::default()).unwrap();
    e.registry()
        .register(FnHook::new("mark", HookType::BeforeTool, |c| {
            let mut d = c.data.clone();
            d["marked"] = json!(true);
            Ok(HookResult::with_data(d))
        }))
        .unwrap();
    e
}

fn call(e: &Engine, request: Value) -> Value {
    e.handle_json(request).to_json()
}

#[test]
fn ping_and_version() {
    let e = engine();
    assert_eq!(
        call(&e, json!({"command": "ping"})),
        json!({"ok": true, "data": "pong"})
    );
    let v = call(&e, json!({"command": "version", "args": {}}));
    assert_eq!(v["data"]["version"], radium_core::VERSION);
    assert_eq!(v["data"]["abi_version"], 1);
}

#[test]
fn hook_commands() {
    let e = engine();
    let list = call(&e, json!({"command": "hooks-list"}));
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    // The built-in hooks are registered in every engine.
    assert_eq!(names, ["editor-context", "mark", "code-apply"]);
    assert_eq!(list["data"][1]["hook_type"], "before_tool");
    assert_eq!(list["data"][0]["matcher"], "step");

    let out = call(
        &e,
        json!({"command": "hooks-execute", "args": {"hook_type": "before_tool", "data": {"tool_name": "view"}}}),
    );
    assert_eq!(out["ok"], true);
    assert_eq!(out["data"]["status"], "completed");
    assert_eq!(
        out["data"]["data"],
        json!({"tool_name": "view", "marked": true})
    );

    let off = call(
        &e,
        json!({"command": "hooks-disable", "args": {"name": "mark"}}),
    );
    assert_eq!(off["data"], json!({"name": "mark", "enabled": false}));
    let out = call(
        &e,
        json!({"command": "hooks-execute", "args": {"hook_type": "before_tool", "data": 1, "timeout_ms": 1000}}),
    );
    assert_eq!(out["data"]["data"], 1);
    assert_eq!(out["data"]["hooks"], json!([]));
    call(
        &e,
        json!({"command": "hooks-enable", "args": {"name": "mark"}}),
    );
    assert_eq!(e.registry().is_enabled("mark"), Some(true));
}

#[test]
fn every_bad_request_is_a_clear_error() {
    let e = engine();
    let cases = [
        (json!([1]), "invalid_request", "a request must be an object"),
        (
            json!({"args": {}}),
            "invalid_request",
            "missing field `command`",
        ),
        (
            json!({"command": "ping", "extra": 1}),
            "invalid_request",
            "unknown field `extra`",
        ),
        (
            json!({"command": "dance"}),
            "unknown_command",
            "unknown command `dance`; known commands: ping, shutdown, version",
        ),
        (
            json!({"command": "ping", "args": [1]}),
            "invalid_argument",
            "args must be an object",
        ),
        (
            json!({"command": "hooks-enable"}),
            "invalid_argument",
            "missing argument `name`",
        ),
        (
            json!({"command": "hooks-enable", "args": {"name": 3}}),
            "invalid_argument",
            "argument `name` must be a string",
        ),
        (
            json!({"command": "hooks-disable", "args": {"name": "ghost"}}),
            "unknown_hook",
            "no hook named `ghost`",
        ),
        (
            json!({"command": "hooks-execute", "args": {"hook_type": "before_lunch"}}),
            "unknown_hook_type",
            "valid types are",
        ),
        (
            json!({"command": "hooks-execute", "args": {"hook_type": "before_tool", "timeout_ms": -1}}),
            "invalid_argument",
            "timeout_ms",
        ),
    ];
    for (request, code, message) in cases {
        let r = call(&e, request.clone());
        assert_eq!(r["ok"], false, "{request}");
        assert_eq!(r["code"], code, "{request}: {r}");
        assert!(
            r["error"].as_str().unwrap().contains(message),
            "{request}: {r}"
        );
        assert!(r.get("data").is_none());
    }
}

#[test]
fn requests_round_trip_with_tag_and_cwd() {
    let r: Request =
        serde_json::from_value(json!({"command": "ping", "tag": "ab12-xxxxxxxx", "cwd": "/w"}))
            .unwrap();
    assert_eq!(r.tag.as_deref(), Some("ab12-xxxxxxxx"));
    assert_eq!(r.cwd.as_deref(), Some("/w"));
    assert!(engine().handle(&r).ok);
}

#[test]
fn engine_config_is_validated_and_applies_the_workspace_file() {
    assert!(EngineConfig::from_json(&Value::Null)
        .unwrap()
        .workspace
        .is_none());
    let err = EngineConfig::from_json(&json!(3)).unwrap_err();
    assert!(err.to_string().contains("must be an object"));
    let err = EngineConfig::from_json(&json!({"workspaces": "/x"})).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `workspaces`"),
        "{err}"
    );
    let config = EngineConfig::from_json(&json!({"rad_program": "/opt/rad"})).unwrap();
    assert_eq!(
        config.rad_program.as_deref(),
        Some(std::path::Path::new("/opt/rad"))
    );
    let err = EngineConfig::from_json(&json!({"rad_program": 5})).unwrap_err();
    assert!(
        err.to_string()
            .contains("`rad_program` must be a string (the path of `rad`)"),
        "{err}"
    );

    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".radium")).unwrap();
    std::fs::write(
        ws.path().join(".radium/hooks.toml"),
        "[[hooks]]\nname = 1\n",
    )
    .unwrap();
    // A broken file of a trusted workspace does not stop the engine: it
    // keeps the error (see broken_config.rs for what fails with it).
    let home = tempfile::tempdir().unwrap();
    radium_core::trust::TrustStore::new(home.path())
        .trust(ws.path())
        .unwrap();
    let config =
        EngineConfig::from_json(&json!({"workspace": ws.path(), "radium_home": home.path()}))
            .unwrap();
    let err = Engine::new(config)
        .unwrap()
        .config_error()
        .unwrap()
        .to_string();
    assert!(err.contains("hooks.toml:2:"), "{err}");
}

#[test]
fn a_tag_too_long_to_be_radiums_is_refused_without_being_echoed() {
    let e = engine();
    let dir = tempfile::tempdir().unwrap();
    let huge = "t".repeat(1 << 20);
    let answer = call(
        &e,
        json!({"command": "view", "args": {"path": "."}, "tag": huge, "cwd": dir.path()}),
    );
    assert_eq!(
        answer["code"],
        "invalid_argument",
        "{}",
        &answer.to_string()[..300]
    );
    let text = answer.to_string();
    assert!(text.len() < 1000, "an answer of {} bytes", text.len());
    assert!(
        text.contains("`tag` of 1048576 bytes is not a tag"),
        "{text}"
    );
    // A tag of ordinary length is still taken (unknown: a warning, no error).
    let answer = call(
        &e,
        json!({"command": "view", "args": {"path": "."}, "tag": "x".repeat(256), "cwd": dir.path()}),
    );
    assert_eq!(answer["ok"], true, "{answer}");
}
