//! The send-selection round trip in-process from Rust: the before_tool chain
//! (editor-context + 5 no-op hooks) on a 4 KiB context, then after_tool
//! (code-apply) on a 4 KiB answer with 3 blocks, as two JSON requests.
//! Prints microseconds per round trip. Used by scripts/bench-roundtrip.sh.
//! `--values`: the Rust API on parsed values instead of JSON text;
//! `--spawn <rad>`: the same two requests the old way, one `rad request`
//! process each.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::time::Instant;

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType};

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/vectors/roundtrip.txt".into());
    let iterations: u32 = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let (before, after) = (
        lines.next().unwrap().to_owned(),
        lines.next().unwrap().to_owned(),
    );
    if std::env::args().nth(3).as_deref() == Some("--spawn") {
        let rad = std::env::args()
            .nth(4)
            .expect("--spawn needs the path of rad");
        let request = |json: &str, needle: &str| {
            let out = std::process::Command::new(&rad)
                .arg("request")
                .arg(json)
                .output()
                .unwrap();
            let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(out.status.success() && answer.to_string().contains(needle));
        };
        let start = Instant::now();
        for _ in 0..iterations {
            request(&before, "\"status\":\"completed\"");
            request(&after, "\"block_count\":3");
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
        println!("{us:.1}");
        return;
    }
    let engine = Engine::new(EngineConfig::default()).unwrap();
    for i in 0..5 {
        engine
            .registry()
            .register(FnHook::new(
                format!("noop-{i}"),
                HookType::BeforeTool,
                |_| Ok(HookResult::success()),
            ))
            .unwrap();
    }
    let round_trip = || {
        let a = engine.handle_json_text(&before).unwrap();
        let b = engine.handle_json_text(&after).unwrap();
        assert!(a.contains("\"status\":\"completed\"") && b.contains("\"block_count\":3"));
    };
    if std::env::args().nth(3).as_deref() == Some("--values") {
        // The Rust API without JSON text: the two chains on parsed values.
        let b: serde_json::Value = serde_json::from_str(&before).unwrap();
        let a: serde_json::Value = serde_json::from_str(&after).unwrap();
        let (bd, ad) = (b["args"]["data"].clone(), a["args"]["data"].clone());
        let run = || {
            let x = engine.registry().execute(radium_core::HookContext::new(
                HookType::BeforeTool,
                bd.clone(),
            ));
            let y = engine.registry().execute(radium_core::HookContext::new(
                HookType::AfterTool,
                ad.clone(),
            ));
            assert!(x.completed() && y.data["result"]["block_count"] == 3);
        };
        for _ in 0..iterations / 10 {
            run();
        }
        let start = Instant::now();
        for _ in 0..iterations {
            run();
        }
        let values = start.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
        println!("{values:.1}");
        return;
    }
    for _ in 0..iterations / 10 {
        round_trip();
    }
    let start = Instant::now();
    for _ in 0..iterations {
        round_trip();
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
    println!("{us:.1}");
}
