//! The memory of streamed turns: turns of 16, 64 and 256 MB of text from
//! the example ACP agent (a real Node process, `stream <n> <size>`) through
//! an `AgentSession` to a Rust callback (`Entry::on_event`), and 1 GB
//! streamed in one session over 16 turns. For each, the heap this process
//! held at its peak above what it held before the turn (a counting global
//! allocator, this bench's binary only), that peak per byte of text, and the
//! process's peak and settled resident size (`VmHWM`, `VmRSS`; the peak is
//! reset before each turn through `/proc/self/clear_refs`). A slow door is
//! measured too: a callback that sleeps 1 ms every 8 events.
//!
//! Run with `cargo bench -p radium-core --bench session_memory`; figures in
//! BENCHMARKS.md. Without `--bench` (what `cargo bench` passes), as under
//! `cargo test --benches` in the test command, or with `--test`, it is a
//! check: one 4 MB turn and a 16 MB session.

#![allow(missing_docs, clippy::print_stdout, clippy::cast_precision_loss)] // a bench prints its own figures, in MB

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use radium_core::{Engine, EngineConfig};
use serde_json::json;

#[path = "../tests/common/counting.rs"]
mod counting;
use counting::{HELD, PEAK};

const MB: usize = 1 << 20;

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Starts a new peak: the heap's, and the resident size's (`VmHWM`).
fn reset_peaks() {
    PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

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

/// A session whose events go to a callback that counts text bytes (and
/// sleeps 1 ms every 8 events when `slow`); answers its id and the
/// receiver of each turn's text bytes, sent at its `turn_end`.
fn open(engine: &Engine, slow: bool) -> (String, mpsc::Receiver<usize>) {
    let r = engine
        .handle_json(json!({"command": "session-new", "args": {"agent": "example"}}))
        .to_json();
    let session = r["data"]["session"].as_str().expect("a session").to_owned();
    let entry = engine.session(&session).expect("entry");
    let (tx, rx) = mpsc::channel();
    let (mut bytes, mut events) = (0, 0u64);
    entry
        .on_event(move |event| {
            let Some(event) = event else { return };
            events += 1;
            if slow && events % 8 == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            match event["type"].as_str() {
                Some("text") => bytes += event["text"].as_str().map_or(0, str::len),
                Some("turn_end") => {
                    let _ = tx.send(std::mem::take(&mut bytes));
                }
                Some("error") => panic!("{event}"),
                _ => {}
            }
        })
        .expect("subscribe");
    (session, rx)
}

/// What one turn cost: heap peak above the start, resident peak and after.
struct Cost {
    heap_peak: usize,
    hwm_kib: u64,
    rss_kib: u64,
}

/// One turn of `mb` MB in chunks of `size` bytes, to its `turn_end`.
fn turn(engine: &Engine, session: &str, done: &mpsc::Receiver<usize>, mb: usize, size: usize) {
    let n = mb * MB / size;
    let prompt = format!("stream {n} {size}");
    let r = engine
        .handle_json(
            json!({"command": "session-prompt", "args": {"session": session, "prompt": prompt}}),
        )
        .to_json();
    assert_eq!(r["ok"], true, "{r}");
    let got = done
        .recv_timeout(Duration::from_secs(600))
        .expect("the turn's end");
    assert_eq!(got, n * size, "every byte of the turn's text came");
}

fn measured(f: impl FnOnce()) -> Cost {
    std::thread::sleep(Duration::from_millis(100));
    let start = HELD.load(Ordering::Relaxed);
    reset_peaks();
    f();
    // The callback's task and the forwarder settle.
    std::thread::sleep(Duration::from_millis(200));
    Cost {
        heap_peak: PEAK.load(Ordering::Relaxed).saturating_sub(start),
        hwm_kib: status_kib("VmHWM:"),
        rss_kib: status_kib("VmRSS:"),
    }
}

fn report(what: &str, text: usize, cost: &Cost) {
    println!(
        "{what:<44} heap peak {:>7.1} MB ({:.2} B per byte of text), VmHWM {:>6.1} MB, VmRSS after {:>6.1} MB",
        cost.heap_peak as f64 / MB as f64,
        cost.heap_peak as f64 / text as f64,
        cost.hwm_kib as f64 / 1024.0,
        cost.rss_kib as f64 / 1024.0,
    );
}

fn main() {
    // criterion's rule: only `cargo bench` (which passes `--bench`) measures.
    let quick =
        std::env::args().any(|a| a == "--test") || !std::env::args().any(|a| a == "--bench");
    let b = bench_env();
    println!(
        "before any session: VmRSS {:.1} MB",
        status_kib("VmRSS:") as f64 / 1024.0
    );
    let sizes: &[usize] = if quick { &[4] } else { &[16, 64, 256] };
    for slow in [false, true] {
        let (session, done) = open(&b.engine, slow);
        let door = if slow { "slow door" } else { "door" };
        for &mb in sizes {
            let cost = measured(|| turn(&b.engine, &session, &done, mb, 4096));
            report(
                &format!("one turn, {mb} MB in 4 KiB chunks, {door}"),
                mb * MB,
                &cost,
            );
        }
        let mb = if quick { 1 } else { 16 };
        let cost = measured(|| turn(&b.engine, &session, &done, mb, 64));
        report(
            &format!("one turn, {mb} MB in 64 B chunks, {door}"),
            mb * MB,
            &cost,
        );
        b.engine
            .handle_json(json!({"command": "session-close", "args": {"session": session}}));
    }
    let (session, done) = open(&b.engine, false);
    let (turns, mb) = if quick { (4, 4) } else { (16, 64) };
    let cost = measured(|| {
        for _ in 0..turns {
            turn(&b.engine, &session, &done, mb, 4096);
        }
    });
    report(
        &format!(
            "{} MB in one session ({turns} turns of {mb} MB)",
            turns * mb
        ),
        turns * mb * MB,
        &cost,
    );
    let under = cost.hwm_kib < 300 * 1024;
    println!(
        "goal: the process under 300 MB while 1 GB streams: {}",
        if quick {
            "(not measured with --test)"
        } else if under {
            "met"
        } else {
            "NOT met"
        }
    );
}
