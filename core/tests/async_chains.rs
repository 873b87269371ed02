//! Asynchronous hooks, time limits, deadlines, cancellation and the chain future.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use radium_core::{
    AsyncFnHook, CancellationToken, ChainStatus, ExecuteOptions, FnHook, HookContext, HookOptions,
    HookRegistry, HookResult, HookRunStatus, HookType,
};
use serde_json::json;

fn ctx() -> HookContext {
    HookContext::new(
        HookType::BeforeTool,
        json!({"tool_name": "view", "steps": []}),
    )
}

fn step(name: &'static str, priority: i32) -> impl radium_core::Hook {
    FnHook::new(name, HookType::BeforeTool, move |ctx| {
        let mut d = ctx.data.clone();
        d["steps"].as_array_mut().unwrap().push(json!(name));
        Ok(HookResult::with_data(d))
    })
    .with_priority(priority)
}

fn sleeper(name: &'static str, priority: i32, ms: u64) -> impl radium_core::Hook {
    AsyncFnHook::new(name, HookType::BeforeTool, move |ctx| async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        let mut d = ctx.data;
        d["steps"].as_array_mut().unwrap().push(json!(name));
        Ok(HookResult::with_data(d))
    })
    .with_priority(priority)
}

#[test]
fn async_hooks_mix_with_sync_ones_and_see_the_chained_data() {
    let r = HookRegistry::new();
    r.register(step("sync-1", 300)).unwrap();
    r.register(sleeper("async", 200, 20)).unwrap();
    r.register(step("sync-2", 100)).unwrap();
    let out = r.execute(ctx());
    assert_eq!(out.status, ChainStatus::Completed);
    assert_eq!(out.data["steps"], json!(["sync-1", "async", "sync-2"]));
    assert!(out.hooks[1].duration >= Duration::from_millis(20));
}

#[test]
fn async_hooks_run_on_the_engines_runtime() {
    let r = HookRegistry::new();
    let name = Arc::new(Mutex::new(String::new()));
    let n = Arc::clone(&name);
    r.register(AsyncFnHook::new("where", HookType::AfterTool, move |_| {
        let n = Arc::clone(&n);
        async move {
            *n.lock().unwrap() = std::thread::current().name().unwrap_or("").to_owned();
            Ok(HookResult::success())
        }
    }))
    .unwrap();
    r.execute(HookContext::new(HookType::AfterTool, json!({})));
    assert_eq!(*name.lock().unwrap(), "radium-hooks");
}

#[test]
fn an_async_hook_past_its_time_limit_is_stopped_and_the_chain_goes_on() {
    let r = HookRegistry::new();
    let finished = Arc::new(AtomicUsize::new(0));
    let f = Arc::clone(&finished);
    r.register_with(
        AsyncFnHook::new("hangs", HookType::BeforeTool, move |_| {
            let f = Arc::clone(&f);
            async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                f.fetch_add(1, Ordering::SeqCst);
                Ok(HookResult::success())
            }
        })
        .with_priority(200),
        HookOptions {
            timeout: Some(Duration::from_millis(50)),
            ..HookOptions::default()
        },
    )
    .unwrap();
    r.register(step("after", 100)).unwrap();
    let t = Instant::now();
    let out = r.execute(ctx());
    assert!(t.elapsed() < Duration::from_secs(5), "time limit enforced");
    assert_eq!(out.status, ChainStatus::Completed);
    assert_eq!(out.hooks[0].status, HookRunStatus::TimedOut);
    assert_eq!(
        out.hooks[0].error.as_deref(),
        Some("hook exceeded its time limit of 50ms")
    );
    assert_eq!(out.data["steps"], json!(["after"]));
    assert_eq!(finished.load(Ordering::SeqCst), 0);
}

#[test]
fn async_hook_errors_and_panics_are_isolated() {
    let r = HookRegistry::new();
    r.register(
        AsyncFnHook::new("rejects", HookType::BeforeTool, |_| async {
            Err("rejected".into())
        })
        .with_priority(300),
    )
    .unwrap();
    r.register(
        AsyncFnHook::new("panics", HookType::BeforeTool, |_| async {
            panic!("async boom");
        })
        .with_priority(200),
    )
    .unwrap();
    r.register(step("ok", 100)).unwrap();
    let out = r.execute(ctx());
    assert_eq!(out.hooks[0].status, HookRunStatus::Error);
    assert_eq!(out.hooks[0].error.as_deref(), Some("rejected"));
    assert_eq!(out.hooks[1].status, HookRunStatus::Panicked);
    assert_eq!(
        out.hooks[1].error.as_deref(),
        Some("hook panicked: async boom")
    );
    assert_eq!(out.data["steps"], json!(["ok"]));
}

#[test]
fn cancelling_ends_a_chain_promptly_even_inside_a_slow_hook() {
    let r = HookRegistry::new();
    r.register(step("first", 300)).unwrap();
    r.register(sleeper("slow", 200, 20_000)).unwrap();
    r.register(step("never", 100)).unwrap();
    let token = CancellationToken::new();
    let t2 = token.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        t2.cancel();
    });
    let t = Instant::now();
    let out = r.execute_with(ctx(), &ExecuteOptions::with_cancel(token));
    canceller.join().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "took {:?}",
        t.elapsed()
    );
    assert_eq!(out.status, ChainStatus::Cancelled);
    assert_eq!(out.hooks.len(), 2);
    assert_eq!(out.hooks[1].status, HookRunStatus::Cancelled);
    assert_eq!(out.data["steps"], json!(["first"]));
}

#[test]
fn a_chain_cancelled_before_it_starts_runs_nothing() {
    let r = HookRegistry::new();
    r.register(step("a", 1)).unwrap();
    let token = CancellationToken::new();
    token.cancel();
    let out = r.execute_with(ctx(), &ExecuteOptions::with_cancel(token));
    assert_eq!(out.status, ChainStatus::Cancelled);
    assert!(out.hooks.is_empty());
    assert_eq!(out.to_json()["status"], "cancelled");
}

#[test]
fn a_deadline_ends_the_chain_with_its_own_status() {
    let r = HookRegistry::new();
    r.register(step("first", 300)).unwrap();
    r.register(sleeper("slow", 200, 20_000)).unwrap();
    r.register(step("never", 100)).unwrap();
    let t = Instant::now();
    let out = r.execute_with(
        ctx(),
        &ExecuteOptions::with_timeout(Duration::from_millis(80)),
    );
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(out.status, ChainStatus::DeadlineExceeded);
    assert_eq!(out.hooks[1].status, HookRunStatus::Cancelled);
    assert_eq!(out.data["steps"], json!(["first"]));

    // A deadline already past runs nothing; sync hooks past it are not started.
    let r2 = HookRegistry::new();
    r2.register(
        FnHook::new("slow-sync", HookType::BeforeTool, |_| {
            std::thread::sleep(Duration::from_millis(40));
            Ok(HookResult::success())
        })
        .with_priority(2),
    )
    .unwrap();
    r2.register(step("late", 1)).unwrap();
    let out = r2.execute_with(
        ctx(),
        &ExecuteOptions::with_timeout(Duration::from_millis(10)),
    );
    assert_eq!(out.status, ChainStatus::DeadlineExceeded);
    assert_eq!(out.hooks.len(), 1);
    assert_eq!(out.to_json()["status"], "deadline_exceeded");
}

#[test]
fn the_chain_future_runs_under_any_executor_and_never_blocks_it() {
    let r = HookRegistry::new();
    r.register(step("sync", 300)).unwrap();
    r.register(sleeper("slow", 200, 100)).unwrap();
    // A current-thread runtime: if the chain blocked its thread, the ticker
    // could not run while the slow hook waits.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let ticks = rt.block_on(async {
        let ticks = Arc::new(AtomicUsize::new(0));
        let t = Arc::clone(&ticks);
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(5)).await;
                t.fetch_add(1, Ordering::SeqCst);
            }
        });
        let out = r.execute_async(ctx(), ExecuteOptions::default()).await;
        ticker.abort();
        assert_eq!(out.data["steps"], json!(["sync", "slow"]));
        ticks.load(Ordering::SeqCst)
    });
    assert!(ticks >= 5, "the executor kept running: {ticks} ticks");
}

#[test]
fn dropping_the_chain_future_stops_the_hook_in_flight() {
    let r = HookRegistry::new();
    let done = Arc::new(AtomicUsize::new(0));
    let d = Arc::clone(&done);
    r.register(AsyncFnHook::new("slow", HookType::BeforeTool, move |_| {
        let d = Arc::clone(&d);
        async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            d.fetch_add(1, Ordering::SeqCst);
            Ok(HookResult::success())
        }
    }))
    .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let fut = r.execute_async(ctx(), ExecuteOptions::default());
        let res = tokio::time::timeout(Duration::from_millis(30), fut).await;
        assert!(res.is_err(), "timed out and dropped");
    });
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(done.load(Ordering::SeqCst), 0);
}

/// A hook whose future waits for the host: `HookCall::OnHost`.
struct HostHook {
    meta: radium_core::HookMeta,
    make: Box<dyn Fn() -> radium_core::HookFuture + Send + Sync>,
}

impl radium_core::Hook for HostHook {
    fn meta(&self) -> &radium_core::HookMeta {
        &self.meta
    }
    fn call(&self, _: &HookContext) -> radium_core::HookCall {
        radium_core::HookCall::OnHost((self.make)())
    }
}

#[test]
fn on_host_futures_are_polled_on_the_chains_thread_under_their_limit() {
    let r = HookRegistry::new();
    let polled_on = Arc::new(Mutex::new(Vec::new()));
    let p = Arc::clone(&polled_on);
    // Answers after 30 ms, set by a plain thread (like a host event).
    r.register(HostHook {
        meta: radium_core::HookMeta::new("host", HookType::BeforeTool),
        make: Box::new(move || {
            let p = Arc::clone(&p);
            let (tx, rx) = tokio::sync::oneshot::channel();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(30));
                let _ = tx.send(());
            });
            let mut rx = Some(rx);
            Box::pin(std::future::poll_fn(move |cx| {
                p.lock().unwrap().push(std::thread::current().id());
                let waiting = rx.as_mut().unwrap();
                std::pin::Pin::new(waiting)
                    .poll(cx)
                    .map(|_| Ok(HookResult::success()))
            }))
        }),
    })
    .unwrap();
    // Never answers: stopped at its time limit.
    r.register_with(
        HostHook {
            meta: radium_core::HookMeta::new("silent", HookType::BeforeTool),
            make: Box::new(|| Box::pin(std::future::pending())),
        },
        HookOptions {
            priority: Some(radium_core::HookPriority(50)),
            timeout: Some(Duration::from_millis(100)),
            ..HookOptions::default()
        },
    )
    .unwrap();
    // Panics while polled: isolated.
    r.register_with(
        HostHook {
            meta: radium_core::HookMeta::new("panics", HookType::BeforeTool),
            make: Box::new(|| {
                Box::pin(async {
                    tokio::task::yield_now().await;
                    panic!("host hook went wrong")
                })
            }),
        },
        HookOptions {
            priority: Some(radium_core::HookPriority(10)),
            ..HookOptions::default()
        },
    )
    .unwrap();
    let t = Instant::now();
    let out = r.execute(ctx());
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let statuses: Vec<_> = out.hooks.iter().map(|h| h.status).collect();
    assert_eq!(
        statuses,
        [
            HookRunStatus::Continued,
            HookRunStatus::TimedOut,
            HookRunStatus::Panicked
        ]
    );
    assert!(out.hooks[2]
        .error
        .as_deref()
        .unwrap()
        .contains("host hook went wrong"));
    let me = std::thread::current().id();
    let polled = polled_on.lock().unwrap();
    assert!(polled.len() >= 2, "polled again once woken: {polled:?}");
    assert!(
        polled.iter().all(|id| *id == me),
        "polled on the chain's thread only"
    );
}

#[test]
fn cancelling_stops_an_on_host_hook() {
    let r = HookRegistry::new();
    r.register(HostHook {
        meta: radium_core::HookMeta::new("waits", HookType::BeforeTool),
        make: Box::new(|| Box::pin(std::future::pending())),
    })
    .unwrap();
    let token = CancellationToken::new();
    let t2 = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        t2.cancel();
    });
    let out = r.execute_with(ctx(), &ExecuteOptions::with_cancel(token));
    assert_eq!(out.status, ChainStatus::Cancelled);
    assert_eq!(out.hooks[0].status, HookRunStatus::Cancelled);
}
