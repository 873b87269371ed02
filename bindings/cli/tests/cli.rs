//! `rad` run as a real process.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn rad(args: &[&str], stdin: &str, env: &[(&str, &str)], cwd: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .envs(env.iter().copied())
        .env("RADIUM_HOME", cwd)
        .current_dir(cwd)
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

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn context_from_stdin_or_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let out = rad(
        &["context"],
        r#"{"file_path": "/w/app.py", "selection": "x = 1"}"#,
        &[],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["language"], "python");

    let out = rad(
        &["context", "--compact"],
        "",
        &[
            ("RADIUM_EDITOR_FILE_PATH", "/w/main.go"),
            ("RADIUM_EDITOR_SELECTION", "package main"),
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["language"], "go");
    assert_eq!(v["selection"], "package main");

    let out = rad(&["context"], r#"{"file_path": "main.go"}"#, &[], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "rad: invalid editor context: file_path: must be an absolute path, got `main.go`\n"
    );

    let out = rad(&["context"], "{not json", &[], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("rad: the context on stdin is not JSON"),
        "{}",
        stderr(&out)
    );

    let out = rad(&["context"], "", &[], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out)
        .contains("no context: pipe the context JSON on stdin or set RADIUM_EDITOR_FILE_PATH"));
}

#[test]
fn extract_reads_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let out = rad(
        &["extract"],
        "Fix:\n```rust:src/a.rs\nfn a() {}\n```\n",
        &[],
        dir.path(),
    );
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["block_count"], 1);
    assert_eq!(v["code_blocks"][0]["file_path"], "src/a.rs");
}

#[test]
fn step_runs_the_example_agent() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::create_dir_all(ws.join(".radium")).unwrap();
    let agent = format!(
        "{}/../../examples/agents/example-agent.sh",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::write(
        ws.join(".radium/agents.toml"),
        format!("[[agents]]\nid = \"example\"\ncommand = [\"{agent}\"]\n"),
    )
    .unwrap();
    let context = format!(
        r#"{{"file_path": "{}/lib.py", "selection": "x = 1", "workspace": "{}"}}"#,
        ws.display(),
        ws.display()
    );
    // The workspace's own agent runs once it is trusted.
    assert!(rad(&["trust"], "", &[], ws).status.success());
    let out = rad(
        &["step", "example", "--prompt", "review"],
        &context,
        &[],
        ws,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(
        v["code_blocks"][0]["content"],
        "# reviewed by the example agent\nx = 1\n"
    );
    assert_eq!(v["code_blocks"][0]["file_path"], "lib.py");

    // The context from the environment, as editors set it.
    let file = format!("{}/tool.sh", ws.display());
    let ws_text = ws.display().to_string();
    let out = rad(
        &["step", "example"],
        "",
        &[
            ("RADIUM_EDITOR_FILE_PATH", &file),
            ("RADIUM_EDITOR_SELECTION", "echo hi"),
            ("RADIUM_EDITOR_WORKSPACE", &ws_text),
        ],
        ws,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["code_blocks"][0]["language"], "shellscript");

    let out = rad(&["step", "ghost"], "", &[], ws);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "rad: unknown agent `ghost`; configured agents: example\n"
    );

    let out = rad(&["step", "example", "--prompt", "fail"], "", &[], ws);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "rad: agent `example` exited with status 3: the example agent was asked to fail\n"
    );

    let out = rad(&["agents", "--compact"], "", &[], ws);
    assert_eq!(json(&out)[0]["id"], "example");
}

#[test]
fn the_shared_vectors_through_rad_request() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!(
        "{}/../../tests/vectors/requests.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for pair in lines.chunks(2) {
        let out = rad(&["request"], pair[0], &[], dir.path());
        let got = String::from_utf8_lossy(&out.stdout);
        assert_eq!(got.trim_end(), pair[1], "{}", pair[0]);
        let ok = pair[1].contains("\"ok\":true");
        assert_eq!(out.status.success(), ok);
    }
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = rad(&["frobnicate"], "", &[], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unrecognized subcommand"));
    let out = rad(&["step"], "", &[], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let out = rad(&["--version"], "", &[], dir.path());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("rad 0.1.0"));
}

#[test]
fn extensions_and_trust_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ws = root.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let ext = root.join("my-ext");
    std::fs::create_dir_all(ext.join("hooks")).unwrap();
    std::fs::write(
        ext.join("radium-extension.json"),
        r#"{"name": "greeter", "version": "0.2.0", "components": {"hooks": ["hooks/*.toml"]}}"#,
    )
    .unwrap();
    std::fs::write(
        ext.join("hooks/h.toml"),
        "[[hooks]]\nname = \"greet\"\ntype = \"before_tool\"\nscript = \"greet.sh\"\n",
    )
    .unwrap();
    std::fs::write(
        ext.join("greet.sh"),
        "#!/bin/sh\ncat >/dev/null\necho '{\"data\":{\"greeting\":\"hello\"}}'\n",
    )
    .unwrap();
    std::fs::set_permissions(
        ext.join("greet.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();

    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
            .args(args)
            .env("RADIUM_HOME", &home)
            .current_dir(&ws)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take();
        child.wait_with_output().unwrap()
    };
    let out = run(&["ext", "install", ext.to_str().unwrap(), "--compact"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["hooks"], serde_json::json!(["greet"]));
    let out = run(&["ext", "list", "--compact"]);
    assert_eq!(json(&out)[0]["status"], "active");
    let out = run(&[
        "request",
        r#"{"command":"hooks-execute","args":{"hook_type":"before_tool","data":{}}}"#,
    ]);
    assert_eq!(json(&out)["data"]["data"]["greeting"], "hello");
    let out = run(&["ext", "install", ext.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is already installed"),
        "{}",
        stderr(&out)
    );
    let out = run(&["ext", "install", ext.to_str().unwrap(), "--workspace-level"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["ext", "list", "--compact"]);
    let list = json(&out);
    // Untrusted, the workspace copy hides nothing: the user's runs on.
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["level"], "user");
    assert_eq!(list[0]["status"], "active");
    let out = run(&["trust", "--compact"]);
    assert!(out.status.success());
    let out = run(&["ext", "list", "--compact"]);
    assert_eq!(json(&out)[0]["level"], "workspace");
    assert_eq!(json(&out)[0]["status"], "active");
    let out = run(&["ext", "remove", "greeter"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["ext", "remove", "nobody"]);
    assert_eq!(
        stderr(&out),
        "rad: no extension named `nobody` is installed\n"
    );
    let out = run(&["trust", "--revoke", "--compact"]);
    assert_eq!(json(&out)["trusted"], false);
}

#[test]
fn rad_request_answers_bad_input_in_json_too() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    for (input, says) in [
        ("hello", "the request is not JSON"),
        ("{\"command\":", "the request is not JSON"),
        (
            deep.as_str(),
            "JSON nested deeper than 127 levels is refused",
        ),
    ] {
        let out = rad(&["request"], input, &[], dir.path());
        assert_eq!(out.status.code(), Some(1));
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not a JSON answer ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        assert_eq!(answer["ok"], false);
        assert_eq!(answer["code"], "invalid_request");
        assert!(answer["error"].as_str().unwrap().contains(says), "{answer}");
    }
}
