//! `rad chat` with the example ACP agent (a real process speaking ACP v1).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Env {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
}

fn env() -> Env {
    let AgentHome { dir, ws, home } = agent_home();
    Env {
        _dir: dir,
        ws,
        home,
    }
}

impl Env {
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rad"));
        c.args(args)
            .env("RADIUM_HOME", &self.home)
            .env("RADIUM_DAEMON_IDLE", "20")
            .current_dir(&self.ws)
            .stdin(Stdio::null());
        c
    }
    fn rad(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.rad(&["shutdown"]);
    }
}

mod common;
use common::{agent_home, err, out, AgentHome};

#[test]
fn one_turn_streams_and_exits_zero() {
    let e = env();
    let o = e.rad(&["chat", "example", "--prompt", "hello"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "You said: hello\n");
    let o = e.rad(&["chat", "example", "--json", "--prompt", "plan"]);
    let events: Vec<serde_json::Value> = out(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events[0]["type"], "plan");
    assert_eq!(events.last().unwrap()["type"], "turn_end");
}

#[test]
fn a_write_needs_yes_shows_its_diff_and_undo_takes_it_back() {
    let e = env();
    std::fs::write(e.ws.join("notes.txt"), "old line\n").unwrap();
    let o = e.rad(&["chat", "example", "--prompt", "write notes.txt new line"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("rejected Write") && err(&o).contains("pass --yes"),
        "{}",
        err(&o)
    );
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "old line\n"
    );

    let o = e.rad(&[
        "chat",
        "example",
        "--yes",
        "--prompt",
        "write notes.txt new line",
    ]);
    let text = out(&o);
    assert!(text.contains("-old line\n+new line\n"), "{text}");
    assert!(text.contains("[permission] allowed"), "{text}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "new line\n"
    );
    let tag = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("[tag: ")
                .map(|t| t.trim_end_matches(']').to_owned())
        })
        .expect("the tag after the agent's write");
    let u = e.rad(&["undo", "--tag", &tag]);
    assert!(u.status.success(), "{}", err(&u));
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "old line\n"
    );
}

#[test]
fn failures_exit_non_zero_with_the_reason() {
    let e = env();
    let o = e.rad(&["chat", "example", "--prompt", "crash"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("exited with code 3 mid-turn") && err(&o).contains("the model went away"),
        "{}",
        err(&o)
    );
    let o = e.rad(&["chat", "nobody", "--prompt", "hi"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("unknown agent `nobody`"), "{}", err(&o));
}

#[test]
fn ctrl_c_cancels_ends_the_agent_and_exits() {
    let e = env();
    let child = e
        .command(&["chat", "example", "--prompt", "slow"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    std::thread::sleep(Duration::from_millis(1500));
    Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let started = Instant::now();
    let o = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(o.status.code(), Some(130), "{}", err(&o));
    assert!(err(&o).contains("interrupted"), "{}", err(&o));
    // No agent of this run is left.
    let script = "agent.mjs";
    let left = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|p| {
            let p = p.ok()?.path();
            let cmd = String::from_utf8_lossy(&std::fs::read(p.join("cmdline")).ok()?).into_owned();
            let cwd = std::fs::read_link(p.join("cwd")).ok()?;
            (cmd.contains(script) && cwd == e.ws).then_some(())
        })
        .count();
    assert_eq!(left, 0, "the agent was ended");
}
