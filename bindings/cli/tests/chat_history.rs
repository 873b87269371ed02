//! `rad chat --list`, `--resume [ID]` and `--continue`: the project's past
//! conversations, continued with the example ACP agent (a real process),
//! one that resumes its own session and one that cannot.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod common;
use common::{agent_home, err, out, AgentHome};

struct Env {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
}

/// The example agent as `example`, and as `resuming` (`--resume`, its
/// sessions kept in the test's folder).
fn env() -> Env {
    let AgentHome { dir, ws, home } = agent_home();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/acp-agent/agent.mjs")
        .canonicalize()
        .unwrap();
    let state = dir.path().join("agent-state");
    let mut toml = std::fs::read_to_string(home.join("agents.toml")).unwrap();
    toml.push_str(&format!(
        "\n[[agents]]\nid = \"resuming\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\", \"--resume\"]\nenv = {{ EXAMPLE_AGENT_STATE = \"{}\" }}\n",
        script.display(),
        state.display()
    ));
    // `listing` also lists its sessions (session/list).
    toml.push_str(&format!(
        "\n[[agents]]\nid = \"listing\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\", \"--resume\", \"--list\"]\nenv = {{ EXAMPLE_AGENT_STATE = \"{}\" }}\n",
        script.display(),
        state.display()
    ));
    std::fs::write(home.join("agents.toml"), toml).unwrap();
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
            .current_dir(&self.ws)
            .stdin(Stdio::null());
        c
    }
    fn rad(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
    /// `rad` with `input` on its stdin.
    fn rad_with(&self, args: &[&str], input: &str) -> Output {
        let mut child = self
            .command(args)
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
}

#[test]
fn continue_resumes_the_agents_session_and_shows_each_turn_once() {
    let e = env();
    let o = e.rad(&["chat", "--list"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "no conversations kept in this project yet\n");

    let o = e.rad(&["chat", "resuming", "--prompt", "alpha words"]);
    assert!(o.status.success(), "{}", err(&o));
    let o = e.rad(&["chat", "--list"]);
    assert!(
        out(&o).contains("resuming  1 turn(s)") && out(&o).contains("alpha words"),
        "{}",
        out(&o)
    );

    let o = e.rad(&["chat", "resuming", "--continue", "--prompt", "remember"]);
    assert!(o.status.success(), "{}", err(&o));
    let shown = out(&o);
    // The earlier turn once, then the new answer: the agent remembers.
    assert_eq!(shown.matches("> alpha words").count(), 1, "{shown}");
    assert_eq!(shown.matches("You said: alpha words").count(), 1, "{shown}");
    assert!(
        shown.ends_with("I remember: alpha words; earlier turns given as context: 0\n"),
        "{shown}"
    );
    assert!(
        err(&o).contains("the agent resumed its own session"),
        "{}",
        err(&o)
    );

    // Still one conversation, of two turns; `--json` gives its id.
    let o = e.rad(&["chat", "--list", "--json"]);
    let list: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["turns"], 2);
    let id = list[0]["id"].as_str().unwrap();
    let o = e.rad(&["chat", "resuming", "--resume", id, "--prompt", "remember"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o)
            .ends_with("I remember: alpha words | remember; earlier turns given as context: 0\n"),
        "{}",
        out(&o)
    );
}

#[test]
fn resume_without_an_id_picks_and_an_agent_that_cannot_gets_context() {
    let e = env();
    let o = e.rad(&["chat", "example", "--prompt", "first"]);
    assert!(o.status.success(), "{}", err(&o));
    let o = e.rad_with(
        &["chat", "example", "--resume", "--prompt", "remember"],
        "1\n",
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("  1. ") && err(&o).contains("first"),
        "{}",
        err(&o)
    );
    assert!(
        err(&o).contains("cannot resume its own session"),
        "{}",
        err(&o)
    );
    assert!(
        out(&o).ends_with("I remember: nothing; earlier turns given as context: 1\n"),
        "{}",
        out(&o)
    );
}

#[test]
fn bad_history_requests_say_what_is_wrong() {
    let e = env();
    let o = e.rad(&["chat", "example", "--continue", "--prompt", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("no earlier conversation with agent `example`"),
        "{}",
        err(&o)
    );
    let o = e.rad(&["chat", "example", "--resume", "nope", "--prompt", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("no conversation `nope`"), "{}", err(&o));
    let o = e.rad(&["chat"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("name the agent"), "{}", err(&o));
    let o = e.rad(&["chat", "example", "--prompt", "one"]);
    assert!(o.status.success(), "{}", err(&o));
    let o = e.rad_with(&["chat", "example", "--resume", "--prompt", "x"], "9\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("there is no conversation 9 in the list (1-1)"),
        "{}",
        err(&o)
    );
    let o = e.rad_with(&["chat", "example", "--resume", "--prompt", "x"], "first\n");
    assert!(
        err(&o).contains("`first` is not a number of the list"),
        "{}",
        err(&o)
    );
}

#[test]
fn list_with_an_agent_shows_its_own_sessions_and_resume_takes_one_up() {
    let e = env();
    let state = e._dir.path().join("agent-state");
    std::fs::create_dir_all(&state).unwrap();
    let ws = e.ws.canonicalize().unwrap();
    // A session started in the agent's own command line.
    std::fs::write(
        state.join("cli-a.json"),
        serde_json::json!({"cwd": ws, "prompts": ["from the cli"]}).to_string(),
    )
    .unwrap();
    let o = e.rad(&["chat", "listing", "--list"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o).contains("agent:cli-a  listing  (the agent's own)")
            && out(&o).contains("from the cli"),
        "{}",
        out(&o)
    );
    let o = e.rad(&["chat", "listing", "--list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(listed[0]["source"], "agent", "{listed}");
    let o = e.rad(&[
        "chat",
        "listing",
        "--resume",
        "agent:cli-a",
        "--prompt",
        "remember",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(
        out(&o),
        "I remember: from the cli; earlier turns given as context: 0\n"
    );
    assert!(
        err(&o).contains("took up its own session cli-a"),
        "{}",
        err(&o)
    );
    // Now radium's conversation: no longer listed as the agent's own.
    let o = e.rad(&["chat", "listing", "--list"]);
    assert!(!out(&o).contains("agent:cli-a"), "{}", out(&o));
    assert!(out(&o).contains("1 turn(s)"), "{}", out(&o));
}

#[test]
fn a_conversation_open_in_one_rad_chat_is_refused_to_another() {
    use std::io::BufRead as _;
    let e = env();
    let o = e.rad(&["chat", "example", "--prompt", "hello"]);
    assert!(o.status.success(), "{}", err(&o));
    let o = e.rad(&["chat", "--list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_owned();
    // The first process holds the conversation while its chat is open.
    let mut first = e
        .command(&["chat", "example", "--resume", &id])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = std::io::BufReader::new(first.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("continuing conversation") {
        line.clear();
        assert!(
            said.read_line(&mut line).unwrap() > 0,
            "the first chat ended"
        );
    }
    let o = e.rad(&["chat", "example", "--resume", &id, "--prompt", "hi"]);
    assert!(!o.status.success(), "{}", out(&o));
    assert!(
        err(&o).contains(&format!("conversation `{id}` is open in another chat")),
        "{}",
        err(&o)
    );
    drop(first.stdin.take());
    assert!(first.wait().unwrap().success());
    // Closed: the second takes it up.
    let o = e.rad(&["chat", "example", "--resume", &id, "--prompt", "hi"]);
    assert!(o.status.success(), "{}", err(&o));
}

#[test]
fn an_agent_that_refuses_to_load_its_session_is_named_with_its_reason() {
    // As Gemini CLI 0.61 refusing a session/load: the agent offers
    // `loadSession`, but no longer has the session.
    let e = env();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/acp-agent/agent.mjs")
        .canonicalize()
        .unwrap();
    let state = e.ws.parent().unwrap().join("loader-state");
    let mut toml = std::fs::read_to_string(e.home.join("agents.toml")).unwrap();
    toml.push_str(&format!(
        "\n[[agents]]\nid = \"loader\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\", \"--load\"]\nenv = {{ EXAMPLE_AGENT_STATE = \"{}\" }}\n",
        script.display(),
        state.display()
    ));
    std::fs::write(e.home.join("agents.toml"), toml).unwrap();
    let o = e.rad(&["chat", "loader", "--prompt", "alpha words"]);
    assert!(o.status.success(), "{}", err(&o));
    // The agent loses its stored session.
    for f in std::fs::read_dir(&state).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    let o = e.rad(&["chat", "loader", "--continue", "--prompt", "remember"]);
    assert!(o.status.success(), "{}", err(&o));
    let stderr = err(&o);
    assert!(
        stderr.contains(
            "the agent refused to take up its own session (`session/load`: session not found: "
        ) && stderr.contains("the earlier turns go with your next prompt as context"),
        "{stderr}"
    );
    assert!(
        stderr.contains("agent `loader` refused to take up its own session"),
        "the notice names the refusal: {stderr}"
    );
    // The earlier turn went as context, shown once.
    let shown = out(&o);
    assert_eq!(shown.matches("> alpha words").count(), 1, "{shown}");
    assert!(
        shown.contains("earlier turns given as context: 1"),
        "{shown}"
    );
}
