//! `rad acp`: the relay between an editor and an agent, spoken to in raw
//! JSON-RPC lines (tests/acp-proxy drives it with the official ACP SDK).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

mod common;
use common::{agent_home, err, out, AgentHome};

fn rad() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rad"))
}

/// `rad acp example` with its stdin and stdout lines.
struct Relay {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<BufReader<Box<dyn std::io::Read + Send>>>,
}

impl Relay {
    fn start(h: &AgentHome) -> Self {
        Self::start_with(h, false)
    }

    /// `rad acp example` whose stdout is a socket (as Node's editors give
    /// it), else a pipe.
    fn start_with(h: &AgentHome, socket: bool) -> Self {
        let (stdout, ours): (Stdio, Option<Box<dyn std::io::Read + Send>>) = if socket {
            let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
            (
                Stdio::from(std::os::fd::OwnedFd::from(theirs)),
                Some(Box::new(ours)),
            )
        } else {
            (Stdio::piped(), None)
        };
        let mut child = rad()
            .args(["acp", "example"])
            .current_dir(&h.ws)
            .env("RADIUM_HOME", &h.home)
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let out = ours.unwrap_or_else(|| Box::new(child.stdout.take().unwrap()));
        let lines = BufReader::new(out).lines();
        Relay {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&mut self) -> Value {
        serde_json::from_str(&self.lines.next().unwrap().unwrap()).unwrap()
    }

    /// The messages until the answer to `id` (included).
    fn until_answer(&mut self, id: u64) -> Vec<Value> {
        let mut got = Vec::new();
        loop {
            let m = self.next();
            let done = m["id"] == id && m.get("method").is_none();
            got.push(m);
            if done {
                return got;
            }
        }
    }

    /// initialize and session/new; answers the session id.
    fn open(&mut self, h: &AgentHome) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}));
        let init = self.until_answer(1).pop().unwrap();
        assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
        assert!(
            init["result"]["_meta"]["radium"]["version"].is_string(),
            "{init}"
        );
        self.send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": h.ws, "mcpServers": []}}));
        self.until_answer(2).pop().unwrap()["result"]["sessionId"].clone()
    }
}

#[test]
fn a_turn_relays_the_agents_updates_unchanged_and_its_end_answers_the_prompt() {
    let h = agent_home();
    let mut r = Relay::start(&h);
    let session = r.open(&h);
    r.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "write x.txt hi"}]}}),
    );
    // The permission request reaches the editor as the agent sent it.
    let asked = loop {
        let m = r.next();
        if m["method"] == "session/request_permission" {
            break m;
        }
    };
    assert_eq!(asked["params"]["sessionId"], session);
    assert_eq!(asked["params"]["toolCall"]["rawInput"]["content"], "hi\n");
    r.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}));
    let got = r.until_answer(3);
    assert_eq!(got.last().unwrap()["result"]["stopReason"], "end_turn");
    let updates: Vec<&Value> = got
        .iter()
        .filter(|m| m["method"] == "session/update")
        .collect();
    assert!(
        updates
            .iter()
            .any(|u| u["params"]["update"]["sessionUpdate"] == "tool_call_update"),
        "{got:?}"
    );
    assert_eq!(std::fs::read_to_string(h.ws.join("x.txt")).unwrap(), "hi\n");
    drop(r.stdin.take());
    assert!(r.child.wait().unwrap().success());
}

#[test]
fn a_line_that_is_not_json_and_a_message_with_no_method_get_errors_and_the_relay_goes_on() {
    let h = agent_home();
    let mut child = rad()
        .args(["acp", "example"])
        .current_dir(&h.ws)
        .env("RADIUM_HOME", &h.home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "this is not json").unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":99,"result":null}}"#).unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":3}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{{"sessionId":"none","prompt":[]}}}}"#
    )
    .unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let lines: Vec<Value> = out(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["error"]["code"], -32700);
    assert_eq!(lines[0]["id"], Value::Null);
    assert_eq!(lines[1]["id"], 3);
    assert_eq!(lines[1]["error"]["code"], -32600);
    assert_eq!(lines[2]["id"], 4);
    assert!(lines[2]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("before `initialize`"));
    assert!(
        err(&o).contains("answered a request radium never sent"),
        "{}",
        err(&o)
    );
}

#[test]
fn an_unknown_agent_fails_initialize_with_the_reason() {
    let h = agent_home();
    let mut child = rad()
        .args(["acp", "nosuch"])
        .current_dir(&h.ws)
        .env("RADIUM_HOME", &h.home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":1}}}}"#
    )
    .unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let first: Value = serde_json::from_str(out(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["id"], 1);
    let message = first["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("nosuch") && message.contains("example"),
        "{message}"
    );
}

#[test]
fn list_prints_each_editors_setting_and_no_agent_is_a_usage_error() {
    let o = rad().args(["acp", "--list", "gemini"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    for needle in [
        "\"agent_servers\"",
        "\"args\": [\"acp\", \"gemini\"]",
        "agent-shell-make-agent-config",
        "codecompanion",
        "acp_providers",
    ] {
        assert!(text.contains(needle), "{needle} missing in:\n{text}");
    }
    let o = rad().arg("acp").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("name the agent"), "{}", err(&o));
}

#[test]
fn closing_stdin_mid_turn_ends_rad_acp_and_the_agent() {
    let h = agent_home();
    let mut child = rad()
        .args(["acp", "example"])
        .current_dir(&h.ws)
        .env("RADIUM_HOME", &h.home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    )
    .unwrap();
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": h.ws, "mcpServers": []}})).unwrap();
    let mut session = Value::Null;
    while session.is_null() {
        let m: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if m["id"] == 2 {
            session = m["result"]["sessionId"].clone();
        }
    }
    let prompt = json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hang"}]}});
    writeln!(stdin, "{prompt}").unwrap();
    // The agent said it waits: the turn runs.
    loop {
        let m: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if m["params"]["update"]["content"]["text"] == "Waiting forever." {
            break;
        }
    }
    drop(stdin);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "rad acp did not end after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The resident size of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn an_editor_that_does_not_read_keeps_rad_acp_bounded_and_then_gets_every_message_in_order() {
    editor_reading_late(false);
}

#[test]
fn an_editor_on_a_socket_that_does_not_read_keeps_rad_acp_bounded_and_then_gets_every_message_in_order(
) {
    editor_reading_late(true);
}

/// An editor (on a socket, else a pipe) that reads nothing for 8 s while
/// the agent streams 200 MiB: rad acp stays small; then every chunk comes.
fn editor_reading_late(socket: bool) {
    let h = agent_home();
    let mut relay = Relay::start_with(&h, socket);
    let session = relay.open(&h);
    let before = rss_kib(relay.child.id());
    // 3,200 chunks of 64 KiB: 200 MiB the agent sends as fast as it can.
    let (count, size) = (3200, 64 << 10);
    relay.send(json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": format!("numbered {count} {size}")}]}}));
    // The editor reads nothing for 8 s: rad acp stops reading the agent.
    let mut most = before;
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(200));
        most = most.max(rss_kib(relay.child.id()));
    }
    assert!(
        most < before + (100 << 10),
        "rad acp grew from {before} KiB to {most} KiB while the editor read nothing"
    );
    // Then it reads: every chunk, in the order sent, then the answer.
    let mut next = 0;
    for m in relay.until_answer(3) {
        if m["id"] == 3 {
            assert_eq!(m["result"]["stopReason"], "end_turn", "{m}");
            continue;
        }
        let Some(text) = m["params"]["update"]["content"]["text"].as_str() else {
            continue;
        };
        let (n, rest) = text.split_once(' ').unwrap();
        assert_eq!(n.parse::<usize>().unwrap(), next, "a chunk out of order");
        assert_eq!(rest.len(), size);
        next += 1;
    }
    assert_eq!(next, count, "chunks lost");
}

/// Whether `fd` of this process is in non-blocking mode (`flags:` of its
/// fdinfo, O_NONBLOCK being 04000).
fn non_blocking(fd: &impl std::os::fd::AsRawFd) -> bool {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", fd.as_raw_fd())).unwrap();
    let flags = info.lines().find_map(|l| l.strip_prefix("flags:")).unwrap();
    u32::from_str_radix(flags.trim(), 8).unwrap() & 0o4000 != 0
}

/// `rad acp example` with `stdout`, given an `initialize` then the end of
/// stdin; answers what it wrote, read from `output`.
fn initialize_into(h: &AgentHome, stdout: Stdio, output: impl FnOnce() -> String) -> Value {
    let mut child = rad()
        .args(["acp", "example"])
        .current_dir(&h.ws)
        .env("RADIUM_HOME", &h.home)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    )
    .unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let text = output();
    serde_json::from_str(text.lines().next().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {text:?}"))
}

#[test]
fn stdout_a_pipe_a_socket_or_a_file_gets_the_answers_and_is_left_blocking() {
    use std::io::Read as _;
    let h = agent_home();
    // A pipe: written without blocking, its mode put back at the end.
    let (mut reader, writer) = std::io::pipe().unwrap();
    let answer = initialize_into(&h, Stdio::from(writer.try_clone().unwrap()), || {
        assert!(!non_blocking(&writer), "rad acp left the pipe non-blocking");
        drop(writer);
        let mut text = String::new();
        reader.read_to_string(&mut text).unwrap();
        text
    });
    assert_eq!(answer["result"]["protocolVersion"], 1, "{answer}");
    // A socket (Node's editors give one), the same.
    let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let kept = theirs.try_clone().unwrap();
    let answer = initialize_into(&h, Stdio::from(std::os::fd::OwnedFd::from(theirs)), || {
        assert!(!non_blocking(&kept), "rad acp left the socket non-blocking");
        drop(kept);
        let mut text = String::new();
        ours.read_to_string(&mut text).unwrap();
        text
    });
    assert_eq!(answer["result"]["protocolVersion"], 1, "{answer}");
    // A file: its own writer thread.
    let path = h.ws.join("out.jsonl");
    let file = std::fs::File::create(&path).unwrap();
    let answer = initialize_into(&h, Stdio::from(file), || {
        std::fs::read_to_string(&path).unwrap()
    });
    assert_eq!(answer["result"]["protocolVersion"], 1, "{answer}");
}

#[test]
fn no_update_of_a_session_the_editor_did_not_open_reaches_it() {
    let h = agent_home();
    // The agent's commands come 300 ms after its session opened: when radium
    // relays what that session sends (it did), they reach the editor, here
    // before it asked for any session.
    let agents = std::fs::read_to_string(h.home.join("agents.toml")).unwrap();
    let late = agents.replace("agent.mjs\"]", "agent.mjs\", \"--late-commands\"]");
    assert_ne!(late, agents);
    std::fs::write(h.home.join("agents.toml"), late).unwrap();
    let mut relay = Relay::start(&h);
    relay.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}));
    // The answer comes first: nothing of the session radium opened for
    // itself at `initialize` (the example agent sends its commands at once).
    let first = relay.next();
    assert_eq!(first["id"], 1, "{first}");
    // Time for the agent's commands to have been relayed, were they.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    relay.send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": h.ws, "mcpServers": []}}));
    let got = relay.until_answer(2);
    assert_eq!(got.len(), 1, "only the answer to session/new: {got:?}");
    let session = got[0]["result"]["sessionId"].clone();
    // Then the commands, radium's with the agent's, of the session it knows.
    let commands = relay.next();
    assert_eq!(commands["params"]["sessionId"], session, "{commands}");
    let names: Vec<&str> = commands["params"]["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&"undo") && names.contains(&"review"),
        "{names:?}"
    );
    drop(relay.stdin.take());
    assert!(relay.child.wait().unwrap().success());
}
