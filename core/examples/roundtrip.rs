//! The send-selection round trip in-process from Rust: the before_tool chain
//! (editor-context + 5 no-op hooks) on a 4 KiB context, then after_tool
//! (code-apply) on a 4 KiB answer with 3 blocks, as two JSON requests.
//! Used by scripts/bench-roundtrip.sh.
//!
//! `roundtrip <vectors> <iterations> [<rad> <hooked-home> <bare-home> <spawns>]`
//! prints microseconds per round trip: through `Engine::handle_json_text`,
//! through the Rust API on parsed values, and, given `rad`, the same two
//! requests made the old way (one `rad request` process each) with
//! `RADIUM_HOME` set to each home. The measurements take turns in 15 rounds
//! and each figure is its best round, so every figure samples the same
//! moments of this 2-core machine, whose speed varies from second to second.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::time::Instant;

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType};

const ROUNDS: u32 = 15;

/// Microseconds per call of `f` over `calls` calls.
fn time(calls: u32, f: &mut dyn FnMut()) -> f64 {
    let calls = calls.max(1);
    let start = Instant::now();
    for _ in 0..calls {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(calls)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "tests/vectors/roundtrip.txt".into());
    let iterations: u32 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(2000);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let (before, after) = (
        lines.next().unwrap().to_owned(),
        lines.next().unwrap().to_owned(),
    );
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
    let mut json_text = || {
        let a = engine.handle_json_text(&before).unwrap();
        let b = engine.handle_json_text(&after).unwrap();
        assert!(a.contains("\"status\":\"completed\"") && b.contains("\"block_count\":3"));
    };
    // The Rust API without JSON text: the two chains on parsed values.
    let b: serde_json::Value = serde_json::from_str(&before).unwrap();
    let a: serde_json::Value = serde_json::from_str(&after).unwrap();
    let (bd, ad) = (b["args"]["data"].clone(), a["args"]["data"].clone());
    let mut values = || {
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
    let spawn = |home: &str| {
        let rad = args[3].clone();
        let (before, after, home) = (before.clone(), after.clone(), home.to_owned());
        move || {
            for (json, needle) in [
                (&before, "\"status\":\"completed\""),
                (&after, "\"block_count\":3"),
            ] {
                let out = std::process::Command::new(&rad)
                    .env("RADIUM_HOME", &home)
                    .arg("request")
                    .arg(json)
                    .output()
                    .unwrap();
                let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert!(out.status.success() && answer.to_string().contains(needle));
            }
        }
    };
    let mut spawned: Vec<Box<dyn FnMut()>> = Vec::new();
    let mut spawns = 0;
    if args.len() > 6 {
        spawned.push(Box::new(spawn(&args[4])));
        spawned.push(Box::new(spawn(&args[5])));
        spawns = args[6].parse().unwrap();
    }
    for _ in 0..iterations / 10 {
        json_text();
        values();
    }
    let per_round = (iterations / ROUNDS).max(1);
    let spawns_per_round = (spawns / ROUNDS).max(1);
    let mut best = vec![f64::INFINITY; 2 + spawned.len()];
    for _ in 0..ROUNDS {
        // After the spawns, an untimed round warms the caches again (and
        // takes the page faults a fork leaves the parent).
        time(per_round, &mut json_text);
        best[0] = best[0].min(time(per_round, &mut json_text));
        time(per_round, &mut values);
        best[1] = best[1].min(time(per_round, &mut values));
        for (i, f) in spawned.iter_mut().enumerate() {
            best[2 + i] = best[2 + i].min(time(spawns_per_round, f.as_mut()));
        }
    }
    let figures: Vec<String> = best.iter().map(|us| format!("{us:.1}")).collect();
    println!("{}", figures.join(" "));
}
