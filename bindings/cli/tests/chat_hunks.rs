//! `rad chat`'s per-hunk review at the permission prompt, with the example
//! ACP agent (a real process speaking ACP v1), its answers piped to stdin.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::PathBuf;
use std::process::{Command, Stdio};

mod common;
use common::{agent_home, err, out, AgentHome};

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
    fn rad(&self, args: &[&str]) -> std::process::Output {
        self.command(args).output().unwrap()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.rad(&["shutdown"]);
    }
}

#[test]
fn h_reviews_each_hunk_and_only_the_kept_one_lands_undone_by_its_tag() {
    use std::io::Write as _;
    let e = env();
    let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
    std::fs::write(e.ws.join("f.txt"), old).unwrap();
    // stdin's lines: the prompt, `h` at the question, keep hunk 1, not hunk 2.
    let mut child = e
        .command(&["chat", "example"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let script = "selflines f.txt a|B|c|d|e|f|G|h\nh\ny\nn\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let (text, asked) = (out(&o), err(&o));
    assert!(asked.contains("[y/N/h: review hunks]"), "{asked}");
    assert!(
        asked.contains("Keep hunk 1 of 2 of f.txt? [y/n]"),
        "{asked}"
    );
    assert!(
        asked.contains("Keep hunk 2 of 2 of f.txt? [y/n]"),
        "{asked}"
    );
    let first = text
        .find("[hunk 1 of 2, f.txt] @@ -2,1 +2,1 @@\n-b\n+B\n")
        .expect(&text);
    let second = text
        .find("[hunk 2 of 2, f.txt] @@ -7,1 +7,1 @@\n-g\n+G\n")
        .expect(&text);
    assert!(first < second, "{text}");
    assert!(
        text.contains("/f.txt; rejected hunks left out: 2]"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(e.ws.join("f.txt")).unwrap(),
        "a\nB\nc\nd\ne\nf\ng\nh\n"
    );
    let tag = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("[tag: ")
                .map(|t| t.trim_end_matches(']').to_owned())
        })
        .expect(&text);
    let u = e.rad(&["undo", "--tag", &tag]);
    assert!(u.status.success(), "{}", err(&u));
    assert_eq!(std::fs::read_to_string(e.ws.join("f.txt")).unwrap(), old);
}

#[test]
fn piped_answers_other_than_y_or_h_reject() {
    use std::io::Write as _;
    let e = env();
    std::fs::write(e.ws.join("f.txt"), "a\n").unwrap();
    let mut child = e
        .command(&["chat", "example"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let script = "selflines f.txt b\nwhat\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(out(&o).contains("[permission] rejected"), "{}", out(&o));
    assert_eq!(std::fs::read_to_string(e.ws.join("f.txt")).unwrap(), "a\n");
}
