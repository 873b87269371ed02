//! Agent sessions with the example ACP agent (examples/acp-agent, a real
//! process speaking ACP v1 over its stdio), through the JSON request door.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

mod agent_sessions;
mod agent_tools;
mod commands;
mod history;
mod history_lock;
mod hunks;
mod images;
mod memory;
mod options;
mod recover;
mod sign_in;
mod slash;
mod start_notices;
mod turns;
mod unruly;
mod user_mcp;

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType};
use serde_json::{json, Value};

struct Env {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    engine: Engine,
}

fn agent_script() -> String {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.join("../examples/acp-agent/agent.mjs")
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// An engine whose user `agents.toml` has the example agent as `example`,
/// plus `extra` TOML.
fn env_with(extra: &str) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let script = agent_script();
    std::fs::write(
        home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\"]\n\n\
             [[agents]]\nid = \"plain\"\ncommand = [\"cat\"]\n\n{extra}"
        ),
    )
    .unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.clone()),
        radium_home: Some(home),
        ..EngineConfig::default()
    })
    .unwrap();
    Env {
        _dir: dir,
        ws,
        engine,
    }
}

fn env() -> Env {
    env_with("")
}

impl Env {
    fn call(&self, command: &str, args: Value) -> Value {
        self.engine
            .handle_json(json!({"command": command, "args": args}))
            .to_json()
    }
    /// `undo` with `tag`, through the request door.
    fn undo(&self, tag: &str) -> Value {
        self.engine
            .handle_json(json!({"command": "undo", "tag": tag}))
            .to_json()
    }
    fn open(&self, agent: &str) -> String {
        let r = self.call("session-new", json!({"agent": agent}));
        assert_eq!(r["ok"], true, "{r}");
        r["data"]["session"].as_str().unwrap().to_owned()
    }
    /// Polls `session-events` until the turn's last event, answering
    /// permission requests with `answer`.
    fn drain(&self, session: &str, answer: Option<&str>) -> Vec<Value> {
        let started = Instant::now();
        let mut all = Vec::new();
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the turn did not end: {all:?}"
            );
            let r = self.call(
                "session-events",
                json!({"session": session, "wait_ms": 500}),
            );
            assert_eq!(r["ok"], true, "{r}");
            for event in r["data"]["events"].as_array().unwrap() {
                if event["type"] == "permission" {
                    if let Some(answer) = answer {
                        let a = self.call(
                            "session-permission",
                            json!({"session": session, "id": event["id"], "answer": answer}),
                        );
                        assert_eq!(a["ok"], true, "{a}");
                    }
                }
                all.push(event.clone());
                if event["type"] == "turn_end" || event["type"] == "error" {
                    return all;
                }
            }
        }
    }
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn a_turn_streams_text_and_ends_with_the_whole_answer() {
    let e = env();
    let s = e.open("example");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "hello there", "wait": true,
               "context": {"file_path": "/w/a.rs", "selection": "fn a() {}", "selection_range": {"start_line": 3, "end_line": 3}}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["stop_reason"], "end_turn");
    assert_eq!(
        r["data"]["text"],
        "You said: hello there\nContext: file:///w/a.rs#L3-L3"
    );
    let events = r["data"]["events"].as_array().unwrap();
    assert!(
        of_type(events, "text").len() >= 2,
        "streamed in chunks: {events:?}"
    );
    // A second turn in the same session, and the list.
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "think", "wait": true}),
    );
    let events = r["data"]["events"].as_array().unwrap();
    assert_eq!(of_type(events, "thought")[0]["text"], "Thinking it over.");
    let list = e.call("session-list", json!({}));
    assert_eq!(list["data"][0]["session"], s);
    assert_eq!(list["data"][0]["agent"], "example");
    assert_eq!(list["data"][0]["busy"], false);
}

#[test]
fn a_write_asks_permission_is_recorded_and_undone() {
    let e = env();
    std::fs::write(e.ws.join("notes.txt"), "old\n").unwrap();
    let s = e.open("example");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "write notes.txt new text"}),
    );
    assert_eq!(r["data"]["running"], true, "{r}");
    let events = e.drain(&s, Some("allow"));
    let asked = of_type(&events, "permission");
    assert_eq!(asked.len(), 1, "{events:?}");
    let diff = &asked[0]["tool_call"]["diffs"][0];
    assert_eq!(diff["old_text"], "old\n");
    assert_eq!(diff["new_text"], "new text\n");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "new text\n"
    );
    let write = of_type(&events, "write")[0];
    let tag = write["tag"].as_str().unwrap();
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end");
    assert_eq!(end["tag"], tag);
    // The agent's write is an edit like any other: undo takes it back.
    let undo = e.undo(tag);
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "old\n"
    );
}

#[test]
fn hooks_and_radium_decide_permissions_before_the_door() {
    let e = env();
    e.engine
        .registry()
        .register(FnHook::new("no-secrets", HookType::BeforeTool, |ctx| {
            let title = ctx.data["tool_name"].as_str().unwrap_or_default();
            if title.contains(".env") {
                return Ok(HookResult::stop("secrets stay untouched"));
            }
            Ok(HookResult::success())
        }))
        .unwrap();
    let s = e.open("example");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "write .env KEY=1"}),
    );
    let events = e.drain(&s, Some("allow"));
    let decided = of_type(&events, "permission_decided");
    assert_eq!(decided[0]["allowed"], false);
    assert_eq!(decided[0]["by"], "hook:no-secrets");
    assert!(
        of_type(&events, "permission").is_empty(),
        "nobody was asked"
    );
    assert!(!e.ws.join(".env").exists());

    // Outside the workspace: radium rejects it itself.
    e.call("session-prompt", json!({"session": s, "prompt": "escape"}));
    let events = e.drain(&s, Some("allow"));
    let decided = of_type(&events, "permission_decided");
    assert_eq!(decided[0]["by"], "radium", "{events:?}");
    assert!(decided[0]["reason"]
        .as_str()
        .unwrap()
        .contains("outside the project"));
    let end = events.last().unwrap();
    assert!(
        end["text"].as_str().unwrap().contains("not allowed"),
        "{end}"
    );
}

#[test]
fn the_door_can_reject_and_cancel() {
    let e = env();
    let s = e.open("example");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "write a.txt hi"}),
    );
    let events = e.drain(&s, Some("reject"));
    assert!(!e.ws.join("a.txt").exists());
    assert!(events.last().unwrap()["text"]
        .as_str()
        .unwrap()
        .contains("not allowed"));
    // A turn in flight is cancelled.
    e.call("session-prompt", json!({"session": s, "prompt": "slow"}));
    let busy = e.call("session-prompt", json!({"session": s, "prompt": "again"}));
    assert_eq!(busy["code"], "invalid_argument", "{busy}");
    std::thread::sleep(Duration::from_millis(300));
    let c = e.call("session-cancel", json!({"session": s}));
    assert_eq!(c["ok"], true, "{c}");
    let events = e.drain(&s, None);
    assert_eq!(
        events.last().unwrap()["stop_reason"],
        "cancelled",
        "{events:?}"
    );
    assert!(of_type(&events, "text").len() < 50);
}

#[test]
fn an_agent_that_misbehaves_gets_a_clear_error() {
    let e = env_with(
        "[[agents]]\nid = \"mute\"\nprotocol = \"acp\"\nstart_timeout = \"500ms\"\n\
         command = [\"node\", \"AGENT\", \"--hang-initialize\"]\n\n\
         [[agents]]\nid = \"quiet\"\nprotocol = \"acp\"\nsilence_timeout = \"500ms\"\n\
         command = [\"node\", \"AGENT\"]\n\n\
         [[agents]]\nid = \"missing\"\nprotocol = \"acp\"\ncommand = [\"/nonexistent/agent\"]\n"
            .replace("AGENT", &agent_script())
            .as_str(),
    );
    let r = e.call("session-new", json!({"agent": "mute"}));
    assert_eq!(r["code"], "agent_timeout", "{r}");
    assert!(r["error"]
        .as_str()
        .unwrap()
        .contains("did not answer `initialize` within 500 ms"));
    let r = e.call("session-new", json!({"agent": "missing"}));
    assert_eq!(r["code"], "agent_failed", "{r}");
    let r = e.call("session-new", json!({"agent": "nobody"}));
    assert_eq!(r["code"], "unknown_agent", "{r}");
    // A command agent (`cat`) is a session too: its answer is its input.
    let plain = e.open("plain");
    let r = e.call(
        "session-prompt",
        json!({"session": plain, "prompt": "hi", "wait": true}),
    );
    assert!(
        r["data"]["text"]
            .as_str()
            .unwrap()
            .contains(r#""messages":[{"content":"hi","role":"user"}]"#),
        "{r}"
    );

    let s = e.open("quiet");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "hang", "wait": true}),
    );
    assert_eq!(r["code"], "agent_timeout", "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("sent nothing for 500 ms"),
        "{r}"
    );

    let s = e.open("example");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "garbage", "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let notices = of_type(r["data"]["events"].as_array().unwrap(), "notice")
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    assert!(notices[0]["message"]
        .as_str()
        .unwrap()
        .contains("this is not json"));
    // A line nested deeper than MAX_JSON_DEPTH is refused as garbage too.
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "deep", "wait": true}),
    );
    assert_eq!(r["data"]["text"], "Still here.", "{r}");
    let notices = of_type(r["data"]["events"].as_array().unwrap(), "notice");
    let message = notices[0]["message"].as_str().unwrap();
    assert!(
        message.contains("not JSON-RPC") && message.contains("[[[["),
        "{r}"
    );
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "badutf8", "wait": true}),
    );
    assert_eq!(r["data"]["text"], "caf\u{fffd}", "{r}");
    let notices = of_type(r["data"]["events"].as_array().unwrap(), "notice");
    assert!(
        notices[0]["message"]
            .as_str()
            .unwrap()
            .contains("not UTF-8"),
        "{r}"
    );
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "big", "wait": true}),
    );
    assert_eq!(r["data"]["text"].as_str().unwrap().len(), 10 << 20);
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "crash", "wait": true}),
    );
    assert_eq!(r["code"], "agent_failed", "{r}");
    let message = r["error"].as_str().unwrap();
    assert!(
        message.contains("mid-turn") && message.contains("the model went away"),
        "{message}"
    );
    let again = e.call("session-prompt", json!({"session": s, "prompt": "hello"}));
    assert_eq!(again["code"], "agent_failed", "{again}");
}

#[test]
fn bad_session_requests_name_the_problem() {
    let e = env();
    let r = e.call("session-prompt", json!({"session": "s9", "prompt": "x"}));
    assert_eq!(r["code"], "invalid_argument");
    assert!(
        r["error"].as_str().unwrap().contains("no session `s9`"),
        "{r}"
    );
    let s = e.open("example");
    let r = e.call("session-prompt", json!({"session": s}));
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("missing argument `prompt`"),
        "{r}"
    );
    let r = e.call("session-prompt", json!({"session": s, "prompt": 3}));
    assert!(r["error"].as_str().unwrap().contains("got a number"), "{r}");
    let r = e.call("session-events", json!({"session": s, "wait_ms": "soon"}));
    assert_eq!(r["code"], "invalid_argument", "{r}");
    let r = e.call(
        "session-permission",
        json!({"session": s, "id": "p7", "answer": "allow"}),
    );
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("no permission request `p7`"),
        "{r}"
    );
    let r = e.call("session-close", json!({"session": s}));
    assert_eq!(r["ok"], true);
    assert_eq!(e.call("session-list", json!({}))["data"], json!([]));
    let r = e.call("session-close", json!({"session": s}));
    assert_eq!(r["code"], "invalid_argument");
}
