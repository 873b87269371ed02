//! A 5-hook chain on a 4 KiB context: Rust hooks called directly, beside the
//! same chain of C callbacks through the C ABI (as a C host runs it).
//!
//! `cargo bench -p radium-ffi --bench chain_4k`; the C host's own figure comes
//! from `bash scripts/bench-c.sh`. Figures in BENCHMARKS.md.

#![allow(missing_docs, clippy::unwrap_used)]

use std::ffi::{c_char, c_void, CString};
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use radium::{
    radium_engine_free, radium_engine_new, radium_hook_register, radium_hooks_execute,
    radium_string_free, RadiumHookReply,
};
use radium_core::{FnHook, HookContext, HookRegistry, HookResult, HookType};
use serde_json::{json, Value};

fn context_4k() -> Value {
    let selection: String = "fn main() { let x = 1; }\n"
        .chars()
        .cycle()
        .take(3899)
        .collect();
    json!({"tool_name": "apply", "file_path": "/work/src/main.rs", "language": "rust",
           "workspace": "/work", "selection": selection})
}

unsafe extern "C" fn noop(
    _: *mut c_void,
    _: *const c_char,
    _: usize,
    _: *mut RadiumHookReply,
) -> i32 {
    0
}

fn chain(c: &mut Criterion) {
    let data = context_4k();
    let text = serde_json::to_string(&data).unwrap();
    assert!(text.len() >= 4000 && text.len() <= 4200, "{}", text.len());

    let registry = HookRegistry::new();
    for i in 0..5 {
        registry
            .register(FnHook::new(
                format!("rust-noop-{i}"),
                HookType::BeforeTool,
                |_| Ok(HookResult::success()),
            ))
            .unwrap();
    }
    c.bench_function("rust_direct_5_hooks_4k", |b| {
        b.iter_batched(
            || HookContext::new(HookType::BeforeTool, data.clone()),
            |ctx| black_box(registry.execute(ctx)),
            criterion::BatchSize::SmallInput,
        );
    });
    c.bench_function("rust_direct_5_hooks_4k_json_in_out", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_str(&text).unwrap();
            let out = registry.execute(HookContext::new(HookType::BeforeTool, value));
            black_box(serde_json::to_string(&out).unwrap())
        });
    });

    let mut engine = std::ptr::null_mut();
    let hook_type = CString::new("before_tool").unwrap();
    let ctext = CString::new(text).unwrap();
    unsafe {
        assert_eq!(
            radium_engine_new(std::ptr::null(), &raw mut engine, std::ptr::null_mut()) as i32,
            0
        );
        for i in 0..5 {
            let name = CString::new(format!("c-noop-{i}")).unwrap();
            let rc = radium_hook_register(
                engine,
                name.as_ptr(),
                hook_type.as_ptr(),
                100,
                std::ptr::null(),
                0,
                Some(noop),
                std::ptr::null_mut(),
                None,
                std::ptr::null_mut(),
            );
            assert_eq!(rc as i32, 0);
        }
    }
    c.bench_function("c_abi_5_hooks_4k", |b| {
        b.iter(|| unsafe {
            let mut out = std::ptr::null_mut();
            radium_hooks_execute(
                engine,
                hook_type.as_ptr(),
                ctext.as_ptr(),
                &raw mut out,
                std::ptr::null_mut(),
            );
            radium_string_free(black_box(out));
        });
    });
    radium_engine_free(engine);
}

criterion_group!(benches, chain);
criterion_main!(benches);
