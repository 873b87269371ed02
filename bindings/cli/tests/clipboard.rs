//! `rad clipboard receive` run as a real process, with the answer on stdin
//! (the system clipboard itself is tested under Xvfb by
//! scripts/test-clipboard.sh): a block answering a range replaces that
//! range only, and a block that would delete most of a file is refused
//! unless `--whole-file` asks for it.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const LIB: &str =
    "int one(void) { return 1; }\nint two(void) { return 2; }\nint three(void) { return 3; }\n";

struct Ws {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(ws.join("src/lib.c"), LIB).unwrap();
    Ws {
        _dir: dir,
        ws,
        home,
    }
}

fn rad(w: &Ws, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .env("RADIUM_HOME", &w.home)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(&w.ws)
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

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn lib(w: &Ws) -> String {
    std::fs::read_to_string(w.ws.join("src/lib.c")).unwrap()
}

fn receive(w: &Ws, extra: &[&str], answer: &str) -> Output {
    let mut args = vec!["clipboard", "receive", "--stdin"];
    args.extend_from_slice(extra);
    rad(w, &args, answer)
}

fn assert_unchanged(w: &Ws, what: &str) {
    assert_eq!(lib(w), LIB, "{what}: src/lib.c was written");
}

#[test]
fn a_block_answering_a_sent_range_replaces_that_range_only() {
    let w = ws();
    // What `send --lines 2` puts on the clipboard says which lines it holds.
    let sent = rad(
        &w,
        &["clipboard", "send", "src/lib.c", "--lines", "2", "--print"],
        "",
    );
    assert!(sent.status.success(), "{}", text(&sent));
    let sent = String::from_utf8(sent.stdout).unwrap();
    assert!(
        sent.contains("```c:src/lib.c lines=2\nint two(void) { return 2; }\n```"),
        "{sent}"
    );
    // The sent text read back (a clipboard nobody copied to since) changes
    // nothing: its snippet is line 2, never the whole file.
    let back = receive(&w, &["--apply"], &sent);
    assert!(back.status.success(), "{}", text(&back));
    assert!(text(&back).contains("nothing applied"), "{}", text(&back));
    assert_unchanged(&w, "the sent text read back");

    let answer = "Fixed:\n\n```c:src/lib.c lines=2\nint two(void) { return 22; }\n```\n";
    let listed = receive(&w, &[], answer);
    assert!(listed.status.success(), "{}", text(&listed));
    assert!(
        text(&listed).contains("block 1: src/lib.c (c, 1 lines): changed"),
        "{}",
        text(&listed)
    );
    assert!(
        text(&listed).contains("-int two(void) { return 2; }\n+int two(void) { return 22; }"),
        "{}",
        text(&listed)
    );
    assert_unchanged(&w, "a listing");
    let applied = receive(&w, &["--apply"], answer);
    assert!(applied.status.success(), "{}", text(&applied));
    assert!(
        text(&applied).contains("applied: 1 file(s)"),
        "{}",
        text(&applied)
    );
    assert_eq!(
        lib(&w),
        "int one(void) { return 1; }\nint two(void) { return 22; }\nint three(void) { return 3; }\n"
    );
}

#[test]
fn a_range_the_file_no_longer_has_is_refused() {
    let w = ws();
    let out = receive(&w, &["--apply"], "```c:src/lib.c lines=3-5\nx\n```\n");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("answers lines 3-5 of `src/lib.c`, which has 3 lines now"),
        "{}",
        text(&out)
    );
    assert_unchanged(&w, "a range past the end");
    let out = receive(&w, &["--apply"], "```c:src/gone.c lines=1\nx\n```\n");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("`src/gone.c`, which does not exist"),
        "{}",
        text(&out)
    );
    assert!(!w.ws.join("src/gone.c").exists());
}

#[test]
fn a_block_that_would_delete_most_of_a_file_needs_whole_file() {
    let w = ws();
    let snippet = "```c:src/lib.c\nint two(void) { return 22; }\n```\n";
    let listed = receive(&w, &[], snippet);
    assert!(listed.status.success(), "{}", text(&listed));
    assert!(
        text(&listed).contains("block 1: src/lib.c (c, 1 lines): snippet"),
        "{}",
        text(&listed)
    );
    let refused = receive(&w, &["--apply"], snippet);
    assert!(!refused.status.success(), "{}", text(&refused));
    assert!(
        text(&refused).contains(
            "has 1 line(s) for `src/lib.c`, which has 3: writing it would delete most of the file"
        ),
        "{}",
        text(&refused)
    );
    assert_unchanged(&w, "a snippet without --whole-file");
    // A whole file that keeps half of the lines or more is not a snippet.
    let shorter =
        "```c:src/lib.c\nint one(void) { return 1; }\nint two(void) { return 22; }\n```\n";
    let out = receive(&w, &["--apply"], shorter);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        lib(&w),
        "int one(void) { return 1; }\nint two(void) { return 22; }\n"
    );
    std::fs::write(w.ws.join("src/lib.c"), LIB).unwrap();
    // Asked for: the file becomes the block.
    let forced = receive(&w, &["--apply", "--whole-file"], snippet);
    assert!(forced.status.success(), "{}", text(&forced));
    assert_eq!(lib(&w), "int two(void) { return 22; }\n");
}
