//! The agent's slash commands and usage in `rad chat`, with the example ACP
//! agent: `/help` lists radium's commands and the agent's, `/name args`
//! reaches the agent unchanged, and a usage line follows the turn.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

mod common;
use common::{agent_home, out, AgentHome};

fn chat(args: &[&str], input: &str) -> Output {
    let AgentHome {
        dir: _dir,
        ws,
        home,
    } = agent_home();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .env("RADIUM_HOME", &home)
        .current_dir(&ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn help_lists_the_agents_commands_and_a_command_reaches_the_agent_with_usage_after() {
    let o = chat(&["chat", "example"], "/review the parser\n/help\n");
    let text = out(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("command /review got: the parser"), "{text}");
    assert!(text.contains("[usage: 12.3k/200k tokens, $0.04]"), "{text}");
    // radium's own commands, then the agent's with hints and descriptions.
    assert!(text.contains("/restore [n]"), "{text}");
    assert!(text.contains("/help "), "{text}");
    assert!(text.contains("agent `example`'s"), "{text}");
    let review = text
        .lines()
        .find(|l| l.trim_start().starts_with("/review <what to look at>"))
        .unwrap_or_else(|| panic!("no /review line: {text}"));
    assert!(
        review.contains("Review the changes of this branch"),
        "{review}"
    );
    assert!(text.contains("/explain "), "{text}");
}

#[test]
fn a_turn_without_usage_prints_no_usage_line_and_help_is_not_sent_to_the_agent() {
    let o = chat(&["chat", "example"], "hello\n/help\n");
    let text = out(&o);
    assert!(text.contains("You said: hello"), "{text}");
    assert!(!text.contains("[usage:"), "{text}");
    assert!(!text.contains("You said: /help"), "{text}");
}

#[test]
fn json_output_has_the_commands_event_and_the_usage() {
    let o = chat(
        &["chat", "example", "--json", "--prompt", "/explain fn main"],
        "",
    );
    let text = out(&o);
    assert!(o.status.success(), "{text}");
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let commands = events.iter().find(|e| e["type"] == "commands").unwrap();
    assert_eq!(commands["commands"][0]["name"], "review", "{text}");
    assert_eq!(commands["commands"].as_array().unwrap().len(), 2);
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end");
    assert_eq!(end["text"], "command /explain got: fn main");
    assert_eq!(end["usage"]["size"], 200_000);
    assert!(events.iter().any(|e| e["type"] == "usage"), "{text}");
}

#[test]
fn help_marks_the_agents_commands_that_rad_chats_own_would_run_instead() {
    // Gemini CLI 0.61 offers a /restore (and `restore list`) and a /help of
    // its own: rad chat's run instead, which /help says.
    let o = chat(
        &["chat", "example"],
        "commands restore help review\n/help\n",
    );
    let text = out(&o);
    assert!(o.status.success(), "{text}");
    let line = |name: &str| {
        text.lines()
            .skip_while(|l| !l.contains("agent `example`'s"))
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} line among the agent's: {text}"))
            .to_owned()
    };
    assert!(
        line("/restore").ends_with("[rad chat runs its own /restore instead: not sent from here]"),
        "{text}"
    );
    assert!(
        line("/help").ends_with("[rad chat runs its own /help instead: not sent from here]"),
        "{text}"
    );
    assert!(!line("/review").contains("rad chat runs its own"), "{text}");
}
