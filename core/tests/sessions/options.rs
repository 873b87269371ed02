//! The agent's modes, models and reasoning effort: what `session/new`
//! answered, `session-set-option`, the agent's own switches, and the
//! defaults of `agents.toml`.

use serde_json::{json, Value};

use super::{agent_script, env, env_with, of_type};

fn text_of(e: &super::Env, session: &str, prompt: &str) -> Value {
    let r = e.call(
        "session-prompt",
        json!({"session": session, "prompt": prompt, "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    r["data"].clone()
}

fn values(control: &Value) -> Vec<String> {
    control["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["value"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn session_new_answers_the_agents_modes_models_and_effort() {
    let e = env();
    let r = e.call("session-new", json!({"agent": "example"}));
    assert_eq!(r["ok"], true, "{r}");
    let d = &r["data"];
    assert_eq!(d["mode"], "default");
    assert_eq!(d["model"], "small");
    assert_eq!(d["warnings"], json!([]));
    let options = d["options"].as_array().unwrap();
    // The config options win over the legacy modes: one `mode` control.
    assert_eq!(options.len(), 3, "{options:?}");
    assert_eq!(options[0]["category"], "mode");
    assert_eq!(options[0]["legacy"], false);
    assert_eq!(
        values(&options[0]),
        ["default", "acceptEdits", "plan", "dontAsk"]
    );
    // Grouped values are flattened.
    assert_eq!(values(&options[1]), ["small", "large"]);
    assert_eq!(options[2]["id"], "effort");
    assert_eq!(options[2]["category"], "thought_level");
    assert_eq!(options[2]["current"], "medium");
}

#[test]
fn setting_an_option_reaches_the_agent_by_id_or_category() {
    let e = env();
    let s = e.open("example");
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "model", "value": "large"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["model"], "large");
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "thought_level", "value": "high"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "mode", "value": "plan"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["mode"], "plan");
    let d = text_of(&e, &s, "whoami");
    assert_eq!(d["text"], "mode plan, model large, effort high");
    let list = e.call("session-list", json!({}));
    assert_eq!(list["data"][0]["mode"], "plan", "{list}");
    assert_eq!(list["data"][0]["model"], "large", "{list}");
}

#[test]
fn a_value_the_agent_does_not_offer_is_refused_before_anything_is_sent() {
    let e = env();
    let s = e.open("example");
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "model", "value": "gigantic"}),
    );
    assert_eq!(r["ok"], false, "{r}");
    let message = r["error"].as_str().unwrap();
    assert!(
        message.contains("does not offer `gigantic` for `model`")
            && message.contains("small, large"),
        "{message}"
    );
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "colour", "value": "red"}),
    );
    assert_eq!(r["ok"], false, "{r}");
    let message = r["error"].as_str().unwrap();
    assert!(
        message.contains("no option `colour`") && message.contains("mode, model, effort"),
        "{message}"
    );
    for bad in [
        json!({"session": s, "option": "mode"}),
        json!({"session": s, "value": "plan"}),
        json!({"session": s, "option": 3, "value": "plan"}),
        json!({"session": "s999", "option": "mode", "value": "plan"}),
    ] {
        let r = e.call("session-set-option", bad.clone());
        assert_eq!(r["ok"], false, "{bad}: {r}");
    }
    // Nothing reached the agent.
    let d = text_of(&e, &s, "whoami");
    assert_eq!(d["text"], "mode default, model small, effort medium");
}

#[test]
fn legacy_modes_are_set_with_set_mode() {
    let script = agent_script();
    let e = env_with(&format!(
        "[[agents]]\nid = \"legacy\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--modes-only\"]\n"
    ));
    let r = e.call("session-new", json!({"agent": "legacy"}));
    assert_eq!(r["ok"], true, "{r}");
    let s = r["data"]["session"].as_str().unwrap().to_owned();
    let options = r["data"]["options"].as_array().unwrap();
    assert_eq!(options.len(), 1, "{options:?}");
    assert_eq!(options[0]["legacy"], true);
    assert_eq!(r["data"]["model"], Value::Null);
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "mode", "value": "acceptEdits"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["mode"], "acceptEdits");
    assert_eq!(
        text_of(&e, &s, "whoami")["text"],
        "mode acceptEdits, model small, effort medium"
    );
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "model", "value": "large"}),
    );
    assert_eq!(r["ok"], false, "{r}");
}

#[test]
fn legacy_models_are_shown_but_never_switched_with_set_model() {
    // Gemini CLI 0.61 lists its models only in `session/new`'s older
    // `models` field, switched by `session/set_model` (gone from ACP).
    let script = agent_script();
    let e = env_with(&format!(
        "[[agents]]\nid = \"gem\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--legacy-models\"]\n"
    ));
    let r = e.call("session-new", json!({"agent": "gem"}));
    assert_eq!(r["ok"], true, "{r}");
    let d = &r["data"];
    assert_eq!(d["model"], "small", "{d}");
    assert_eq!(d["legacy_models"]["current"], "small", "{d}");
    assert_eq!(values(&d["legacy_models"]), ["small", "large"]);
    let s = d["session"].as_str().unwrap().to_owned();
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "model", "value": "large"}),
    );
    assert_eq!(r["ok"], false, "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(
        error.contains("small, large") && error.contains("session/set_model"),
        "{r}"
    );
    // Nothing was sent: the agent's model is the same.
    assert_eq!(
        text_of(&e, &s, "whoami")["text"],
        "mode default, model small, effort medium"
    );
    // The legacy modes still switch.
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "mode", "value": "plan"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["model"], "small", "{r}");
}

#[test]
fn an_agent_without_options_says_so() {
    let script = agent_script();
    let e = env_with(&format!(
        "[[agents]]\nid = \"bare\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--no-modes\"]\n"
    ));
    let r = e.call("session-new", json!({"agent": "bare"}));
    assert_eq!(r["data"]["options"], json!([]), "{r}");
    let s = r["data"]["session"].as_str().unwrap();
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "mode", "value": "plan"}),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("offers no options or modes"),
        "{r}"
    );
}

#[test]
fn the_agents_own_switch_is_an_options_event() {
    let e = env();
    let s = e.open("example");
    let d = text_of(&e, &s, "switchmode plan");
    let events = d["events"].as_array().unwrap();
    let switched = of_type(events, "options");
    assert!(!switched.is_empty(), "{events:?}");
    assert_eq!(switched.last().unwrap()["mode"], "plan");
    let list = e.call("session-list", json!({}));
    assert_eq!(list["data"][0]["mode"], "plan", "{list}");
}

#[test]
fn the_agents_switch_between_turns_reaches_the_door_with_its_usage() {
    let e = env();
    let s = e.open("example");
    let d = text_of(&e, &s, "latemode plan");
    let events = d["events"].as_array().unwrap();
    assert!(of_type(events, "options").is_empty(), "{events:?}");
    // The turn has ended; the agent switches after it.
    let started = std::time::Instant::now();
    let (mut options, mut usage) = (None, None);
    while options.is_none() || usage.is_none() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no options/usage event between turns: {options:?} {usage:?}"
        );
        let r = e.call("session-events", json!({"session": s, "wait_ms": 500}));
        assert_eq!(r["ok"], true, "{r}");
        for event in r["data"]["events"].as_array().unwrap() {
            match event["type"].as_str() {
                Some("options") => options = Some(event.clone()),
                Some("usage") => usage = Some(event.clone()),
                _ => {}
            }
        }
    }
    let options = options.unwrap();
    assert_eq!(options["mode"], "plan", "{options}");
    assert_eq!(options["options"][0]["current"], "plan", "{options}");
    assert_eq!(usage.unwrap()["size"], 200000);
    let list = e.call("session-list", json!({}));
    assert_eq!(list["data"][0]["mode"], "plan", "{list}");
}

#[test]
fn agents_toml_defaults_are_applied_and_a_bad_one_is_a_warning() {
    let script = agent_script();
    let e = env_with(&format!(
        "[[agents]]\nid = \"planner\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\"]\n\
         mode = \"plan\"\nmodel = \"huge\"\n[agents.options]\neffort = \"high\"\n"
    ));
    let r = e.call("session-new", json!({"agent": "planner"}));
    assert_eq!(r["ok"], true, "{r}");
    let d = &r["data"];
    assert_eq!(d["mode"], "plan");
    assert_eq!(d["model"], "small");
    let warnings = d["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].as_str().unwrap();
    assert!(
        w.contains("model = \"huge\"") && w.contains("does not offer `huge`"),
        "{w}"
    );
    let s = d["session"].as_str().unwrap();
    assert_eq!(
        text_of(&e, s, "whoami")["text"],
        "mode plan, model small, effort high"
    );
}

#[test]
fn a_mode_given_twice_in_agents_toml_is_a_config_error() {
    let e = env_with(
        "[[agents]]\nid = \"twice\"\nprotocol = \"acp\"\ncommand = [\"node\"]\nmode = \"plan\"\n[agents.options]\nmode = \"default\"\n",
    );
    let r = e.call("session-new", json!({"agent": "example"}));
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("field `mode`: given twice"),
        "{r}"
    );
}

#[test]
fn in_plan_mode_radium_refuses_the_agents_edits_whoever_would_allow_them() {
    let e = env();
    let s = e.open("example");
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "mode", "value": "plan"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    // The agent tries anyway (itself, and through radium); the door would allow.
    for verb in ["selfwrite", "write"] {
        let r = e.call(
            "session-prompt",
            json!({"session": s, "prompt": format!("{verb} a.txt hello"), "wait": false}),
        );
        assert_eq!(r["ok"], true, "{r}");
        let events = e.drain(&s, Some("allow"));
        assert!(of_type(&events, "permission").is_empty(), "{events:?}");
        let decided = of_type(&events, "permission_decided");
        assert_eq!(decided.len(), 1, "{events:?}");
        assert_eq!(decided[0]["allowed"], false);
        assert_eq!(decided[0]["by"], "radium");
        assert!(
            decided[0]["reason"].as_str().unwrap().contains("plan mode"),
            "{decided:?}"
        );
        assert!(!e.ws.join("a.txt").exists());
    }
    // Out of plan mode the same write reaches the door.
    let r = e.call(
        "session-set-option",
        json!({"session": s, "option": "mode", "value": "acceptEdits"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "write a.txt hello", "wait": false}),
    );
    let events = e.drain(&s, Some("allow"));
    assert_eq!(of_type(&events, "permission").len(), 1, "{events:?}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("a.txt")).unwrap(),
        "hello\n"
    );
}
