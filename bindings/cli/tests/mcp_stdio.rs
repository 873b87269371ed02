//! `rad mcp` answers every line a client sends, as a real process on pipes:
//! a line over 16 MiB, one that is not UTF-8, JSON nested 100,000 deep and a
//! line that is not JSON each get a JSON-RPC error with the request's id,
//! and the server goes on serving; huge names and tags are never echoed whole.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

struct Server {
    _dir: tempfile::TempDir,
    child: Child,
    input: ChildStdin,
    answers: mpsc::Receiver<Value>,
}

impl Server {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("a.txt"), "one\n").unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
            .arg("mcp")
            .env("RADIUM_HOME", dir.path().join("home"))
            .current_dir(&ws)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { return };
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON from rad mcp ({e}): {line}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut server = Server {
            _dir: dir,
            child,
            input,
            answers,
        };
        server.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        );
        let init = server.answer();
        assert_eq!(init["id"], 1, "{init}");
        assert_eq!(init["result"]["serverInfo"]["name"], "radium", "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        self.raw(format!("{message}\n").as_bytes());
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.input.write_all(bytes).unwrap();
        self.input.flush().unwrap();
    }

    /// The next message from the server; generous for a loaded machine.
    fn answer(&self) -> Value {
        self.answers
            .recv_timeout(Duration::from_secs(60))
            .expect("rad mcp gave no answer")
    }

    fn call(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
        let answer = self.answer();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_of(answer: &Value, id: Value, code: i64) -> String {
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
    answer["error"]["message"].as_str().unwrap().to_owned()
}

#[test]
fn every_bad_line_gets_an_error_with_its_id_and_the_server_goes_on() {
    let mut s = Server::start();

    // Over 16 MiB: the id is found at the start of the line.
    let big = "x".repeat(17 << 20);
    s.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "view", "arguments": {"path": big}}}));
    let message = error_of(&s.answer(), json!(7), -32600);
    assert!(
        message.contains("over the limit of 16777216 bytes"),
        "{message}"
    );

    // Over the limit with the id last.
    let mut line = format!(
        r#"{{"jsonrpc": "2.0", "method": "tools/call", "params": {{"name": "{big}"}}, "id": "late""#
    );
    line.push_str("}\n");
    s.raw(line.as_bytes());
    error_of(&s.answer(), json!("late"), -32600);

    // Not UTF-8.
    let mut line = br#"{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "view", "arguments": {"path": ""#.to_vec();
    line.extend_from_slice(b"\xff\xfe\"}}}\n");
    s.raw(&line);
    let message = error_of(&s.answer(), json!(8), -32700);
    assert!(message.contains("not UTF-8"), "{message}");

    // JSON nested 100,000 deep.
    let deep = format!(
        r#"{{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    s.raw(format!("{deep}\n").as_bytes());
    let message = error_of(&s.answer(), json!(9), -32700);
    assert!(message.contains("nested deeper"), "{message}");

    // Not JSON at all, no id to find.
    s.raw(b"this is not json\n");
    let message = error_of(&s.answer(), Value::Null, -32700);
    assert!(message.contains("not JSON"), "{message}");

    // Still serving.
    let view = s.call(10, "view", json!({"path": "a.txt"}));
    let text = view["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("one"), "{view}");
}

#[test]
fn a_huge_tool_name_or_tag_is_never_echoed_whole() {
    let mut s = Server::start();
    let huge = "n".repeat(10 << 20);
    let answer = s.call(2, &huge, json!({}));
    let text = answer.to_string();
    assert!(text.len() < 10_000, "an answer of {} bytes", text.len());
    assert!(
        text.contains("unknown tool"),
        "{}",
        &text[..text.len().min(500)]
    );

    let answer = s.call(3, "rewind", json!({"tag": huge}));
    let text = answer.to_string();
    assert!(text.len() < 20_000, "an answer of {} bytes", text.len());
    assert_eq!(
        answer["result"]["isError"],
        true,
        "{}",
        &text[..text.len().min(500)]
    );
}
