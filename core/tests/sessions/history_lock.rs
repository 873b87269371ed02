//! A conversation is owned by one session at a time: a second session
//! resuming it (another engine, as another process would) is refused with
//! an error naming it, until the first closes.

use serde_json::json;

use super::{env, Env};

fn one_turn(e: &Env, session: &str) {
    let r = e.call(
        "session-prompt",
        json!({"session": session, "prompt": "hello", "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn a_conversation_open_in_one_engine_is_refused_to_another_until_closed() {
    let a = env();
    let s = a.open("example");
    one_turn(&a, &s);
    let id = a.call("history-list", json!({}))["data"]["conversations"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Another engine on the same project and $RADIUM_HOME.
    let home = a.ws.parent().unwrap().join("home");
    let b = radium_core::Engine::new(radium_core::EngineConfig {
        workspace: Some(a.ws.clone()),
        radium_home: Some(home),
        ..radium_core::EngineConfig::default()
    })
    .unwrap();
    let call = |command: &str, args: serde_json::Value| {
        b.handle_json(json!({"command": command, "args": args}))
            .to_json()
    };
    let r = call("session-new", json!({"agent": "example", "resume": id}));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "busy", "{r}");
    let message = r["error"].as_str().unwrap();
    assert!(
        message.contains(&format!("conversation `{id}` is open in another chat")),
        "{message}"
    );
    // The same engine's second resume is refused too.
    let r = a.call("session-new", json!({"agent": "example", "resume": id}));
    assert_eq!(r["code"], "busy", "{r}");
    // Closed: the other engine takes it up, and the first cannot.
    assert_eq!(a.call("session-close", json!({"session": s}))["ok"], true);
    let r = call("session-new", json!({"agent": "example", "resume": id}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["conversation"], id.as_str(), "{r}");
    let r = a.call("session-new", json!({"agent": "example", "resume": id}));
    assert_eq!(r["code"], "busy", "{r}");
}
