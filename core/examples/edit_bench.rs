//! Edit-tool figures: str-replace on a 14.7 MB file, undo/redo of 1,000
//! changesets, history bytes against bytes changed, and one command in-process
//! against through the daemon; then a 10 MB file's `str-replace`, `insert`
//! and `undo` in turns with a minimal Python durable write, a 100,000-match
//! `str-replace` refused, and a `view` after 10,000 calls without a tag.
//! `cargo run --release -p radium-core --example edit_bench`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::pedantic)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use radium_core::{Engine, EngineConfig, Request};
use serde_json::{json, Value};

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(root.clone()),
        radium_home: Some(home.clone()),
        history_depth: 2000,
        ..EngineConfig::default()
    })
    .unwrap();
    let mut tag: Option<String> = None;
    let mut call = |command: &str, args: Value| {
        let mut r = Request::new(command, args);
        r.tag = tag.clone();
        let out = engine.handle(&r);
        assert!(out.ok, "{command}: {:?}", out.error);
        tag = out.tag;
    };

    let big: String = (0..700_000)
        .map(|i| format!("line number {i:08}\n"))
        .collect();
    std::fs::write(root.join("big.txt"), &big).unwrap();
    let t = Instant::now();
    call(
        "str-replace",
        json!({"path": "big.txt", "old": "line number 00350000\n", "new": "CHANGED\n"}),
    );
    println!(
        "str-replace in a {:.1} MB file: {:?}",
        big.len() as f64 / 1e6,
        t.elapsed()
    );

    std::fs::write(root.join("small.txt"), "").unwrap();
    let t = Instant::now();
    for i in 0..1000 {
        call(
            "insert",
            json!({"path": "small.txt", "line": 0, "text": format!("entry {i}")}),
        );
    }
    let per_edit = t.elapsed() / 1000;
    let t = Instant::now();
    for _ in 0..1000 {
        call("undo", Value::Null);
    }
    let undo = t.elapsed() / 1000;
    let t = Instant::now();
    for _ in 0..1000 {
        call("redo", Value::Null);
    }
    let redo = t.elapsed() / 1000;
    println!("1,000 inserts: {per_edit:?} each; undo {undo:?} each; redo {redo:?} each");

    let history_dir = std::fs::read_dir(&home)
        .unwrap()
        .find_map(|e| {
            let p = e.unwrap().path();
            p.join("history").is_dir().then(|| p.join("history"))
        })
        .unwrap();
    let history_bytes: u64 = std::fs::read_dir(&history_dir)
        .unwrap()
        .map(|f| f.unwrap().metadata().unwrap().len())
        .sum();
    let changed: usize = "line number 00350000\nCHANGED\n".len()
        + (0..1000)
            .map(|i| format!("entry {i}\n").len())
            .sum::<usize>();
    println!("history: {history_bytes} bytes on disk for {changed} bytes changed ({} changesets); the files hold {:.1} MB", 1001, (big.len() + std::fs::metadata(root.join("small.txt")).unwrap().len() as usize) as f64 / 1e6);

    // One command in-process vs through the daemon.
    let n = 2000u32;
    let mut r = Request::new(
        "view",
        json!({"path": "small.txt", "start_line": 1, "end_line": 5}),
    );
    r.tag = tag.clone();
    let t = Instant::now();
    for _ in 0..n {
        assert!(engine.handle(&r).ok);
    }
    let inproc = t.elapsed() / n;
    let daemon_engine = Engine::new(EngineConfig {
        radium_home: Some(home.clone()),
        ..EngineConfig::default()
    })
    .unwrap();
    let server_home = home.clone();
    let server = std::thread::spawn(move || {
        radium_core::daemon::serve(&daemon_engine, &server_home, Duration::from_secs(2))
    });
    let sock = radium_core::daemon::socket_path(&home);
    while radium_core::daemon::send(&home, &Request::new("ping", Value::Null)).is_err() {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut r2 = r.clone();
    r2.cwd = Some(root.to_string_lossy().into_owned());
    let t = Instant::now();
    for _ in 0..n {
        assert!(radium_core::daemon::send(&home, &r2).unwrap().ok);
    }
    let via_daemon = t.elapsed() / n;
    let t = Instant::now();
    for _ in 0..n {
        assert!(
            radium_core::daemon::send(&home, &Request::new("ping", Value::Null))
                .unwrap()
                .ok
        );
    }
    let ping = t.elapsed() / n;
    println!("one `view` round trip: in-process {inproc:?}, through the daemon {via_daemon:?} (new connection each); `ping` through the daemon {ping:?}");
    radium_core::daemon::send(&home, &Request::new("shutdown", Value::Null)).unwrap();
    server.join().unwrap().unwrap();
    let _ = sock;

    big_file(&engine, &root);
    many_matches(&engine, &root);
    tags_pile_up(&root);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The same durable write in Python: read, replace one line, a temporary
/// file beside it, write, fsync, rename. Its own time, without the start-up.
const PYTHON: &str = r#"
import os, sys, time
path = sys.argv[1]
t = time.perf_counter()
with open(path) as f:
    text = f.read()
text = text.replace("line number 00250000\n", "PY\n", 1).replace("PY\n", "line number 00250000\n", 1)
tmp = path + ".py.tmp"
with open(tmp, "w") as f:
    f.write(text)
    f.flush()
    os.fsync(f.fileno())
os.rename(tmp, path)
print((time.perf_counter() - t) * 1e3)
"#;

fn python_write(path: &Path) -> f64 {
    let out = Command::new("python3")
        .args(["-c", PYTHON])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn handle(engine: &Engine, command: &str, args: Value, tag: Option<&str>) -> Option<String> {
    let mut r = Request::new(command, args);
    r.tag = tag.map(str::to_owned);
    let out = engine.handle(&r);
    assert!(out.ok, "{command}: {:?}", out.error);
    out.tag
}

/// `str-replace`, `insert` and `undo` of a 10 MB file, each in turn with
/// the Python durable write of the same file (medians of 7 rounds).
fn big_file(engine: &Engine, root: &Path) {
    let big: String = (0..500_000)
        .map(|i| format!("line number {i:08}\n"))
        .collect();
    let path = root.join("ten.txt");
    std::fs::write(&path, &big).unwrap();
    let (mut python, mut replace, mut insert, mut undo) = (vec![], vec![], vec![], vec![]);
    for round in 0..7 {
        python.push(python_write(&path));
        let t = Instant::now();
        let tag = handle(
            engine,
            "str-replace",
            json!({"path": "ten.txt", "old": format!("line number {:08}\n", 100_000 + round), "new": "CHANGED\n"}),
            None,
        );
        replace.push(ms(t.elapsed()));
        let t = Instant::now();
        let tag = handle(
            engine,
            "insert",
            json!({"path": "ten.txt", "line": 300_000, "text": "inserted"}),
            tag.as_deref(),
        );
        insert.push(ms(t.elapsed()));
        let t = Instant::now();
        handle(engine, "undo", Value::Null, tag.as_deref());
        undo.push(ms(t.elapsed()));
    }
    println!(
        "{:.1} MB file, medians of 7 rounds in turns: str-replace {:.1} ms, insert {:.1} ms, undo {:.1} ms; Python durable write (read, replace, temp file, write, fsync, rename) {:.1} ms",
        big.len() as f64 / 1e6,
        median(replace),
        median(insert),
        median(undo),
        median(python)
    );
}

/// A `str-replace` whose `old` occurs 100,000 times: refused, with the
/// count and the first lines.
fn many_matches(engine: &Engine, root: &Path) {
    let text: String = (0..100_000).map(|i| format!("x = {i}\n")).collect();
    std::fs::write(root.join("many.py"), &text).unwrap();
    let mut times = vec![];
    for _ in 0..5 {
        let t = Instant::now();
        let mut r = Request::new(
            "str-replace",
            json!({"path": "many.py", "old": "x = ", "new": "y = "}),
        );
        r.tag = None;
        let out = engine.handle(&r);
        times.push(ms(t.elapsed()));
        assert!(!out.ok && out.error.unwrap().contains("and 99990 more"));
    }
    println!(
        "str-replace whose `old` occurs 100,000 times ({:.1} MB) refused: {:.2} ms (median of 5)",
        text.len() as f64 / 1e6,
        median(times)
    );
}

/// `view` with a conversation's tag, as `rad mcp` sends it, on a fresh
/// project and after 10,000 calls without a tag (each a `rad` command
/// line: a new conversation and a new tag).
fn tags_pile_up(root: &Path) {
    let home = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(root.to_path_buf()),
        radium_home: Some(home.path().to_path_buf()),
        ..EngineConfig::default()
    })
    .unwrap();
    std::fs::write(root.join("small.py"), "def f():\n    return 1\n").unwrap();
    // As `rad mcp` does: each call sends the tag the last one answered.
    let view = |tag: &mut Option<String>| {
        let n = 2000u32;
        let t = Instant::now();
        for _ in 0..n {
            *tag = handle(&engine, "view", json!({"path": "small.py"}), tag.as_deref());
        }
        t.elapsed() / n
    };
    let mut tag = handle(&engine, "view", json!({"path": "small.py"}), None);
    let fresh = view(&mut tag);
    let t = Instant::now();
    for _ in 0..10_000 {
        handle(&engine, "view", json!({"path": "small.py"}), None);
    }
    let calls = t.elapsed() / 10_000;
    let piled = view(&mut tag);
    let session: u64 = std::fs::read_dir(home.path())
        .unwrap()
        .filter_map(|e| std::fs::metadata(e.unwrap().path().join("session.json")).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "`view` with its conversation's tag: fresh project {fresh:?}, after 10,000 calls without a tag {piled:?} (those calls {calls:?} each; session file {session} bytes)"
    );
}
