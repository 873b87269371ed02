//! The agent's slash commands and usage reach the door: the `commands`
//! event (between turns too), `session-info`, the `usage` events and
//! `turn_end`'s `usage`; a prompt `/name args` reaches the agent unchanged.

use std::time::{Duration, Instant};

use radium_core::sessions::{MAX_COMMANDS, MAX_USAGE_FIELDS};
use serde_json::{json, Value};

use super::{env, of_type};

/// Polls `session-events` until a `commands` event comes (the example
/// agent sends its commands just after `session/new`, before any prompt).
fn first_commands(e: &super::Env, s: &str) -> Value {
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no commands event"
        );
        let r = e.call("session-events", json!({"session": s, "wait_ms": 500}));
        assert_eq!(r["ok"], true, "{r}");
        let events = r["data"]["events"].as_array().unwrap();
        if let Some(c) = events.iter().find(|e| e["type"] == "commands") {
            return c.clone();
        }
    }
}

fn names(commands: &Value) -> Vec<&str> {
    commands
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

#[test]
fn the_agents_commands_reach_the_door_before_any_prompt_and_in_session_info() {
    let e = env();
    let s = e.open("example");
    let event = first_commands(&e, &s);
    assert_eq!(names(&event["commands"]), ["review", "explain"], "{event}");
    let review = &event["commands"][0];
    assert_eq!(review["description"], "Review the changes of this branch");
    assert_eq!(review["hint"], "what to look at");
    assert_eq!(event["commands"][1]["hint"], Value::Null);
    let info = e.call("session-info", json!({"session": s}));
    assert_eq!(info["ok"], true, "{info}");
    assert_eq!(info["data"]["commands"], event["commands"]);
    assert_eq!(info["data"]["agent"], "example");
    assert_eq!(info["data"]["running"], false);
    assert_eq!(info["data"]["usage"], Value::Null, "no usage before a turn");
}

#[test]
fn a_slash_prompt_reaches_the_agent_unchanged_and_its_usage_is_reported() {
    let e = env();
    let s = e.open("example");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "/review  the parser, please", "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["text"], "command /review got: the parser, please");
    let events = r["data"]["events"].as_array().unwrap();
    let usage = of_type(events, "usage");
    assert_eq!(usage.len(), 1, "{events:?}");
    assert_eq!(usage[0]["used"], 12300);
    assert_eq!(usage[0]["size"], 200_000);
    assert_eq!(usage[0]["cost"]["currency"], "USD");
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end");
    assert_eq!(end["usage"]["used"], 12300, "{end}");
    // The next turn's usage replaces it, in the turn's end and the info.
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "usage", "wait": true}),
    );
    let end = r["data"]["events"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(end["usage"]["used"], 24600, "{end}");
    let info = e.call("session-info", json!({"session": s}));
    assert_eq!(info["data"]["usage"]["used"], 24600, "{info}");
    assert_eq!(info["data"]["usage"]["size"], 200_000);
}

#[test]
fn a_new_command_list_replaces_the_old_one() {
    let e = env();
    let s = e.open("example");
    first_commands(&e, &s);
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "commands alpha beta", "wait": true}),
    );
    let events = r["data"]["events"].as_array().unwrap();
    let update = of_type(events, "commands");
    assert_eq!(update.len(), 1, "{events:?}");
    assert_eq!(names(&update[0]["commands"]), ["alpha", "beta"]);
    let info = e.call("session-info", json!({"session": s}));
    assert_eq!(names(&info["data"]["commands"]), ["alpha", "beta"]);
}

#[test]
fn an_agent_with_too_many_commands_has_the_first_ones_kept() {
    let e = env();
    let s = e.open("example");
    let many: Vec<String> = (0..MAX_COMMANDS + 50).map(|i| format!("c{i}")).collect();
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": format!("commands {}", many.join(" ")), "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let info = e.call("session-info", json!({"session": s}));
    let kept = names(&info["data"]["commands"]);
    assert_eq!(kept.len(), MAX_COMMANDS);
    assert_eq!(kept[0], "c0");
}

#[test]
fn an_agent_reporting_many_usage_fields_has_the_first_ones_kept() {
    let e = env();
    let s = e.open("example");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "manyusage", "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let usage = &r["data"]["events"].as_array().unwrap().last().unwrap()["usage"];
    let fields = usage.as_object().unwrap();
    assert_eq!(fields.len(), MAX_USAGE_FIELDS, "{usage}");
    assert_eq!(usage["used"], 12300, "the first fields stay");
    assert_eq!(usage["size"], 200_000);
}

#[test]
fn session_info_of_an_unknown_or_missing_session_is_an_error() {
    let e = env();
    let r = e.call("session-info", json!({"session": "s999"}));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "invalid_argument", "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("no session `s999`"),
        "{r}"
    );
    let r = e.call("session-info", json!({}));
    assert_eq!(r["ok"], false, "{r}");
    assert!(r["error"].as_str().unwrap().contains("`session`"), "{r}");
}
