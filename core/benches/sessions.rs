//! Agent sessions with the example ACP agent (a real Node process): a turn
//! streaming 1 MB in 4 KiB chunks to a Rust callback (`Entry::on_event`),
//! per chunk; 1000 chunks of 64 bytes; a session from `session-new` to ready;
//! and the memory an idle session costs radium (resident size of this
//! process, the agent's own process not counted).
//!
//! Run with `cargo bench -p radium-core --bench sessions`; figures in BENCHMARKS.md.

#![allow(missing_docs, clippy::print_stdout)] // a bench prints its own figure

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use radium_core::{Engine, EngineConfig};
use serde_json::json;

struct Bench {
    _dir: tempfile::TempDir,
    engine: Engine,
}

fn bench_env() -> Bench {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&ws).expect("ws");
    std::fs::create_dir_all(&home).expect("home");
    let agent = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/acp-agent/agent.mjs")
        .canonicalize()
        .expect("the example agent");
    std::fs::write(
        home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", {:?}]\n",
            agent.to_string_lossy()
        ),
    )
    .expect("agents.toml");
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws),
        radium_home: Some(home),
        ..EngineConfig::default()
    })
    .expect("engine");
    Bench { _dir: dir, engine }
}

fn open(engine: &Engine) -> String {
    let r = engine
        .handle_json(json!({"command": "session-new", "args": {"agent": "example"}}))
        .to_json();
    r["data"]["session"].as_str().expect("a session").to_owned()
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// One turn of `prompt`, to its `turn_end` on a Rust callback; answers how
/// many bytes of text came (chunks that pile up are joined into one event).
fn turn(
    engine: &Engine,
    session: &str,
    events: &mpsc::Receiver<serde_json::Value>,
    prompt: &str,
) -> usize {
    let r = engine
        .handle_json(
            json!({"command": "session-prompt", "args": {"session": session, "prompt": prompt}}),
        )
        .to_json();
    assert_eq!(r["ok"], true, "{r}");
    // Bytes, not events: chunks that pile up behind a fast agent are joined.
    let mut bytes = 0;
    loop {
        let event = events
            .recv_timeout(Duration::from_secs(30))
            .expect("an event");
        match event["type"].as_str() {
            Some("text") => bytes += event["text"].as_str().map_or(0, str::len),
            Some("turn_end") => return bytes,
            Some("error") => panic!("{event}"),
            _ => {}
        }
    }
}

fn streaming(c: &mut Criterion) {
    let b = bench_env();
    let session = open(&b.engine);
    let entry = b.engine.session(&session).expect("entry");
    let (tx, rx) = mpsc::channel();
    entry
        .on_event(move |event| {
            if let Some(event) = event {
                let _ = tx.send(event);
            }
        })
        .expect("subscribe");
    let mut group = c.benchmark_group("session_turn");
    group.sample_size(10);
    group.throughput(Throughput::Elements(256));
    group.bench_function("1MB_in_4KiB_chunks", |bench| {
        bench.iter(|| {
            assert_eq!(
                turn(&b.engine, &session, &rx, "stream 256 4096"),
                256 * 4096
            );
        });
    });
    group.throughput(Throughput::Elements(1000));
    group.bench_function("1000_chunks_of_64B", |bench| {
        bench.iter(|| assert_eq!(turn(&b.engine, &session, &rx, "stream 1000 64"), 1000 * 64));
    });
    // A command's output streamed line by line (`_meta.terminal_output`, as
    // codex-acp streams a terminal): 4,000 updates to one tool call.
    group.throughput(Throughput::Elements(4000));
    group.bench_function("4000_tool_output_lines", |bench| {
        bench.iter(|| {
            turn(&b.engine, &session, &rx, "toollines 4000 95");
        });
    });
    group.finish();

    let mut group = c.benchmark_group("session_open");
    group.sample_size(10);
    group.bench_function("session_new_to_ready", |bench| {
        bench.iter(|| {
            let s = open(&b.engine);
            b.engine
                .handle_json(json!({"command": "session-close", "args": {"session": s}}));
        });
    });
    group.finish();

    // Memory: ten idle sessions, this process's growth (agents not counted).
    let before = rss_kib();
    let started = Instant::now();
    let ten: Vec<String> = (0..10).map(|_| open(&b.engine)).collect();
    std::thread::sleep(Duration::from_millis(200));
    let after = rss_kib();
    println!(
        "idle session: {} KiB of radium's memory each (10 opened in {:?})",
        after.saturating_sub(before) / 10,
        started.elapsed()
    );
    for s in ten {
        b.engine
            .handle_json(json!({"command": "session-close", "args": {"session": s}}));
    }
}

criterion_group!(benches, streaming);
criterion_main!(benches);
