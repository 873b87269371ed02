//! `rad agents list`, `rad agents install`, `rad agents check` and `rad
//! chat` with no agent named, on a fresh install: a new `RADIUM_HOME` and
//! `XDG_CACHE_HOME`, no agents.toml anywhere.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod common;
use common::{err, out};

struct Fresh {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    cache: PathBuf,
}

fn fresh() -> Fresh {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home, cache) = (
        dir.path().join("ws"),
        dir.path().join("home"),
        dir.path().join("cache"),
    );
    for d in [&ws, &home, &cache] {
        std::fs::create_dir_all(d).unwrap();
    }
    Fresh {
        _dir: dir,
        ws,
        home,
        cache,
    }
}

/// The folders of this test's PATH that hold `node` and `npm`, and the
/// system's: a PATH with neither catalogue agent program on it.
fn plain_path() -> String {
    let node = which("node").expect("node is needed for the example ACP agent");
    format!("{}:/usr/bin:/bin", node.parent().unwrap().display())
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Fresh {
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rad"));
        c.args(args)
            .env("RADIUM_HOME", &self.home)
            .env("XDG_CACHE_HOME", &self.cache)
            .env("RADIUM_DAEMON_IDLE", "20")
            .env("PATH", plain_path())
            .env_remove("NPM_CONFIG_PREFIX")
            .env_remove("npm_config_prefix")
            .current_dir(&self.ws)
            .stdin(Stdio::null());
        c
    }

    fn rad(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Puts a finished install of catalogue agent `folder`'s `bin` in
    /// radium's cache, as `rad agents install` leaves it; its program runs
    /// radium's example ACP agent.
    fn installed(&self, folder: &str, bin: &str) -> PathBuf {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/acp-agent/agent.mjs")
            .canonicalize()
            .unwrap();
        let dir = self.cache.join("radium/agents").join(folder);
        let program = dir.join("node_modules/.bin").join(bin);
        std::fs::create_dir_all(program.parent().unwrap()).unwrap();
        std::fs::write(
            &program,
            format!("#!/bin/sh\nexec node '{}'\n", script.display()),
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.join(".complete"), folder).unwrap();
        program
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        let _ = self.rad(&["shutdown"]);
    }
}

fn line_of<'a>(text: &'a str, id: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(id))
        .unwrap_or_else(|| panic!("no line for {id}: {text}"))
}

#[test]
fn agents_list_shows_the_catalogue_with_status_and_sign_in_on_a_fresh_install() {
    let f = fresh();
    let o = f.rad(&["agents", "list"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    for id in ["claude", "gemini", "codex", "opencode"] {
        assert!(
            line_of(&text, id).contains(&format!("not installed  `rad agents install {id}`")),
            "{text}"
        );
    }
    assert!(line_of(&text, "claude").contains("@zed-industries/claude-agent-acp@0.23.1"));
    assert!(line_of(&text, "gemini").contains("@google/gemini-cli@0.61.0"));
    assert!(
        line_of(&text, "example").contains("installed      built into radium"),
        "{text}"
    );
    assert!(text.contains("sign in: set GEMINI_API_KEY"), "{text}");
    assert!(text.contains("note: run as root with IS_SANDBOX"), "{text}");
    // Installed into the cache: listed with its place.
    let program = f.installed("gemini-cli@0.61.0", "gemini");
    let o = f.rad(&["agents", "list", "--json"]);
    let data: serde_json::Value = serde_json::from_str(out(&o).trim()).unwrap();
    let gemini = data["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "gemini")
        .unwrap();
    assert_eq!(gemini["status"], "installed", "{gemini}");
    assert_eq!(gemini["found"], "cache");
    assert_eq!(
        gemini["command"],
        serde_json::json!([program, "--acp"]),
        "{gemini}"
    );
    let o = f.rad(&["agents", "list"]);
    assert!(
        line_of(&out(&o), "gemini").contains("installed      radium's cache: "),
        "{}",
        out(&o)
    );
}

#[test]
fn chat_with_no_agent_runs_the_only_ready_one_and_otherwise_names_them() {
    let f = fresh();
    // None ready: says how to get one.
    let o = f.rad(&["chat", "--prompt", "hello"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(
        err(&o).contains("rad chat: no agent is ready: `rad agents list` shows radium's catalogue, `rad agents install ID` installs one"),
        "{}",
        err(&o)
    );
    // One installed agent and no agents.toml: a turn runs with it.
    f.installed("gemini-cli@0.61.0", "gemini");
    let o = f.rad(&["chat", "--prompt", "hello"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "You said: hello\n");
    let o = f.rad(&["agents", "check", "gemini"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "gemini: OK\n");
    // Two ready and no terminal to ask on: an error naming both.
    f.installed("opencode-ai@1.18.33", "opencode");
    let o = f.rad(&["chat", "--prompt", "hello"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(
        err(&o).contains("name the agent: `rad chat AGENT`, one of: gemini, opencode"),
        "{}",
        err(&o)
    );
}

#[test]
fn install_and_check_say_what_is_wrong() {
    let f = fresh();
    let o = f.rad(&["agents", "install", "nobody"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("`nobody` is not in radium's catalogue (one of: claude, gemini, codex, opencode, example)"),
        "{}",
        err(&o)
    );
    // npm missing from PATH.
    let o = f
        .command(&["agents", "install", "gemini"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains(
            "installing agent `gemini` failed: npm is not on PATH: install Node.js 20 or later"
        ),
        "{}",
        err(&o)
    );
    // npm that cannot reach its registry: the reason, and no folder left.
    if which("npm").is_some() {
        let o = f
            .command(&["agents", "install", "gemini"])
            .env("npm_config_registry", "http://127.0.0.1:9/")
            .env("npm_config_cache", f.cache.join("npm"))
            .env("npm_config_fetch_retries", "0")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", out(&o));
        assert!(
            err(&o).contains("npm could not reach the registry")
                && err(&o).contains("ECONNREFUSED"),
            "{}",
            err(&o)
        );
        let left: Vec<_> = std::fs::read_dir(f.cache.join("radium/agents"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "a failed install left {left:?}");
    }
    // Checking an agent that is not installed says how to install it.
    let o = f.rad(&["agents", "check", "codex"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        out(&o).contains("codex: FAILED\n  agent `codex` is not installed: `rad agents install codex` installs @zed-industries/codex-acp@0.16.0"),
        "{}",
        out(&o)
    );
    // An install that is there already fetches nothing.
    f.installed("gemini-cli@0.61.0", "gemini");
    let o = f.rad(&["agents", "install", "gemini"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o).contains("@google/gemini-cli@0.61.0 is installed already"),
        "{}",
        out(&o)
    );
}

/// `rad chat` with stdin a terminal (util-linux `script` gives it one) and
/// `answer` typed there.
fn chat_on_a_terminal(f: &Fresh, answer: &str) -> (Option<i32>, String) {
    let script = which("script").expect("util-linux `script` is needed for a terminal");
    let rad = env!("CARGO_BIN_EXE_rad");
    let c = f.command(&[]);
    let mut child = Command::new(script)
        .args(["-qec", &format!("{rad} chat --prompt hello"), "/dev/null"])
        .envs(
            c.get_envs()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
        )
        .current_dir(&f.ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        format!("{}{}", out(&o), err(&o)).replace('\r', ""),
    )
}

#[test]
fn chat_with_no_agent_asks_on_a_terminal_which_ready_agent() {
    let f = fresh();
    f.installed("gemini-cli@0.61.0", "gemini");
    f.installed("opencode-ai@1.18.33", "opencode");
    let (code, text) = chat_on_a_terminal(&f, "2\n");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("  1. gemini\n  2. opencode\nchat with which agent (1-2)? "),
        "{text}"
    );
    assert!(
        text.contains("rad chat: opencode"),
        "the second was taken: {text}"
    );
    assert!(text.contains("You said: hello"), "{text}");
    let (code, text) = chat_on_a_terminal(&f, "x\n");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("rad chat: `x` is not a number of the list"),
        "{text}"
    );
    let (code, text) = chat_on_a_terminal(&f, "7\n");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("rad chat: there is no agent 7 in the list (1-2)"),
        "{text}"
    );
}
