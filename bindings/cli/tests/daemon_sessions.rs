//! An agent session through the daemon's socket: one connection opens and
//! prompts the session and answers its permission, another carries the
//! session's events as frames while the turn runs (`session-subscribe`).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;
use common::{agent_home, AgentHome};

struct Client(UnixStream);

impl Client {
    fn connect(socket: &Path) -> Client {
        let s = UnixStream::connect(socket).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        Client(s)
    }
    fn send(&mut self, request: &Value) {
        let body = request.to_string();
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(body.as_bytes());
        self.0.write_all(&frame).unwrap();
    }
    fn read(&mut self) -> Value {
        let mut len = [0u8; 4];
        self.0.read_exact(&mut len).unwrap();
        let mut buf = vec![0u8; u32::from_be_bytes(len) as usize];
        self.0.read_exact(&mut buf).unwrap();
        serde_json::from_slice(&buf).unwrap()
    }
    fn call(&mut self, request: Value) -> Value {
        self.send(&request);
        self.read()
    }
}

#[test]
fn a_session_streams_its_events_over_the_daemon_socket() {
    let AgentHome {
        dir: _dir,
        ws,
        home,
    } = agent_home();
    std::fs::write(ws.join("notes.txt"), "old\n").unwrap();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(["daemon", "--idle", "30"])
        .env("RADIUM_HOME", &home)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let socket = home.join("daemon.sock");
    let started = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        assert!(started.elapsed() < Duration::from_secs(5), "no daemon");
        std::thread::sleep(Duration::from_millis(20));
    }

    let mut control = Client::connect(&socket);
    let cwd = ws.to_string_lossy().into_owned();
    let opened =
        control.call(json!({"command": "session-new", "args": {"agent": "example"}, "cwd": cwd}));
    assert_eq!(opened["ok"], true, "{opened}");
    let session = opened["data"]["session"].as_str().unwrap().to_owned();

    // Bad input first: a subscription without a session, or to an unknown one.
    let mut events = Client::connect(&socket);
    let bad = events.call(json!({"command": "session-subscribe", "args": {}}));
    assert_eq!(bad["code"], "invalid_argument", "{bad}");
    assert!(bad["error"]
        .as_str()
        .unwrap()
        .contains("missing argument `session`"));
    let bad = events.call(json!({"command": "session-subscribe", "args": {"session": "s9"}}));
    assert!(
        bad["error"].as_str().unwrap().contains("no session `s9`"),
        "{bad}"
    );

    // The same connection then streams the session's events.
    events.send(&json!({"command": "session-subscribe", "args": {"session": session}}));
    let started = control.call(json!({"command": "session-prompt",
        "args": {"session": session, "prompt": "write notes.txt through the daemon"}}));
    assert_eq!(started["data"]["running"], true, "{started}");
    let mut seen = Vec::new();
    'turn: loop {
        let frame = events.read();
        assert_eq!(frame["ok"], true, "{frame}");
        for event in frame["data"]["events"].as_array().unwrap() {
            seen.push(event.clone());
            if event["type"] == "permission" {
                let a = control.call(json!({"command": "session-permission",
                    "args": {"session": session, "id": event["id"], "answer": "allow"}}));
                assert_eq!(a["ok"], true, "{a}");
            }
            if event["type"] == "turn_end" || event["type"] == "error" {
                break 'turn;
            }
        }
    }
    let end = seen.last().unwrap();
    assert_eq!(end["type"], "turn_end", "{seen:?}");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "through the daemon\n"
    );
    assert!(seen.iter().any(|e| e["type"] == "text"));

    // Closing the session ends the stream with `ended`, and the connection
    // takes requests again.
    let closed = control.call(json!({"command": "session-close", "args": {"session": session}}));
    assert_eq!(closed["ok"], true, "{closed}");
    let last = events.read();
    assert_eq!(last["data"]["ended"], true, "{last}");
    let pong = events.call(json!({"command": "ping"}));
    assert_eq!(pong["ok"], true, "{pong}");

    let _ = control.call(json!({"command": "shutdown"}));
    let _ = daemon.wait();
}
