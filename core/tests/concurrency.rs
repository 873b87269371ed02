//! Many threads executing while others register, unregister and toggle hooks.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use radium_core::{
    ChainStatus, FnHook, HookContext, HookRegistry, HookResult, HookRunStatus, HookType,
};
use serde_json::json;

fn counter(name: String, priority: i32) -> impl radium_core::Hook {
    FnHook::new(name, HookType::BeforeTool, |ctx| {
        let n = ctx.data["n"].as_u64().unwrap_or(0);
        Ok(HookResult::with_data(json!({"tool_name": "x", "n": n + 1})))
    })
    .with_priority(priority)
}

#[test]
fn executing_while_registering_and_unregistering_is_safe() {
    let registry = HookRegistry::new();
    // Permanent hooks: every execution must see all of them, in order.
    for i in 0..5 {
        registry
            .register(counter(format!("stable-{i}"), 1000 - i))
            .unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let executions = Arc::new(AtomicUsize::new(0));
    let barrier = Arc::new(Barrier::new(8));
    let mut threads = Vec::new();

    for _ in 0..4 {
        let (r, stop, executions, barrier) = (
            registry.clone(),
            Arc::clone(&stop),
            Arc::clone(&executions),
            Arc::clone(&barrier),
        );
        threads.push(std::thread::spawn(move || {
            barrier.wait();
            while !stop.load(Ordering::Relaxed) {
                let out = r.execute(HookContext::new(HookType::BeforeTool, json!({"n": 0})));
                assert_eq!(out.status, ChainStatus::Completed);
                // The hooks listed are exactly those that counted.
                assert_eq!(out.data["n"].as_u64().unwrap() as usize, out.hooks.len());
                assert!(out
                    .hooks
                    .iter()
                    .all(|h| h.status == HookRunStatus::Modified));
                let stable: Vec<&str> = out
                    .hooks
                    .iter()
                    .map(|h| &*h.name)
                    .filter(|n| n.starts_with("stable-"))
                    .collect();
                assert_eq!(
                    stable,
                    ["stable-0", "stable-1", "stable-2", "stable-3", "stable-4"]
                );
                // Priorities are non-increasing along the chain.
                executions.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for t in 0..3 {
        let (r, stop, barrier) = (registry.clone(), Arc::clone(&stop), Arc::clone(&barrier));
        threads.push(std::thread::spawn(move || {
            barrier.wait();
            let mut i = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let name = format!("churn-{t}-{i}");
                r.register(counter(name.clone(), (i % 7) as i32 * 100))
                    .unwrap();
                if i.is_multiple_of(3) {
                    r.disable(&name).unwrap();
                }
                r.unregister(&name).unwrap();
                assert!(r.unregister(&name).is_err());
                i += 1;
            }
        }));
    }
    {
        let (r, stop, barrier) = (registry.clone(), Arc::clone(&stop), Arc::clone(&barrier));
        threads.push(std::thread::spawn(move || {
            barrier.wait();
            while !stop.load(Ordering::Relaxed) {
                let listed = r.list();
                assert!(listed.len() >= 5);
                for pair in listed.windows(2) {
                    if pair[0].hook_type == pair[1].hook_type {
                        assert!(pair[0].priority >= pair[1].priority, "{listed:?}");
                    }
                }
            }
        }));
    }
    std::thread::sleep(Duration::from_millis(700));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("no thread panicked");
    }
    assert!(executions.load(Ordering::Relaxed) > 100);
    assert_eq!(registry.len(), 5, "all churned hooks are gone");
}

#[test]
fn no_lock_is_held_while_a_hook_runs() {
    // A hook that registers and unregisters another hook from inside the chain
    // would deadlock if execution held the registry lock.
    let registry = HookRegistry::new();
    let r2 = registry.clone();
    registry
        .register(FnHook::new("reentrant", HookType::AfterTool, move |_| {
            r2.register(FnHook::new("inner", HookType::AfterModel, |_| {
                Ok(HookResult::success())
            }))
            .map_err(|e| e.to_string())?;
            let nested = r2.execute(HookContext::new(HookType::AfterModel, json!(null)));
            r2.disable("reentrant").map_err(|e| e.to_string())?;
            r2.unregister("inner").map_err(|e| e.to_string())?;
            Ok(HookResult::with_data(
                json!({"nested_hooks": nested.hooks.len()}),
            ))
        }))
        .unwrap();
    let out = registry.execute(HookContext::new(HookType::AfterTool, json!(null)));
    assert_eq!(
        out.hooks[0].status,
        HookRunStatus::Modified,
        "{:?}",
        out.hooks[0].error
    );
    assert_eq!(out.data["nested_hooks"], 1);
    assert_eq!(registry.is_enabled("reentrant"), Some(false));
}
