//! Edit-tool figures: str-replace on a 10 MB file, undo/redo of 1,000
//! changesets, history bytes against bytes changed, and one command in-process
//! against through the daemon. `cargo run --release -p radium-core --example edit_bench`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::pedantic)]

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
}
