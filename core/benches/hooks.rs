//! Chains of no-op native hooks: the per-chain and per-hook cost of the engine.
//!
//! Run with `cargo bench -p radium-core --bench hooks`; figures in BENCHMARKS.md.

#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use radium_core::{FnHook, HookContext, HookRegistry, HookResult, HookType};
use serde_json::json;

fn registry_with(n: usize) -> HookRegistry {
    let r = HookRegistry::new();
    for i in 0..n {
        r.register(FnHook::new(
            format!("noop-{i}"),
            HookType::BeforeTool,
            |_| Ok(HookResult::success()),
        ))
        .expect("register");
    }
    r
}

fn chains(c: &mut Criterion) {
    let mut group = c.benchmark_group("noop_chain");
    for n in [0usize, 1, 10, 100] {
        let registry = registry_with(n);
        // Context construction is outside the measured call: a Null payload
        // moves in and out without allocating.
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let out = registry.execute(HookContext::new(
                    HookType::BeforeTool,
                    serde_json::Value::Null,
                ));
                black_box(out)
            });
        });
    }
    group.finish();

    // The same chain with a realistic payload moved through it.
    let registry = registry_with(10);
    let data = json!({"tool_name": "str-replace", "arguments": {"path": "src/main.rs", "old": "a", "new": "b"}});
    c.bench_function("noop_chain_with_payload/10", |b| {
        b.iter_batched(
            || HookContext::new(HookType::BeforeTool, data.clone()),
            |ctx| black_box(registry.execute(ctx)),
            criterion::BatchSize::SmallInput,
        );
    });
}

criterion_group!(benches, chains);
criterion_main!(benches);
