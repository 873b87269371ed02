//! `rad hooks`, `rad extension` and `rad completions`, run as a real process
//! against a trusted workspace with a script-hook extension.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn rad(args: &[&str], stdin: &str, ws: &Path, home: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .env("RADIUM_HOME", home)
        .current_dir(ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

mod common;

fn text(out: &Output) -> (String, String) {
    (common::out(out), common::err(out))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A trusted workspace with an extension of three script hooks, installed
/// with `rad extension install` (the seed's spelling).
fn workspace() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home, ext) = (
        dir.path().join("ws"),
        dir.path().join("home"),
        dir.path().join("ext"),
    );
    std::fs::create_dir_all(&ws).unwrap();
    write(
        &ext.join("radium-extension.json"),
        r#"{"name": "guard", "version": "1.0.0", "description": "guards", "author": "radium", "components": {"hooks": ["hooks.toml"]}}"#,
    );
    write(
        &ext.join("hooks.toml"),
        r#"
[[hooks]]
name = "shout"
type = "before_model"
priority = 150
script = "shout.sh"

[[hooks]]
name = "slow"
type = "before_model"
timeout = "300ms"
script = "slow.sh"

[[hooks]]
name = "gate"
type = "before_tool"
matcher = "create"
script = "gate.sh"
"#,
    );
    for (name, body) in [
        (
            "shout.sh",
            r#"cat > /dev/null; echo '{"action":"modify","data":{"input":"HI"}}'"#,
        ),
        ("slow.sh", "cat > /dev/null; sleep 5"),
        ("gate.sh", "cat > /dev/null; echo 'no creating' >&2; exit 2"),
    ] {
        let path = ext.join(name);
        write(&path, &format!("#!/bin/sh\n{body}\n"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert!(rad(&["trust"], "", &ws, &home).status.success());
    let out = rad(
        &[
            "extension",
            "install",
            ext.to_str().unwrap(),
            "--workspace-level",
        ],
        "",
        &ws,
        &home,
    );
    assert!(out.status.success(), "{:?}", text(&out));
    (dir, ws, home)
}

#[test]
fn hooks_list_info_and_validate() {
    let (_dir, ws, home) = workspace();
    let out = rad(&["hooks", "list"], "", &ws, &home);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let before_model = stdout.find("before_model\n").expect(&stdout);
    let shout = stdout.find("  shout ").expect(&stdout);
    assert!(shout > before_model, "{stdout}");
    assert!(stdout.contains("priority 150"), "{stdout}");
    assert!(stdout.contains("matcher create"), "{stdout}");
    assert!(stdout.contains("timeout 300 ms"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_slice(&rad(&["hooks", "list", "--json"], "", &ws, &home).stdout).unwrap();
    assert!(json["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["name"] == "gate"));

    let (stdout, _) = text(&rad(&["hooks", "info", "gate"], "", &ws, &home));
    assert!(stdout.starts_with("gate: a before_tool hook"), "{stdout}");
    let out = rad(&["hooks", "info", "nobody"], "", &ws, &home);
    assert!(!out.status.success());
    assert!(
        text(&out).1.contains("no hook named `nobody`"),
        "{:?}",
        text(&out)
    );

    // validate: a good file, then a bad one with its file:line.
    write(
        &ws.join(".radium/hooks.toml"),
        "[[hooks]]\nname = \"shout\"\ntype = \"before_model\"\n",
    );
    let (stdout, _) = text(&rad(&["hooks", "validate"], "", &ws, &home));
    assert!(stdout.contains("ok, 1 hook(s) configured"), "{stdout}");
    write(&ws.join("bad.toml"), "[[hooks]]\nname = \"x\"\ntype = \"before_model\"\n\n[[hooks]]\nname = \"y\"\ntype = \"sometimes\"\n");
    let out = rad(&["hooks", "validate", "bad.toml"], "", &ws, &home);
    assert!(!out.status.success());
    let (_, stderr) = text(&out);
    assert!(stderr.contains("bad.toml:7:"), "{stderr}");
    assert!(stderr.contains("sometimes"), "{stderr}");
}

#[test]
fn enable_and_disable_persist_in_the_workspace_hooks_toml_keeping_it() {
    let (_dir, ws, home) = workspace();
    write(
        &ws.join(".radium/hooks.toml"),
        "# my settings\n[[hooks]]\nname = \"shout\"\ntype = \"before_model\"\npriority = 150 # keep\n",
    );
    let out = rad(&["hooks", "disable", "shout"], "", &ws, &home);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("saved in .radium/hooks.toml"), "{stdout}");
    let file = std::fs::read_to_string(ws.join(".radium/hooks.toml")).unwrap();
    assert!(file.starts_with("# my settings\n"), "{file}");
    assert!(file.contains("priority = 150 # keep"), "{file}");
    assert!(file.contains("enabled = false"), "{file}");
    // A new process sees it.
    let (stdout, _) = text(&rad(&["hooks", "list"], "", &ws, &home));
    let line = stdout.lines().find(|l| l.contains("shout")).unwrap();
    assert!(line.contains("disabled"), "{line}");
    // A hook with no entry yet gets one.
    assert!(rad(&["hooks", "disable", "gate"], "", &ws, &home)
        .status
        .success());
    let file = std::fs::read_to_string(ws.join(".radium/hooks.toml")).unwrap();
    assert!(
        file.contains("name = \"gate\"\ntype = \"before_tool\"\nenabled = false"),
        "{file}"
    );
    assert!(rad(&["hooks", "enable", "shout"], "", &ws, &home)
        .status
        .success());
    let (stdout, _) = text(&rad(&["hooks", "list"], "", &ws, &home));
    let line = stdout.lines().find(|l| l.contains("shout")).unwrap();
    assert!(line.contains(" enabled"), "{line}");
    let out = rad(&["hooks", "disable", "nobody"], "", &ws, &home);
    assert!(!out.status.success());
}

#[test]
fn hooks_test_runs_one_hook_and_reports_result_time_and_timeouts() {
    let (_dir, ws, home) = workspace();
    let out = rad(
        &["hooks", "test", "shout"],
        r#"{"input": "hi"}"#,
        &ws,
        &home,
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("shout (before_model): modified in "),
        "{stdout}"
    );
    assert!(stdout.contains("\"input\": \"HI\""), "{stdout}");
    // The other before_model hook (slow) did not run alongside.
    assert!(!stdout.contains("timed_out"), "{stdout}");

    write(&ws.join("ctx.json"), r#"{"tool_name": "create"}"#);
    let (stdout, _) = text(&rad(
        &["hooks", "test", "gate", "--context", "ctx.json"],
        "",
        &ws,
        &home,
    ));
    assert!(stdout.contains("gate (before_tool): stopped"), "{stdout}");
    assert!(stdout.contains("no creating"), "{stdout}");

    let out = rad(&["hooks", "test", "slow"], "{}", &ws, &home);
    assert!(
        !out.status.success(),
        "a hook that timed out fails the command"
    );
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("slow (before_model): timed_out in "),
        "{stderr}"
    );

    let out = rad(
        &["hooks", "test", "shout", "--context", "missing.json"],
        "",
        &ws,
        &home,
    );
    assert!(!out.status.success());
    assert!(text(&out).1.contains("missing.json"), "{:?}", text(&out));
}

#[test]
fn completions_for_the_shells_and_examples_in_help() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef rad"),
        ("fish", "complete -c rad"),
    ] {
        let out = rad(&["completions", shell], "", dir.path(), dir.path());
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{shell}: {stderr}");
        assert!(
            stdout.contains(marker),
            "{shell}: {}",
            &stdout[..200.min(stdout.len())]
        );
        assert!(
            stdout.contains("clipboard"),
            "{shell} completes the subcommands"
        );
    }
    let out = rad(&["completions", "tcsh"], "", dir.path(), dir.path());
    assert_eq!(out.status.code(), Some(2), "a bad shell is a usage error");
    let (stdout, _) = text(&rad(&["--help"], "", dir.path(), dir.path()));
    assert!(stdout.contains("Examples:\n  rad chat claude"), "{stdout}");
}
