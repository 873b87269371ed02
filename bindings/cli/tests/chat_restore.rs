//! One undo per turn and "restore the files to before this prompt" in
//! `rad chat` and `rad rewind`, with the example ACP agent writing two files
//! in one turn (one through radium, one by itself, then the first again).

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

fn env() -> Env {
    let AgentHome { dir, ws, home } = agent_home();
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
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
    /// `rad chat example --yes` with `input` as its lines.
    fn chat(&self, input: &str) -> Output {
        let mut child = self
            .command(&["chat", "example", "--yes"])
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
    fn read(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.ws.join(name)).ok()
    }
}

/// The `[tag: ...]` line of an edit command's or a turn's output.
impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.rad(&["shutdown"]);
    }
}

fn tag_of(o: &Output) -> String {
    out(o)
        .lines()
        .find_map(|l| {
            l.strip_prefix("[tag: ")
                .map(|t| t.trim_end_matches(']').to_owned())
        })
        .unwrap_or_else(|| panic!("no tag in {}", out(o)))
}

#[test]
fn one_rad_undo_takes_the_whole_turn_back_and_one_redo_brings_it_back() {
    let e = env();
    let o = e.rad(&[
        "chat",
        "example",
        "--yes",
        "--prompt",
        "twowrite a.txt b.txt hello",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let tag = tag_of(&o);
    let u = e.rad(&["undo", "--tag", &tag]);
    assert!(u.status.success(), "{}", err(&u));
    assert_eq!(e.read("a.txt").as_deref(), Some("a\n"), "{}", out(&u));
    assert_eq!(e.read("b.txt"), None, "{}", out(&u));
    let r = e.rad(&["redo", "--tag", &tag_of(&u)]);
    assert!(r.status.success(), "{}", err(&r));
    assert_eq!(e.read("a.txt").as_deref(), Some("hello again\n"));
    assert_eq!(e.read("b.txt").as_deref(), Some("hello\n"));

    // `rad rewind --dry-run` lists what a rewind would change, and changes nothing.
    let before = e.rad(&["rewind", &tag_of(&u), "--dry-run"]);
    assert!(before.status.success(), "{}", err(&before));
    assert!(out(&before).contains("\"a.txt\""), "{}", out(&before));
    assert!(out(&before).contains("\"b.txt\""), "{}", out(&before));
    assert_eq!(e.read("b.txt").as_deref(), Some("hello\n"));
    let bad = e.rad(&["rewind", "nope-nope"]);
    assert!(!bad.status.success());
    assert!(err(&bad).contains("nothing changed"), "{}", err(&bad));
}

#[test]
fn restore_lists_the_prompts_shows_the_files_and_asks_first() {
    let e = env();
    let o =
        e.chat("twowrite a.txt b.txt hello\n/restore\n/restore 7\n/restore 1\nn\n/restore 1\ny\n");
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains("  1. twowrite a.txt b.txt hello"), "{text}");
    assert!(
        err(&o).contains("`7` is not a prompt's number"),
        "{}",
        err(&o)
    );
    assert!(
        text.contains("  a.txt\n  b.txt\n"),
        "the files first: {text}"
    );
    assert!(
        text.contains("[restore] nothing changed"),
        "N keeps them: {text}"
    );
    assert!(
        err(&o).contains("Restore these files? [y/N]"),
        "{}",
        err(&o)
    );
    assert!(text.contains("[restored a.txt, b.txt]"), "{text}");
    assert_eq!(e.read("a.txt").as_deref(), Some("a\n"));
    assert_eq!(e.read("b.txt"), None);
}
