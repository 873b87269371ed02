//! The daemon answers each project with that project's hooks and trust, and
//! stopping it (`rad shutdown`, idleness) never loses a request a client sent.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{err, out};

fn rad(args: &[&str], ws: &Path, home: &Path, idle: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .env("RADIUM_HOME", home)
        .env("RADIUM_DAEMON_IDLE", idle)
        .current_dir(ws)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A workspace extension whose `before_tool` hook refuses every `create`.
fn guard(ws: &Path) {
    let ext = ws.join(".radium/extensions/guard");
    write(
        &ext.join("radium-extension.json"),
        r#"{"name": "guard", "version": "1.0.0", "description": "guards", "author": "radium", "components": {"hooks": ["hooks.toml"]}}"#,
    );
    write(
        &ext.join("hooks.toml"),
        "[[hooks]]\nname = \"gate\"\ntype = \"before_tool\"\nmatcher = \"create\"\nscript = \"gate.sh\"\n",
    );
    let gate = ext.join("gate.sh");
    write(
        &gate,
        "#!/bin/sh\ncat > /dev/null; echo 'no creating here' >&2; exit 2\n",
    );
    std::fs::set_permissions(&gate, std::fs::Permissions::from_mode(0o755)).unwrap();
}

struct Setup {
    _dir: tempfile::TempDir,
    a: PathBuf,
    b: PathBuf,
    home: PathBuf,
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = rad(&["shutdown"], &self.a, &self.home, "30");
    }
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, home) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("home"),
    );
    guard(&a);
    guard(&b);
    Setup {
        _dir: dir,
        a,
        b,
        home,
    }
}

#[test]
fn each_project_is_answered_with_its_own_extensions_and_trust() {
    let s = setup();
    let trusted = rad(&["trust"], &s.a, &s.home, "30");
    assert!(trusted.status.success(), "{}", err(&trusted));

    // The trusted project's guard stops the edit, through the daemon.
    let stopped = rad(&["create", "x.txt", "--content", "hi"], &s.a, &s.home, "30");
    assert!(!stopped.status.success(), "{}", out(&stopped));
    assert!(
        err(&stopped).contains("no creating here"),
        "{}",
        err(&stopped)
    );
    assert!(!s.a.join("x.txt").exists());

    // The same daemon answers the untrusted project without its extension.
    let made = rad(&["create", "x.txt", "--content", "hi"], &s.b, &s.home, "30");
    assert!(made.status.success(), "{}", err(&made));
    assert_eq!(std::fs::read_to_string(s.b.join("x.txt")).unwrap(), "hi");

    // Trusting it later is seen by the next edit: its guard now runs.
    assert!(rad(&["trust"], &s.b, &s.home, "30").status.success());
    let stopped = rad(&["create", "y.txt", "--content", "hi"], &s.b, &s.home, "30");
    assert!(!stopped.status.success(), "{}", out(&stopped));
    assert!(
        err(&stopped).contains("no creating here"),
        "{}",
        err(&stopped)
    );
    assert!(!s.b.join("y.txt").exists());

    // And revoking it is seen too.
    assert!(rad(&["trust", "--revoke"], &s.b, &s.home, "30")
        .status
        .success());
    let made = rad(&["create", "y.txt", "--content", "hi"], &s.b, &s.home, "30");
    assert!(made.status.success(), "{}", err(&made));
    assert_eq!(std::fs::read_to_string(s.b.join("y.txt")).unwrap(), "hi");
}

#[test]
fn an_edit_sent_right_after_shutdown_is_carried_out_by_the_next_daemon() {
    let s = setup();
    for i in 0..20 {
        let path = format!("f{i}.txt");
        let up = rad(&["view", "."], &s.b, &s.home, "30");
        assert!(up.status.success(), "{}", err(&up));
        let down = rad(&["shutdown"], &s.b, &s.home, "30");
        assert!(down.status.success(), "{}", err(&down));
        let made = rad(&["create", &path, "--content", "x"], &s.b, &s.home, "30");
        assert!(
            made.status.success(),
            "edit {i} after a shutdown: {}",
            err(&made)
        );
        assert_eq!(std::fs::read_to_string(s.b.join(&path)).unwrap(), "x");
    }
}

#[test]
fn edits_racing_an_idle_exit_are_all_answered() {
    let s = setup();
    // A daemon that exits after 1 s of quiet; edits arrive around that moment.
    for i in 0..6 {
        let path = format!("g{i}.txt");
        let made = rad(&["create", &path, "--content", "x"], &s.b, &s.home, "1");
        assert!(made.status.success(), "edit {i}: {}", err(&made));
        std::thread::sleep(std::time::Duration::from_millis(950 + 20 * i));
    }
    for i in 0..6 {
        assert!(s.b.join(format!("g{i}.txt")).exists());
    }
}

#[test]
fn an_idle_projects_engine_is_dropped_and_its_language_server_stopped() {
    let s = setup();
    let log = s.home.join("server.log");
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/lsp/scripted_server.py")
        .canonicalize()
        .unwrap();
    // The user's own server table: a scripted server that never stops itself.
    write(
        &s.home.join("lsp.toml"),
        &format!(
            "[python]\ncommand = [\"python3\", {script:?}, \"--mode\", \"\", \"--encoding\", \"utf-16\", \"--log\", {log:?}]\nidle_seconds = 600\n",
            script = script.display().to_string(),
            log = log.display().to_string(),
        ),
    );
    write(&s.a.join("app.py"), "total = 1\nprint(total)\n");
    // Project engines live at most the daemon's idle time (3 s here).
    let found = rad(
        &["read-var", "app.py", "--var", "total"],
        &s.a,
        &s.home,
        "3",
    );
    assert!(found.status.success(), "{}", err(&found));
    assert!(out(&found).contains("app.py"), "{}", out(&found));
    let stopped = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("\"exit\"")
    };
    assert!(!stopped());
    // Another project keeps the daemon busy while project a goes idle.
    let started = std::time::Instant::now();
    while !stopped() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "project a's server is still running: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        let busy = rad(&["view", "."], &s.b, &s.home, "3");
        assert!(busy.status.success(), "{}", err(&busy));
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    // Project a is served again on its next request, by a new engine.
    let again = rad(
        &["read-var", "app.py", "--var", "total"],
        &s.a,
        &s.home,
        "3",
    );
    assert!(again.status.success(), "{}", err(&again));
}

#[test]
fn a_daemon_started_right_after_a_shutdown_waits_for_the_old_one_to_let_go() {
    let s = setup();
    for _ in 0..5 {
        let up = rad(&["view", "."], &s.b, &s.home, "30");
        assert!(up.status.success(), "{}", err(&up));
        assert!(rad(&["shutdown"], &s.b, &s.home, "30").status.success());
        let daemon = Command::new(env!("CARGO_BIN_EXE_rad"))
            .args(["daemon", "--idle", "30"])
            .env("RADIUM_HOME", &s.home)
            .current_dir(&s.b)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // It takes over once the old one has let go, and serves.
        let socket = s.home.join("daemon.sock");
        let started = std::time::Instant::now();
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(20),
                "the new daemon never served"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let made = rad(&["view", "."], &s.b, &s.home, "30");
        assert!(made.status.success(), "{}", err(&made));
        assert!(rad(&["shutdown"], &s.b, &s.home, "30").status.success());
        let done = daemon.wait_with_output().unwrap();
        assert!(
            done.status.success(),
            "the new daemon failed: {}",
            err(&done)
        );
    }
}
