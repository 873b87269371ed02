//! Claude Code's quiet tool calls under the user's `before_tool` hooks:
//! the `PreToolUse` hook radium hands a Claude Code session, and `rad
//! hook-relay`, which it runs. The example ACP agent with `--claude-hooks`
//! says it is Claude Code and runs those hooks as Claude Code does for a
//! call it would not ask about (`quiet <command>`).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{agent_home, err, out, AgentHome};

/// A home whose `claudeish` agent is the example agent saying it is
/// Claude Code, with a user extension whose `before_tool` script refuses
/// any command starting with `ls`.
fn home() -> AgentHome {
    let home = agent_home();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/acp-agent/agent.mjs")
        .canonicalize()
        .unwrap();
    let mut agents = std::fs::OpenOptions::new()
        .append(true)
        .open(home.home.join("agents.toml"))
        .unwrap();
    writeln!(
        agents,
        "\n[[agents]]\nid = \"claudeish\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\", \"--claude-hooks\"]",
        script.display()
    )
    .unwrap();
    let ext = home.home.join("extensions/no-ls");
    std::fs::create_dir_all(ext.join("hooks")).unwrap();
    std::fs::write(
        ext.join("radium-extension.json"),
        r#"{"name": "no-ls", "version": "1.0.0", "description": "no ls", "components": {"hooks": ["hooks/*.toml"]}}"#,
    )
    .unwrap();
    std::fs::write(
        ext.join("hooks/no-ls.toml"),
        "[[hooks]]\nname = \"no-ls\"\ntype = \"before_tool\"\nscript = \"no-ls.sh\"\n",
    )
    .unwrap();
    let hook = ext.join("no-ls.sh");
    std::fs::write(
        &hook,
        "#!/bin/sh\nif grep -q '\"command\":\"ls'; then echo 'no ls in this project' >&2; exit 2; fi\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    home
}

fn rad(home: &AgentHome, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .env("RADIUM_HOME", &home.home)
        .current_dir(&home.ws)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `rad hook-relay SOCKET` with `input` on its stdin.
fn relay(socket: &Path, input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(["hook-relay"])
        .arg(socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The relay stops reading past its cap: a broken pipe is expected then.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn a_hook_stops_a_call_claude_code_would_run_without_asking() {
    let h = home();
    let o = rad(&h, &["chat", "claudeish", "--prompt", "quiet ls -la"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains("[permission] rejected by hook:no-ls: no ls in this project"),
        "{text}"
    );
    assert!(
        text.contains("hook decision: deny: radium: the before_tool hook `no-ls` refused it: no ls in this project"),
        "{text}"
    );
}

#[test]
fn a_call_no_hook_decides_goes_on_and_one_a_hook_allows_is_allowed() {
    let h = home();
    let o = rad(&h, &["chat", "claudeish", "--prompt", "quiet echo hi"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("hook decision: none"), "{}", out(&o));
    assert!(!out(&o).contains("[permission]"), "{}", out(&o));

    // A hook that allows: Claude Code then runs the call without asking.
    let ext = h.home.join("extensions/no-ls");
    std::fs::write(
        ext.join("no-ls.sh"),
        "#!/bin/sh\necho '{\"action\": \"modify\", \"data\": {\"permission\": \"allow\"}}'\n",
    )
    .unwrap();
    let o = rad(&h, &["chat", "claudeish", "--prompt", "quiet echo hi"]);
    assert!(
        out(&o).contains("hook decision: allow: radium: a before_tool hook allowed it"),
        "{}",
        out(&o)
    );
    assert!(
        out(&o).contains("[permission] allowed by hook:no-ls"),
        "{}",
        out(&o)
    );

    // A hook's allow never passes radium's own rule: an edit outside the
    // workspace, or in .git, is not allowed (Claude Code then asks, and the
    // permission request is rejected by radium).
    for path in ["/etc/radium-outside.txt", ".git/config"] {
        let o = rad(
            &h,
            &[
                "chat",
                "claudeish",
                "--prompt",
                &format!("quietedit {path}"),
            ],
        );
        assert!(
            out(&o).contains("hook decision: none"),
            "{path}: {}",
            out(&o)
        );
        assert!(
            !out(&o).contains("[permission] allowed"),
            "{path}: {}",
            out(&o)
        );
    }
    let o = rad(
        &h,
        &["chat", "claudeish", "--prompt", "quietedit notes.txt"],
    );
    assert!(out(&o).contains("hook decision: allow"), "{}", out(&o));
}

#[test]
fn a_huge_unicode_reason_reaches_the_agent_cut_at_a_character() {
    let h = home();
    // 3,000 two-byte characters: more than the 4,000 bytes a reason keeps.
    std::fs::write(
        h.home.join("extensions/no-ls/no-ls.sh"),
        "#!/bin/sh\ni=0\nwhile [ $i -lt 3000 ]; do printf '\\303\\251' >&2; i=$((i+1)); done\nexit 2\n",
    )
    .unwrap();
    let o = rad(&h, &["chat", "claudeish", "--prompt", "quiet ls"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let line = text
        .lines()
        .find(|l| l.starts_with("hook decision: deny: "))
        .unwrap_or_else(|| panic!("{text}"));
    let reason = line.trim_start_matches("hook decision: deny: ");
    assert!(
        reason.starts_with("radium: the before_tool hook `no-ls` refused it: éé"),
        "{line}"
    );
    assert!(
        reason.len() <= 4000 && reason.len() > 3900,
        "{} bytes",
        reason.len()
    );
    assert!(reason.ends_with('é'), "cut at a character");
}

#[test]
fn bad_input_to_a_live_relay_is_refused_with_its_reason() {
    let h = home();
    let o = rad(&h, &["chat", "claudeish", "--prompt", "hookraw {not json"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains("exit 0; stdout: {\"hookSpecificOutput\"")
            && text.contains("\"permissionDecision\":\"deny\"")
            && text.contains("the hook's input is not JSON"),
        "{text}"
    );
    let o = rad(&h, &["chat", "claudeish", "--prompt", "hookraw [1, 2]"]);
    assert!(out(&o).contains("not a JSON object"), "{}", out(&o));
    let o = rad(
        &h,
        &[
            "chat",
            "claudeish",
            "--prompt",
            "hookraw {\"tool_input\": {}}",
        ],
    );
    assert!(out(&o).contains("has no `tool_name`"), "{}", out(&o));
}

#[test]
fn the_relay_is_private_removed_at_close_and_fails_closed_without_its_engine() {
    let h = home();
    let o = rad(&h, &["chat", "claudeish", "--prompt", "hookcmd"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    // `'<rad>' hook-relay '<dir>/hook.sock'`
    let socket = text
        .split('\'')
        .find(|part| part.ends_with("/hook.sock"))
        .unwrap_or_else(|| panic!("no socket in {text}"));
    let socket = PathBuf::from(socket);
    assert!(text.contains("hook-relay"), "{text}");
    let dir = socket.parent().unwrap();
    assert!(
        !dir.exists(),
        "the relay's folder {} is left after the session closed",
        dir.display()
    );
    // The session is gone: the relay refuses the call (exit 2, the reason on stderr).
    let o = relay(
        &socket,
        br#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#,
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(out(&o).is_empty(), "{}", out(&o));
    assert!(
        err(&o).contains("cannot reach the engine of this session")
            && err(&o).contains("the tool call is refused"),
        "{}",
        err(&o)
    );
}

#[test]
fn too_much_input_is_refused_before_anything_is_sent() {
    let input = vec![b'x'; radium_core::sessions::MAX_RELAY_INPUT + 1];
    let o = relay(Path::new("/nonexistent/radium/hook.sock"), &input);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("over 16777216 bytes") && err(&o).contains("refused"),
        "{}",
        err(&o)
    );
}

/// One request to the daemon at `socket` (a 4-byte length, then JSON).
fn daemon_call(socket: &Path, request: &serde_json::Value) -> serde_json::Value {
    use std::io::Read as _;
    let mut s = std::os::unix::net::UnixStream::connect(socket).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let body = request.to_string();
    let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(body.as_bytes());
    s.write_all(&frame).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut buf = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut buf).unwrap();
    serde_json::from_slice(&buf).unwrap()
}

#[test]
fn the_daemons_sessions_relay_through_the_daemons_own_rad() {
    let h = home();
    // No `rad` on PATH: the daemon offers itself.
    let node_dir = Command::new("sh")
        .args(["-c", "dirname \"$(command -v node)\""])
        .output()
        .unwrap();
    let path = format!("{}:/usr/bin:/bin", out(&node_dir).trim());
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(["daemon", "--idle", "30"])
        .env("RADIUM_HOME", &h.home)
        .env("PATH", path)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let socket = h.home.join("daemon.sock");
    let started = std::time::Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "no daemon"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let cwd = h.ws.to_string_lossy().into_owned();
    let opened = daemon_call(
        &socket,
        &serde_json::json!({"command": "session-new", "args": {"agent": "claudeish"}, "cwd": cwd}),
    );
    assert_eq!(opened["ok"], true, "{opened}");
    let session = opened["data"]["session"].as_str().unwrap().to_owned();
    let turn = daemon_call(
        &socket,
        &serde_json::json!({"command": "session-prompt",
            "args": {"session": session, "prompt": "quiet ls", "wait": true}}),
    );
    let events = turn["data"]["events"].to_string();
    assert!(
        events.contains("hook decision: deny: radium: the before_tool hook `no-ls` refused it"),
        "{turn}"
    );
    let _ = daemon_call(&socket, &serde_json::json!({"command": "shutdown"}));
    let _ = daemon.wait();
}
