//! The agent's own sessions (`session/list`): `history-list {agent}` lists
//! those of this project that radium's history does not hold (sessions
//! started in the agent's own command line), following its pages;
//! `session-new {resume: "agent:<id>"}` takes one up with no transcript of
//! radium's, as a new conversation.

use serde_json::{json, Value};

use super::{agent_script, env_with, Env};

/// `listing`: the example agent with `--resume --list`, its sessions in `state`.
fn listing_env(state: &std::path::Path) -> Env {
    let script = agent_script();
    env_with(&format!(
        "[[agents]]\nid = \"listing\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--resume\", \"--list\"]\n\
         env = {{ EXAMPLE_AGENT_STATE = \"{}\" }}\n",
        state.display()
    ))
}

/// A session the agent keeps, as if started in its own command line.
fn cli_session(state: &std::path::Path, id: &str, cwd: &std::path::Path, prompt: &str) {
    let body = json!({"cwd": cwd, "prompts": [prompt]});
    std::fs::write(state.join(format!("{id}.json")), body.to_string()).unwrap();
}

fn ids(list: &Value) -> Vec<String> {
    let mut out: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

#[test]
fn the_agents_own_sessions_are_listed_and_one_is_taken_up() {
    let state = tempfile::tempdir().unwrap();
    let e = listing_env(state.path());
    let ws = e.ws.canonicalize().unwrap();
    // One conversation of radium's with the agent: listed as radium's only.
    let s = e.open("listing");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "through radium", "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    e.call("session-close", json!({"session": s}));
    // Three of the agent's own (two pages of two), one of another folder.
    for (i, prompt) in ["first cli", "second cli", "third cli"].iter().enumerate() {
        cli_session(state.path(), &format!("cli-{i}"), &ws, prompt);
    }
    cli_session(state.path(), "elsewhere", std::path::Path::new("/"), "x");

    let r = e.call("history-list", json!({"agent": "listing"}));
    assert_eq!(r["ok"], true, "{r}");
    let d = &r["data"];
    assert_eq!(d["conversations"].as_array().unwrap().len(), 1, "{d}");
    assert_eq!(
        ids(&d["agent_sessions"]),
        ["agent:cli-0", "agent:cli-1", "agent:cli-2"],
        "{d}"
    );
    let second = d["agent_sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "agent:cli-1")
        .unwrap();
    assert_eq!(second["title"], "second cli");
    assert_eq!(second["agent"], "listing");

    // Taken up: the agent remembers it, and it is radium's conversation now.
    let r = e.call(
        "session-new",
        json!({"agent": "listing", "resume": "agent:cli-1"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["resumed"], "resume", "{r}");
    let s = r["data"]["session"].as_str().unwrap().to_owned();
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "remember", "wait": true}),
    );
    assert_eq!(
        r["data"]["text"], "I remember: second cli; earlier turns given as context: 0",
        "{r}"
    );
    e.call("session-close", json!({"session": s}));
    let r = e.call("history-list", json!({"agent": "listing"}));
    let d = &r["data"];
    assert_eq!(d["conversations"].as_array().unwrap().len(), 2, "{d}");
    assert_eq!(
        ids(&d["agent_sessions"]),
        ["agent:cli-0", "agent:cli-2"],
        "{d}"
    );
}

#[test]
fn bad_agent_session_requests_say_what_is_wrong() {
    let state = tempfile::tempdir().unwrap();
    let e = listing_env(state.path());
    // An agent without session/list: none listed, and a warning says why.
    let r = e.call("history-list", json!({"agent": "example"}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["agent_sessions"], json!([]));
    let warnings = r["data"]["warnings"].to_string();
    assert!(warnings.contains("does not list its sessions"), "{r}");
    let r = e.call("history-list", json!({"agent": "nope"}));
    assert_eq!(r["ok"], false, "{r}");
    assert!(r["error"].as_str().unwrap().contains("nope"), "{r}");
    let r = e.call("history-list", json!({"agent": 3}));
    assert_eq!(r["code"], "invalid_argument", "{r}");
    // An empty agent session id; one the agent does not know.
    let r = e.call(
        "session-new",
        json!({"agent": "listing", "resume": "agent:"}),
    );
    assert_eq!(r["code"], "invalid_argument", "{r}");
    assert!(r["error"]
        .as_str()
        .unwrap()
        .contains("does not name one of the agent's sessions"));
    let r = e.call(
        "session-new",
        json!({"agent": "listing", "resume": "agent:never-was"}),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("could not take up its session `never-was`"),
        "{r}"
    );
    // An agent that cannot resume at all.
    let r = e.call(
        "session-new",
        json!({"agent": "example", "resume": "agent:cli-0"}),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("offers neither"),
        "{r}"
    );
}
