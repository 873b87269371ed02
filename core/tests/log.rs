//! The engine's log through the request door: what acts and what fails is
//! written, `log` reads it back from a number on, at a level; an agent's
//! start, stderr and end; the listeners; bad arguments.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::sync::{Arc, Mutex};

use radium_core::{Engine, EngineConfig, LogEntry};
use serde_json::{json, Value};

fn engine(ws: &std::path::Path, home: &std::path::Path) -> Engine {
    Engine::new(EngineConfig {
        workspace: Some(ws.to_owned()),
        radium_home: Some(home.to_owned()),
        ..EngineConfig::default()
    })
    .unwrap()
}

fn call(e: &Engine, request: Value) -> Value {
    e.handle_json(request).to_json()
}

fn messages(entries: &Value) -> Vec<String> {
    entries["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            format!(
                "{} {} {}",
                x["level"].as_str().unwrap(),
                x["source"].as_str().unwrap(),
                x["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn failures_and_edits_are_written_and_read_back_from_a_number_on() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let e = engine(&ws, &home);
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let store = Arc::clone(&seen);
    e.log().subscribe(Arc::new(move |entry: &LogEntry| {
        store.lock().unwrap().push(entry.message.clone())
    }));

    call(&e, json!({"command": "ping"}));
    call(
        &e,
        json!({"command": "view", "args": {"path": "missing.txt"}}),
    );
    let created = call(
        &e,
        json!({"command": "create", "args": {"path": "a.txt", "content": "hi\n"}}),
    );
    assert_eq!(created["ok"], true, "{created}");
    let r = call(&e, json!({"command": "log"}));
    assert_eq!(r["ok"], true, "{r}");
    let lines = messages(&r["data"]);
    assert_eq!(
        lines.len(),
        2,
        "ping is not written; the failed view and the create are: {lines:?}"
    );
    assert!(
        lines[0].starts_with("warn request view failed after "),
        "{lines:?}"
    );
    assert!(
        lines[0].contains("(not_found)") || lines[0].contains("failed"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("info request create done in "),
        "{lines:?}"
    );
    assert!(
        lines[1].contains(", tag "),
        "the tag it answered: {lines:?}"
    );
    let next = r["data"]["next"].as_u64().unwrap();
    assert_eq!(next, 2);
    // From a number on, and at a level.
    call(&e, json!({"command": "undo"}));
    let later = call(&e, json!({"command": "log", "args": {"since": next}}));
    assert_eq!(messages(&later["data"]).len(), 1, "{later}");
    let warns = call(&e, json!({"command": "log", "args": {"level": "warn"}}));
    assert_eq!(messages(&warns["data"]).len(), 1, "{warns}");
    assert_eq!(seen.lock().unwrap().len(), 3, "the listener got each entry");
    // Bad arguments name the problem.
    let bad = call(&e, json!({"command": "log", "args": {"since": -1}}));
    assert_eq!(bad["code"], "invalid_argument", "{bad}");
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("`since` must be a non-negative integer"),
        "{bad}"
    );
    let bad = call(&e, json!({"command": "log", "args": {"level": "loud"}}));
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("`level` must be `debug`, `info` or `warn`, got `loud`"),
        "{bad}"
    );
    let bad = call(&e, json!({"command": "log", "args": {"level": 3}}));
    assert_eq!(bad["code"], "invalid_argument", "{bad}");
}

#[test]
fn an_agent_s_start_stderr_and_end_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let script = home.join("agent.sh");
    // Says one line on stderr, then answers `initialize` and `session/new`
    // and exits when its input ends.
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'warming up the model' >&2\nwhile read -r line; do\n  id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\([0-9]*\\).*/\\1/p')\n  case \"$line\" in\n    *'\"initialize\"'*) echo '{\"jsonrpc\":\"2.0\",\"id\":'$id',\"result\":{\"protocolVersion\":1}}' ;;\n    *'\"session/new\"'*) echo '{\"jsonrpc\":\"2.0\",\"id\":'$id',\"result\":{\"sessionId\":\"x\"}}'; echo 'not json at all'; exit 3 ;;\n  esac\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::write(
        home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"shy\"\nprotocol = \"acp\"\ncommand = [\"{}\"]\n",
            script.display()
        ),
    )
    .unwrap();
    let e = engine(&ws, &home);
    let opened = call(
        &e,
        json!({"command": "session-new", "args": {"agent": "shy"}}),
    );
    assert_eq!(opened["ok"], true, "{opened}");
    let mut lines = Vec::new();
    for _ in 0..200 {
        lines = messages(&call(&e, json!({"command": "log"}))["data"]);
        if lines.iter().any(|l| l.contains("exited with code 3")) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let all = lines.join("\n");
    assert!(
        all.contains("debug session s1 (shy) stderr: warming up the model"),
        "{all}"
    );
    assert!(all.contains("info session s1: agent `shy` ("), "{all}");
    assert!(all.contains("warn session s1: the agent sent a line that is not JSON-RPC (ignored): not json at all"), "{all}");
    assert!(
        all.contains("warn session s1: agent `shy` exited with code 3"),
        "{all}"
    );
    assert!(all.contains("info request session-new done in "), "{all}");
}

#[test]
fn huge_unknown_command_names_and_messages_are_kept_short() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
    std::fs::create_dir_all(&ws).unwrap();
    let e = engine(&ws, &home);
    let huge = "é".repeat(5 << 20); // 10 MB of two-byte characters
    for _ in 0..30 {
        let answer = call(&e, json!({"command": huge}));
        assert_eq!(
            answer["code"],
            "unknown_command",
            "{}",
            &answer.to_string()[..200]
        );
        assert!(
            answer["error"].as_str().unwrap().len() <= radium_core::protocol::MAX_ERROR_MESSAGE
        );
    }
    // A long message written by any part is cut too, at a character boundary.
    e.log()
        .write(radium_core::LogLevel::Warn, "test", "ü".repeat(100_000));
    let entries = call(&e, json!({"command": "log", "args": {"since": 0}}));
    let all = messages(&entries["data"]);
    assert_eq!(
        all.len(),
        31,
        "{:?}",
        all.iter().map(|m| &m[..60]).collect::<Vec<_>>()
    );
    for message in &all {
        assert!(message.len() <= 4200, "an entry of {} bytes", message.len());
    }
    assert!(all[0].contains("… ("), "{}", &all[0][..200]);
    assert!(
        all[30].ends_with("more bytes)"),
        "{}",
        &all[30][all[30].len() - 80..]
    );
}
