//! Sessions that recover: a start that fails says why (the agent's error
//! `data`, the end of its stderr, a hint for a known cause), `agents-check`
//! starts each agent and reports it, and a stale answer after a cancel (the
//! next prompt ended at once, every later answer one prompt late) is noticed
//! and repaired (tests/agents/unruly-agent.mjs's `UNRULY_STALE`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{env_with, of_type, Env};

fn unruly_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/agents/unruly-agent.mjs")
        .canonicalize()
        .unwrap()
}

/// An `[[agents]]` entry running `script` with `env` (TOML inline table).
fn agent(id: &str, script: &Path, env: &str) -> String {
    format!(
        "[[agents]]\nid = \"{id}\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\"]\nenv = {env}\n\n",
        script.display()
    )
}

/// The unruly agent copied where Claude Code's adapter lives
/// (`.../claude-agent-acp/dist/index.mjs`), so radium takes it for that adapter.
fn as_claude_adapter(dir: &Path) -> PathBuf {
    let folder = dir.join("node_modules/claude-agent-acp/dist");
    std::fs::create_dir_all(&folder).unwrap();
    let copy = folder.join("index.mjs");
    std::fs::copy(unruly_script(), &copy).unwrap();
    copy
}

fn message(r: &Value) -> String {
    r["error"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_refused_start_says_the_agents_reason_its_stderr_and_the_sandbox_hint() {
    let dir = tempfile::tempdir().unwrap();
    let claude = as_claude_adapter(dir.path());
    let details = "Query closed before response received";
    let e = env_with(&format!(
        "{}{}{}{}",
        agent(
            "claude1",
            &claude,
            &format!("{{ UNRULY_REFUSE_NEW = \"{details}\", IS_SANDBOX = \"1\" }}")
        ),
        agent(
            "claude",
            &claude,
            &format!("{{ UNRULY_REFUSE_NEW = \"{details}\", IS_SANDBOX = \"yes\" }}")
        ),
        agent(
            "other",
            &unruly_script(),
            &format!("{{ UNRULY_REFUSE_NEW = \"{details}\", IS_SANDBOX = \"yes\" }}")
        ),
        agent(
            "long",
            &unruly_script(),
            &format!("{{ UNRULY_REFUSE_NEW = \"{}\" }}", "x".repeat(5000))
        ),
    ));
    let r = e.call("session-new", json!({"agent": "claude"}));
    assert_eq!(r["ok"], false, "{r}");
    let m = message(&r);
    assert!(
        m.contains("agent `claude` refused `session/new`: Internal error (code -32603): Query closed before response received"),
        "{m}"
    );
    assert!(
        m.contains("its stderr ended with:\nunruly: starting the query\nunruly: the query closed"),
        "{m}"
    );
    assert!(m.contains("hint: IS_SANDBOX is set"), "{m}");
    // Another agent in the same environment gets the reason, not the hint.
    let r = e.call("session-new", json!({"agent": "other"}));
    let m = message(&r);
    assert!(
        m.contains(details) && m.contains("unruly: the query closed"),
        "{m}"
    );
    assert!(!m.contains("hint:"), "{m}");
    // IS_SANDBOX=1 is not the cause.
    let m = message(&e.call("session-new", json!({"agent": "claude1"})));
    assert!(m.contains(details) && !m.contains("hint:"), "{m}");
    // A long `data` is cut, and said to be.
    let r = e.call("session-new", json!({"agent": "long"}));
    let m = message(&r);
    assert!(
        m.contains(&format!(
            "{}…",
            "x".repeat(radium_core::sessions::MAX_ERROR_DATA)
        )),
        "{m}"
    );
    assert!(
        !m.contains(&"x".repeat(radium_core::sessions::MAX_ERROR_DATA + 1)),
        "{m}"
    );
}

#[test]
fn agents_check_starts_each_agent_and_names_what_failed() {
    let e = env_with(&agent(
        "broken",
        &unruly_script(),
        "{ UNRULY_REFUSE_NEW = \"the model is not set up\" }",
    ));
    let r = e.call(
        "agents-check",
        json!({"agents": ["example", "broken", "nobody"]}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let data = &r["data"];
    assert_eq!(data["ok"], false, "{r}");
    let agents = data["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 3);
    assert_eq!(agents[0], json!({"id": "example", "ok": true}));
    assert_eq!(agents[1]["ok"], false);
    assert!(
        agents[1]["error"]
            .as_str()
            .unwrap()
            .contains("the model is not set up"),
        "{r}"
    );
    assert_eq!(agents[2]["code"], "unknown_agent", "{r}");
    // The checked sessions are closed again.
    let list = e.call("session-list", Value::Null);
    assert_eq!(list["data"], json!([]), "{list}");
    // Only good agents: ok.
    let r = e.call("agents-check", json!({"agents": ["example"]}));
    assert_eq!(r["data"]["ok"], true, "{r}");
    // Bad arguments are named.
    for (args, says) in [
        (
            json!({"agents": "example"}),
            "`agents` must be a list of agent ids, not a string",
        ),
        (
            json!({"agents": [1]}),
            "`agents` must hold agent ids (strings), not a number",
        ),
        (json!([1]), "the arguments must be an object"),
    ] {
        let r = e.call("agents-check", args);
        assert_eq!(r["ok"], false, "{r}");
        assert_eq!(r["code"], "invalid_argument", "{r}");
        assert!(message(&r).contains(says), "{r}");
    }
    let many: Vec<String> = (0..=radium_core::MAX_CHECKED_AGENTS)
        .map(|i| format!("a{i}"))
        .collect();
    let r = e.call("agents-check", json!({ "agents": many }));
    assert!(message(&r).contains("at most"), "{r}");
}

impl Env {
    /// Starts a turn with `prompt`; its events up to its end. `cancel_on`:
    /// the turn is cancelled once a text event holding it came.
    fn prompt_events(&self, session: &str, prompt: &str, cancel_on: Option<&str>) -> Vec<Value> {
        let r = self.call(
            "session-prompt",
            json!({"session": session, "prompt": prompt}),
        );
        assert_eq!(r["ok"], true, "{r}");
        let started = Instant::now();
        let mut all: Vec<Value> = Vec::new();
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the turn did not end: {all:?}"
            );
            let r = self.call(
                "session-events",
                json!({"session": session, "wait_ms": 500}),
            );
            for event in r["data"]["events"].as_array().unwrap() {
                let hit = cancel_on.is_some_and(|c| {
                    event["type"] == "text" && event["text"].as_str().unwrap().contains(c)
                });
                if hit {
                    let c = self.call("session-cancel", json!({"session": session}));
                    assert_eq!(c["ok"], true, "{c}");
                }
                all.push(event.clone());
                if event["type"] == "turn_end" || event["type"] == "error" {
                    return all;
                }
            }
        }
    }
}

fn answer(events: &[Value]) -> (String, String) {
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end", "{events:?}");
    (
        end["stop_reason"].as_str().unwrap().to_owned(),
        end["text"].as_str().unwrap().to_owned(),
    )
}

fn notices(events: &[Value]) -> String {
    of_type(events, "notice")
        .iter()
        .map(|n| n["message"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A session with the unruly agent in `UNRULY_STALE` mode `mode`, whose
/// first turn was cancelled mid-answer.
fn after_a_cancel(mode: &str) -> (Env, String) {
    let e = env_with(&agent(
        "stale",
        &unruly_script(),
        &format!("{{ UNRULY_STALE = \"{mode}\" }}"),
    ));
    let s = e.open("stale");
    let events = e.prompt_events(&s, "slow one", Some("thinking about"));
    assert_eq!(answer(&events).0, "cancelled", "{events:?}");
    (e, s)
}

#[test]
fn the_answer_after_a_cancel_lands_under_its_prompt() {
    let (e, s) = after_a_cancel("resume");
    let events = e.prompt_events(&s, "two", None);
    assert_eq!(
        answer(&events),
        ("end_turn".to_owned(), "answer to: two".to_owned())
    );
    assert!(
        notices(&events).contains("radium restarted its session and sent the prompt again"),
        "{events:?}"
    );
    // And every later one too, with nothing more said.
    let events = e.prompt_events(&s, "three", None);
    assert_eq!(answer(&events).1, "answer to: three");
    assert_eq!(notices(&events), "");
}

#[test]
fn an_agent_that_cannot_be_repaired_has_the_stale_answer_said() {
    let (e, s) = after_a_cancel("plain");
    let events = e.prompt_events(&s, "two", None);
    assert_eq!(answer(&events), ("end_turn".to_owned(), String::new()));
    assert!(
        notices(&events).contains("its answers may now come one prompt late"),
        "{events:?}"
    );
    // This is the agent's fault radium repairs when it can: the next answer
    // is the one of the prompt before.
    let events = e.prompt_events(&s, "three", None);
    assert_eq!(answer(&events).1, "answer to: two");
}
