//! The agent's modes and models in `rad chat`: `--mode`, `--model`, `/mode`,
//! `/model` and the header line, with the example ACP agent (which offers
//! the modes default / acceptEdits / plan / dontAsk and the models small /
//! large; with `--legacy-models`, the models in the older `models` field
//! only).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

mod common;
use common::{agent_home, err, out, AgentHome};

fn rad(e: &AgentHome, args: &[&str], input: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .env("RADIUM_HOME", &e.home)
        .env("RADIUM_DAEMON_IDLE", "20")
        .current_dir(&e.ws)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = input {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

#[test]
fn mode_and_model_flags_reach_the_agent_and_the_header_says_them() {
    let e = agent_home();
    let o = rad(
        &e,
        &[
            "chat", "example", "--mode", "plan", "--model", "large", "--prompt", "whoami",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "mode plan, model large, effort medium\n");
    assert!(
        err(&o).contains("rad chat: example · mode plan · model large"),
        "{}",
        err(&o)
    );
    // In plan mode radium refuses the agent's edits, even with --yes.
    let o = rad(
        &e,
        &[
            "chat",
            "example",
            "--mode",
            "plan",
            "--yes",
            "--prompt",
            "write a.txt hi",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o).contains("[permission] rejected by radium: the agent is in plan mode"),
        "{}",
        out(&o)
    );
    assert!(!e.ws.join("a.txt").exists());
}

#[test]
fn a_mode_or_model_the_agent_does_not_offer_fails_before_the_prompt() {
    let e = agent_home();
    let o = rad(
        &e,
        &["chat", "example", "--model", "huge", "--prompt", "hello"],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "", "the prompt was not sent");
    assert!(
        err(&o).contains("--model huge: ")
            && err(&o).contains("does not offer `huge` for `model` (it offers: small, large)"),
        "{}",
        err(&o)
    );
    let o = rad(
        &e,
        &["chat", "example", "--mode", "yolo", "--prompt", "hello"],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("default, acceptEdits, plan, dontAsk"),
        "{}",
        err(&o)
    );
}

#[test]
fn slash_mode_and_model_list_and_switch() {
    let e = agent_home();
    let o = rad(
        &e,
        &["chat", "example"],
        Some("/mode\n/model large\n/model\n/mode bogus\nwhoami\nswitchmode acceptEdits\n"),
    );
    assert!(o.status.success(), "{}", err(&o));
    let stdout = out(&o);
    assert!(
        stdout.contains("* default (Default): Mode default\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  plan (Plan): Mode plan\n"), "{stdout}");
    assert!(stdout.contains("  small\n* large\n"), "{stdout}");
    assert!(
        stdout.contains("mode default, model large, effort medium"),
        "{stdout}"
    );
    let stderr = err(&o);
    assert!(
        stderr.contains("example · mode default · model large"),
        "{stderr}"
    );
    assert!(
        stderr.contains("does not offer `bogus` for `mode`"),
        "{stderr}"
    );
    // The agent's own switch shows a new header line, once.
    assert_eq!(
        stderr.matches("mode acceptEdits · model large").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn effort_flag_and_slash_effort_list_and_switch_the_reasoning_effort() {
    let e = agent_home();
    let o = rad(
        &e,
        &["chat", "example", "--effort", "high", "--prompt", "whoami"],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "mode default, model small, effort high\n");
    assert!(err(&o).contains("· effort high"), "{}", err(&o));
    let o = rad(
        &e,
        &[
            "chat", "example", "--effort", "extreme", "--prompt", "hello",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "", "the prompt was not sent");
    assert!(
        err(&o).contains("--effort extreme: ") && err(&o).contains("low, medium, high"),
        "{}",
        err(&o)
    );
    let o = rad(
        &e,
        &["chat", "example"],
        Some("/effort\n/effort low\n/effort bogus\nwhoami\n/help\n"),
    );
    assert!(o.status.success(), "{}", err(&o));
    let stdout = out(&o);
    assert!(
        stdout.contains("  low (Low): Reasoning effort low\n* medium (Medium)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("mode default, model small, effort low"),
        "{stdout}"
    );
    assert!(stdout.contains("/effort [E]"), "{stdout}");
    let stderr = err(&o);
    assert!(stderr.contains("· effort low"), "{stderr}");
    assert!(
        stderr.contains("does not offer `bogus` for `effort` (it offers: low, medium, high)"),
        "{stderr}"
    );
}

#[test]
fn a_start_notice_is_said_before_any_prompt_and_once() {
    let e = agent_home();
    std::fs::write(
        e.home.join("mcp.toml"),
        "[[servers]]\nname = \"docs\"\ntype = \"http\"\nurl = \"http://127.0.0.1:9/mcp\"\n",
    )
    .unwrap();
    // No prompt at all: the notice is on screen as the chat opens.
    let o = rad(&e, &["chat", "example"], Some(""));
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("rad chat: notice: MCP server `docs`")
            && err(&o).contains("was not passed"),
        "{}",
        err(&o)
    );
    let o = rad(&e, &["chat", "example", "--prompt", "hello"], None);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(
        err(&o).matches("MCP server `docs`").count(),
        1,
        "said once: {}",
        err(&o)
    );
    // With --json: a notice event first on stdout, once.
    let o = rad(
        &e,
        &["chat", "example", "--json", "--prompt", "hello"],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    let first: serde_json::Value = serde_json::from_str(out(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "notice", "{}", out(&o));
    assert_eq!(
        out(&o).matches("MCP server `docs`").count(),
        1,
        "{}",
        out(&o)
    );
}

#[test]
fn models_listed_only_in_the_legacy_field_are_shown_and_refused_with_the_reason() {
    // As Gemini CLI 0.61: `session/new` answers the older `models` field
    // only, switched by `session/set_model` (gone from ACP).
    let e = agent_home();
    let toml = std::fs::read_to_string(e.home.join("agents.toml")).unwrap();
    std::fs::write(
        e.home.join("agents.toml"),
        toml.replace("\"]\n", "\", \"--legacy-models\"]\n"),
    )
    .unwrap();
    let o = rad(
        &e,
        &["chat", "example"],
        Some("/model\n/model large\nwhoami\n"),
    );
    assert!(o.status.success(), "{}", err(&o));
    let stdout = out(&o);
    assert!(
        stdout.contains("* small: model small\n  large: model large\n(the agent switches these only through `session/set_model`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("mode default, model small, effort medium"),
        "the model was not switched: {stdout}"
    );
    let stderr = err(&o);
    assert!(
        stderr.contains("example · mode default · model small"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the agent lists its models (small, large) but switches them only through `session/set_model`"),
        "{stderr}"
    );
    let o = rad(
        &e,
        &["chat", "example", "--model", "large", "--prompt", "whoami"],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "", "the prompt was not sent");
    assert!(
        err(&o).contains("--model large: ") && err(&o).contains("session/set_model"),
        "{}",
        err(&o)
    );
}
