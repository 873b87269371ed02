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
    // The agent's commands come first (it sends them at the start).
    assert_eq!(events[0]["type"], "commands", "{events:?}");
    assert_eq!(events[1]["type"], "plan");
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
    // No agent of this run is left: its group was sent SIGKILL, which a
    // loaded machine may take a moment to carry out.
    let script = "agent.mjs";
    let left = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|p| {
                let p = p.ok()?.path();
                let cmd =
                    String::from_utf8_lossy(&std::fs::read(p.join("cmdline")).ok()?).into_owned();
                let cwd = std::fs::read_link(p.join("cwd")).ok()?;
                (cmd.contains(script) && cwd == e.ws).then_some(())
            })
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while left() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(left(), 0, "the agent was ended");
}

/// `rad chat` with the unruly agent (tests/agents/unruly-agent.mjs) as
/// `unruly`, beside the example one.
fn unruly_env() -> Env {
    let e = env();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/agents/unruly-agent.mjs")
        .canonicalize()
        .unwrap();
    let agents = e.home.join("agents.toml");
    let mut toml = std::fs::read_to_string(&agents).unwrap();
    toml.push_str(&format!(
        "\n[[agents]]\nid = \"unruly\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\"]\n",
        script.display()
    ));
    std::fs::write(agents, toml).unwrap();
    e
}

/// Runs `rad` to its end: its output, and its peak memory in MiB (from
/// `wait4`, the process's own high-water mark).
// The child is reaped by `wait4`, not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn rad_with_peak(e: &Env, args: &[&str]) -> (Output, u64) {
    use std::io::Read as _;
    let mut child = e
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut all = Vec::new();
        stdout.read_to_end(&mut all).unwrap();
        all
    });
    let errs = std::thread::spawn(move || {
        let mut all = Vec::new();
        stderr.read_to_end(&mut all).unwrap();
        all
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is this test's own child, not waited for elsewhere.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    let status = std::os::unix::process::ExitStatusExt::from_raw(status);
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: errs.join().unwrap(),
    };
    // ru_maxrss is in KiB on Linux.
    (output, usage.ru_maxrss as u64 / 1024)
}

#[test]
fn a_line_of_400_mib_is_skipped_without_being_kept() {
    let e = unruly_env();
    let (o, peak) = rad_with_peak(&e, &["chat", "unruly", "--prompt", "hugeline 400"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("a line over 64 MiB (skipped)"),
        "{}",
        err(&o)
    );
    assert_eq!(out(&o), "after\n");
    // The line's first 64 MiB are read, never the rest (it was 1 GB for a
    // 1 GB line).
    assert!(peak < 250, "rad chat peaked at {peak} MiB");
}

#[test]
fn a_flood_of_small_chunks_is_not_held_many_times() {
    // 1,000,000 chunks of 100 bytes (it held 775 MB).
    let e = unruly_env();
    let (o, peak) = rad_with_peak(&e, &["chat", "unruly", "--prompt", "stream 1000000 100"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o).trim_end().len(), 100_000_000);
    assert!(err(&o).contains("over 32 MiB"), "{}", err(&o));
    assert!(peak < 400, "rad chat peaked at {peak} MiB");
}

#[test]
fn a_huge_tool_call_diff_is_summarized() {
    // 100,000 changed lines (it froze rad chat for 113 s).
    let e = unruly_env();
    let o = e.rad(&["chat", "unruly", "--prompt", "bigdiff 100000"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains(
            "[diff of big.txt not shown: 100000 lines before, 100000 after (more than 20000)]"
        ),
        "{}",
        &text[..text.len().min(2000)]
    );
    // A diff within the limit is shown.
    let o = e.rad(&["chat", "unruly", "--prompt", "bigdiff 3"]);
    let text = out(&o);
    assert!(
        text.contains("-old line 0\n-old line 1\n-old line 2\n+new line 0\n"),
        "{text}"
    );
}

#[test]
fn yes_never_allows_a_path_outside_announced_before_the_request() {
    let e = unruly_env();
    let outside = e.ws.parent().unwrap().join("outside.txt");
    let outside = outside.to_str().unwrap();
    for verb in ["announce", "later", "rawinput"] {
        let o = e.rad(&[
            "chat",
            "unruly",
            "--yes",
            "--prompt",
            &format!("{verb} {outside}"),
        ]);
        assert!(o.status.success(), "{}", err(&o));
        let text = out(&o);
        assert!(
            text.contains("[permission] rejected by radium"),
            "{verb}: {text}"
        );
        assert!(text.contains(r#""optionId":"reject""#), "{verb}: {text}");
    }
}

#[test]
fn agents_check_says_which_agents_start_and_why_one_does_not() {
    let e = env();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/agents/unruly-agent.mjs")
        .canonicalize()
        .unwrap();
    let agents = e.home.join("agents.toml");
    let mut toml = std::fs::read_to_string(&agents).unwrap();
    toml.push_str(&format!(
        "\n[[agents]]\nid = \"broken\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\"]\nenv = {{ UNRULY_REFUSE_NEW = \"Query closed before response received\" }}\n",
        script.display()
    ));
    std::fs::write(agents, toml).unwrap();
    let o = e.rad(&["agents", "check", "example"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "example: OK\n");
    // Every agent: the broken one fails the run, with its reason and stderr.
    let o = e.rad(&["agents", "check"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = out(&o);
    assert!(text.contains("example: OK\n"), "{text}");
    assert!(text.contains("broken: FAILED\n  agent `broken` refused `session/new`: Internal error (code -32603): Query closed before response received"), "{text}");
    assert!(text.contains("  unruly: the query closed"), "{text}");
    assert!(
        err(&o).contains("1 of 2 agents did not start"),
        "{}",
        err(&o)
    );
    // An unknown id is a failure too; --json gives the engine's answer.
    let o = e.rad(&["agents", "check", "--json", "nobody"]);
    assert_eq!(o.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_str(out(&o).trim()).unwrap();
    assert_eq!(answer["ok"], false);
    assert_eq!(answer["agents"][0]["code"], "unknown_agent", "{answer}");
    // `rad chat` with it says the same.
    let o = e.rad(&["chat", "broken", "--prompt", "hi"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("Query closed before response received")
            && err(&o).contains("unruly: the query closed"),
        "{}",
        err(&o)
    );
    // `rad agents` still lists them.
    let o = e.rad(&["agents"]);
    assert!(
        o.status.success() && out(&o).contains("\"broken\""),
        "{}",
        out(&o)
    );
}

#[test]
fn a_command_and_its_output_are_shown_under_the_tool_call_folded_when_long() {
    let e = env();
    let o = e.rad(&["chat", "example", "--prompt", "shell seq 1 30"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let shown = "[tool] Terminal (execute, pending)\n  $ seq 1 30\n    1\n";
    assert!(text.contains(shown), "{text}");
    assert!(
        text.contains("    8\n    … 14 more lines\n    23\n"),
        "{text}"
    );
    assert!(text.contains("    30\n[tool] completed\n"), "{text}");
    assert!(!text.contains("    15\n"), "{text}");
    // The output is printed once, though the agent sent it twice.
    assert_eq!(text.matches("    1\n").count(), 1, "{text}");

    // A short one is shown whole; one run elsewhere names its folder.
    std::fs::create_dir_all(e.ws.join("sub")).unwrap();
    let o = e.rad(&["chat", "example", "--prompt", "shellin sub echo here"]);
    let text = out(&o);
    assert!(
        text.contains("  $ echo here   (in sub)\n    here\n[tool] completed\n"),
        "{text}"
    );
}

#[test]
fn a_failed_command_shows_its_error_output_and_exit_code() {
    let e = env();
    let o = e.rad(&["chat", "example", "--prompt", "shell echo oops >&2; exit 3"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains("  $ echo oops >&2; exit 3\n    oops\n    [exit 3]\n[tool] failed\n"),
        "{text}"
    );
}

#[test]
fn a_gemini_style_command_shows_its_output_and_json_carries_it() {
    let e = env();
    let o = e.rad(&["chat", "example", "--prompt", "gshell echo from gemini"]);
    let text = out(&o);
    assert!(
        text.contains(
            "[tool] echo from gemini (execute, in_progress)\n    from gemini\n[tool] completed\n"
        ),
        "{text}"
    );

    let o = e.rad(&["chat", "example", "--json", "--prompt", "shell echo hi"]);
    let events: Vec<serde_json::Value> = out(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ended = events
        .iter()
        .find(|e| e["type"] == "tool_call_update" && e["status"] == "completed")
        .expect("the call's end");
    assert_eq!(ended["output"], "hi\n", "{ended}");
    assert_eq!(ended["exit_code"], 0, "{ended}");
    assert!(
        events.iter().any(|e| e["command"] == "echo hi"),
        "{events:?}"
    );
}

/// `rad chat --yes` with the example agent's `verb` writing `rate = 2`
/// over `rate = 1` in price.py: the diff is drawn once, against the file,
/// before the permission is answered.
fn drawn_once_before_the_answer(e: &Env, verb: &str) {
    let prompt = format!("{verb} price.py rate = 2");
    let o = e.rad(&["chat", "example", "--yes", "--prompt", &prompt]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let diff = text.find("-rate = 1\n+rate = 2\n").expect(&text);
    let allowed = text.find("[permission] allowed").expect(&text);
    assert!(diff < allowed, "the diff after the answer: {text}");
    assert_eq!(text.matches("+rate = 2\n").count(), 1, "drawn once: {text}");
}

#[test]
fn a_whole_file_write_announced_with_a_null_old_text_is_drawn_once_against_the_file() {
    let e = env();
    std::fs::write(e.ws.join("price.py"), "rate = 1\n").unwrap();
    // Claude Code's adapter announces a whole-file write with `oldText:
    // null`: the file exists, so it is drawn against the file, once, not as
    // a new file and again at the permission request.
    drawn_once_before_the_answer(&e, "nullwrite");
}

#[test]
fn a_diff_sent_only_with_the_permission_request_is_shown_before_it_is_answered() {
    let e = env();
    std::fs::write(e.ws.join("price.py"), "rate = 1\n").unwrap();
    // Announced without its diff (as Claude Code's adapter does): the diff
    // comes with the permission request and is drawn before the answer.
    drawn_once_before_the_answer(&e, "latewrite");
    // Without --yes nobody answers, and the diff was still shown.
    let o = e.rad(&["chat", "example", "--prompt", "latewrite price.py rate = 3"]);
    let text = out(&o);
    assert!(text.contains("-rate = 2\n+rate = 3\n"), "{text}");
    assert!(err(&o).contains("rejected Write"), "{}", err(&o));
    assert_eq!(
        std::fs::read_to_string(e.ws.join("price.py")).unwrap(),
        "rate = 2\n"
    );
}
