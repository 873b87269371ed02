//! The memory a streamed turn holds, counted by this binary's own global
//! allocator (the only test here: nothing else allocates beside it). A turn
//! of 16 MiB from the example ACP agent (a real Node process) holds at most
//! twice its text at its peak for a door that reads as the text comes; one
//! that reads nothing until the turn has ended holds the text it has not
//! read on top (joined, not an event per chunk).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use radium_core::{Engine, EngineConfig};
use serde_json::json;

#[path = "common/counting.rs"]
mod counting;
use counting::{HELD, PEAK};

const MIB: usize = 1 << 20;

/// The heap held at the peak of `f`, above what was held before it.
fn peak_of(f: impl FnOnce()) -> usize {
    std::thread::sleep(Duration::from_millis(100));
    let start = HELD.load(Ordering::Relaxed);
    PEAK.store(start, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed).saturating_sub(start)
}

#[test]
fn a_streamed_turn_holds_at_most_twice_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let agent = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/acp-agent/agent.mjs")
        .canonicalize()
        .unwrap();
    std::fs::write(
        home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", {:?}]\n",
            agent.to_string_lossy()
        ),
    )
    .unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws),
        radium_home: Some(home),
        ..EngineConfig::default()
    })
    .unwrap();
    let open = || {
        let r = engine
            .handle_json(json!({"command": "session-new", "args": {"agent": "example"}}))
            .to_json();
        r["data"]["session"].as_str().unwrap().to_owned()
    };
    let prompt = |s: &str| {
        let r = engine
            .handle_json(json!({"command": "session-prompt",
                                "args": {"session": s, "prompt": "stream 4096 4096"}}))
            .to_json();
        assert_eq!(r["ok"], true, "{r}");
    };
    let text = 16 * MIB;

    // A door that reads as the text comes (and drops it).
    let s = open();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut bytes = 0;
    engine
        .session(&s)
        .unwrap()
        .on_event(move |event| {
            let Some(event) = event else { return };
            match event["type"].as_str() {
                Some("text") => bytes += event["text"].as_str().unwrap().len(),
                Some("turn_end") => {
                    let whole = event["text"].as_str().unwrap().len();
                    tx.send((std::mem::take(&mut bytes), whole)).unwrap();
                }
                _ => {}
            }
        })
        .unwrap();
    let peak = peak_of(|| {
        prompt(&s);
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(120)).unwrap(),
            (text, text)
        );
    });
    eprintln!("a door reading as it came: {peak} bytes at the peak");
    assert!(
        peak <= 2 * text,
        "a door reading as it came: the turn held {:.1} MiB at its peak for {} MiB of text",
        peak as f64 / MIB as f64,
        text / MIB
    );

    // A door that reads nothing until the turn has ended.
    let s = open();
    let entry = engine.session(&s).unwrap();
    let mut late = entry.queue.subscribe_joined();
    let peak = peak_of(|| {
        prompt(&s);
        let started = Instant::now();
        while entry.session.busy() {
            assert!(started.elapsed() < Duration::from_secs(120), "no turn end");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200));
        let mut streamed = 0;
        while let Ok(event) = late.try_recv() {
            if event["type"] == "text" {
                streamed += event["text"].as_str().unwrap().len();
            }
        }
        assert_eq!(streamed, text);
    });
    eprintln!("a door reading late: {peak} bytes at the peak");
    // It holds what it has not read (the whole text, joined) beside the
    // turn's own copy: twice the text, and the buffers of the way.
    assert!(
        peak <= 2 * text + text / 2,
        "a door reading late: the turn held {:.1} MiB at its peak for {} MiB of text",
        peak as f64 / MIB as f64,
        text / MIB
    );
}
