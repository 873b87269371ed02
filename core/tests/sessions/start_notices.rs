//! What a session's start could not do reaches the door once, in
//! `session-new`'s answer (`notices`): radium's tools not offered when the
//! edit history cannot be written; and a notice between turns reaches the
//! session's event stream.

use radium_core::{Engine, EngineConfig};
use serde_json::json;

use super::{agent_script, of_type, Env};

/// An engine that offers radium's MCP server (`rad_program`) to the example agent.
fn env_with_rad() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let script = agent_script();
    std::fs::write(
        home.join("agents.toml"),
        format!("[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\"]\n"),
    )
    .unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.clone()),
        radium_home: Some(home),
        rad_program: Some("/usr/bin/true".into()),
        ..EngineConfig::default()
    })
    .unwrap();
    Env {
        _dir: dir,
        ws,
        engine,
    }
}

#[test]
fn radiums_tools_not_offered_is_said_in_session_new_and_not_again_in_the_first_turn() {
    let e = env_with_rad();
    let r = e.call("session-new", json!({"agent": "example"}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["notices"], json!([]), "{r}");
    let s = r["data"]["session"].as_str().unwrap().to_owned();
    assert_eq!(e.call("session-close", json!({"session": s}))["ok"], true);
    // The project's edit history cannot be written now: its folder is a file.
    let home = e.ws.parent().unwrap().join("home");
    let state = std::fs::read_dir(&home)
        .unwrap()
        .map(|d| d.unwrap().path())
        .find(|p| p.join("history").is_dir())
        .expect("the project's state folder");
    std::fs::remove_dir_all(state.join("history")).unwrap();
    std::fs::write(state.join("history"), "not a folder").unwrap();

    let r = e.call("session-new", json!({"agent": "example"}));
    assert_eq!(r["ok"], true, "{r}");
    let notices = r["data"]["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1, "{r}");
    assert!(
        notices[0]
            .as_str()
            .unwrap()
            .contains("radium's tools are not offered to the agent"),
        "{r}"
    );
    let s = r["data"]["session"].as_str().unwrap().to_owned();
    let first = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "mcpservers", "wait": true}),
    );
    assert_eq!(first["ok"], true, "{first}");
    assert_eq!(first["data"]["text"], "[]", "no radium server: {first}");
    let events = first["data"]["events"].as_array().unwrap();
    assert!(
        !of_type(events, "notice")
            .iter()
            .any(|n| n["message"].as_str().unwrap().contains("radium's tools")),
        "said once: {events:?}"
    );
}
