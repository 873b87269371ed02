//! `rad acp` passes what it does not rewrite byte for byte, both ways: the
//! agent's notifications reach the editor, the editor's notifications and
//! the params of its requests reach the agent, and the agent's results of
//! those requests reach the editor, with their spacing, key order, number
//! forms, unicode escapes and `_meta` as they were sent.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

use serde_json::Value;

/// An agent that logs every line it gets, answers the start, and sends
/// `ODD_UPDATE` and `ODD_NOTICE` during a turn.
const AGENT: &str = r#"
import { createInterface } from 'node:readline'
import { appendFileSync } from 'node:fs'
const log = process.argv[2]
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n')
createInterface({ input: process.stdin }).on('line', (line) => {
  appendFileSync(log, line + '\n')
  const m = JSON.parse(line)
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } })
  else if (m.method === 'session/new') send({ id: m.id, result: { sessionId: 's1' } })
  else if (m.method === 'session/prompt') {
    process.stdout.write(process.env.ODD_UPDATE + '\n')
    process.stdout.write(process.env.ODD_NOTICE + '\n')
    send({ id: m.id, result: { stopReason: 'end_turn' } })
  } else if (m.method === '_odd/echo') process.stdout.write('{"id":' + m.id + ', "jsonrpc":"2.0","result":' + process.env.ODD_RESULT + '}\n')
  else if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: 'no such method' } })
})
"#;

/// The agent's answer to the editor's request radium does not serve.
const ODD_RESULT: &str = r#"{ "got" :true,"b":[1.0,1e1],"a":"\u00fc","_meta":{"z":0}}"#;

/// An update whose bytes a parse and a serialisation would change.
const ODD_UPDATE: &str = r#"{ "params" :{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"caf\u00e9 \ud83d\ude00 \/ 1"}},"sessionId":"s1","_meta":{"z":1.0,"a":[2e3, -0.0],"ünï":"ok"}},   "method":"session/update","jsonrpc":"2.0"}"#;

/// A notification radium knows nothing of.
const ODD_NOTICE: &str =
    r#"{"method":"_odd/notice","jsonrpc":"2.0","params":{"b":1,"a":"\u0041","_meta":{"x":[ ]}}}"#;

/// The editor's notification, and the params of its request.
const EDITOR_NOTICE: &str = r#"{"jsonrpc":"2.0","method":"_odd/note","params":{"sessionId":"s1", "z":1E2,"a":"\u00e9","_meta":{}}}"#;
const EDITOR_PARAMS: &str =
    r#"{ "sessionId" : "s1","zeta":[1.50, 2],"alpha":"\ud83d\ude00","_meta":{"k":null} }"#;

#[test]
fn lines_radium_does_not_rewrite_pass_byte_for_byte_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let script = dir.path().join("agent.mjs");
    let log = dir.path().join("got.log");
    std::fs::write(&script, AGENT).unwrap();
    std::fs::write(
        home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"odd\"\nprotocol = \"acp\"\ncommand = [\"node\", {:?}, {:?}]\n",
            script.display().to_string(),
            log.display().to_string()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(["acp", "odd"])
        .current_dir(&ws)
        .env("RADIUM_HOME", &home)
        .env("ODD_UPDATE", ODD_UPDATE)
        .env("ODD_NOTICE", ODD_NOTICE)
        .env("ODD_RESULT", ODD_RESULT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut say = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    };
    // The lines up to the answer to `id`, as they came.
    let mut until = |id: u64| -> Vec<String> {
        let mut got = Vec::new();
        loop {
            let line = lines.next().unwrap().unwrap();
            let m: Value = serde_json::from_str(&line).unwrap();
            let done = m["id"] == id && m.get("method").is_none();
            got.push(line);
            if done {
                return got;
            }
        }
    };
    say(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#);
    until(1);
    let new = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"session/new","params":{{"cwd":{:?},"mcpServers":[]}}}}"#,
        ws.display().to_string()
    );
    say(&new);
    until(2);
    say(
        r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}"#,
    );
    let turn = until(3);
    assert!(turn.iter().any(|l| l == ODD_UPDATE), "{turn:#?}");
    assert!(turn.iter().any(|l| l == ODD_NOTICE), "{turn:#?}");
    // The other way: a notification, and a request radium does not serve.
    say(EDITOR_NOTICE);
    say(&format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"_odd/echo","params":{EDITOR_PARAMS}}}"#
    ));
    let answer = until(4).pop().unwrap();
    assert_eq!(
        answer,
        format!(r#"{{"jsonrpc":"2.0","id":4,"result":{ODD_RESULT}}}"#)
    );
    let got = std::fs::read_to_string(&log).unwrap();
    assert!(got.lines().any(|l| l == EDITOR_NOTICE), "{got}");
    let echo = got.lines().find(|l| l.contains("_odd/echo")).unwrap();
    assert!(
        echo.ends_with(&format!(r#""params":{EDITOR_PARAMS}}}"#)),
        "{echo}"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
