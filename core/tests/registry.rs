//! Registry behaviour: order, data flow, stop, isolation, enable/disable, names, matchers.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use radium_core::{
    ChainStatus, Error, FnHook, HookContext, HookOptions, HookRegistry, HookResult, HookRunStatus,
    HookType, ToolMatcher,
};
use serde_json::{json, Value};

/// A hook that appends its name to `data.trace` (an array).
fn tracer(name: &str, hook_type: HookType, priority: i32) -> impl radium_core::Hook {
    let me = name.to_owned();
    FnHook::new(name, hook_type, move |ctx| {
        let mut data = ctx.data.clone();
        let trace = data["trace"].as_array_mut().expect("trace array");
        trace.push(json!(me));
        Ok(HookResult::with_data(data))
    })
    .with_priority(priority)
}

fn trace_of(data: &Value) -> Vec<String> {
    data["trace"]
        .as_array()
        .expect("trace")
        .iter()
        .map(|v| v.as_str().expect("str").to_owned())
        .collect()
}

fn tool_ctx(tool: &str) -> HookContext {
    HookContext::new(
        HookType::BeforeTool,
        json!({"tool_name": tool, "trace": []}),
    )
}

#[test]
fn higher_priority_runs_first_and_ties_keep_registration_order() {
    let r = HookRegistry::new();
    r.register(tracer("low", HookType::BeforeTool, 10)).unwrap();
    r.register(tracer("tie-a", HookType::BeforeTool, 100))
        .unwrap();
    r.register(tracer("high", HookType::BeforeTool, 200))
        .unwrap();
    r.register(tracer("tie-b", HookType::BeforeTool, 100))
        .unwrap();
    r.register(tracer("tie-c", HookType::BeforeTool, 100))
        .unwrap();
    r.register(tracer("negative", HookType::BeforeTool, -5))
        .unwrap();
    // A hook of another type never runs in this chain.
    r.register(tracer("other-type", HookType::AfterTool, 999))
        .unwrap();

    let out = r.execute(tool_ctx("view"));
    assert_eq!(out.status, ChainStatus::Completed);
    assert_eq!(
        trace_of(&out.data),
        ["high", "tie-a", "tie-b", "tie-c", "low", "negative"]
    );
    let names: Vec<&str> = out.hooks.iter().map(|h| &*h.name).collect();
    assert_eq!(
        names,
        ["high", "tie-a", "tie-b", "tie-c", "low", "negative"]
    );
    assert!(out
        .hooks
        .iter()
        .all(|h| h.status == HookRunStatus::Modified));

    // Listing reports the same order.
    let listed: Vec<String> = r
        .list_type(HookType::BeforeTool)
        .into_iter()
        .map(|h| h.name)
        .collect();
    assert_eq!(
        listed,
        ["high", "tie-a", "tie-b", "tie-c", "low", "negative"]
    );
}

#[test]
fn default_priority_is_100_and_options_override_it() {
    let r = HookRegistry::new();
    r.register(FnHook::new("plain", HookType::BeforeModel, |_| {
        Ok(HookResult::success())
    }))
    .unwrap();
    r.register_with(
        tracer("boosted", HookType::BeforeModel, 1),
        HookOptions {
            priority: Some(500.into()),
            ..HookOptions::default()
        },
    )
    .unwrap();
    let list = r.list_type(HookType::BeforeModel);
    assert_eq!(list[0].name, "boosted");
    assert_eq!(list[0].priority.0, 500);
    assert_eq!(list[1].priority.0, 100);
}

#[test]
fn each_hook_sees_the_data_as_the_previous_hooks_left_it() {
    let r = HookRegistry::new();
    r.register(
        FnHook::new("double", HookType::AfterModel, |ctx| {
            let n = ctx.data["n"].as_i64().unwrap();
            Ok(HookResult::with_data(json!({"n": n * 2})))
        })
        .with_priority(300),
    )
    .unwrap();
    r.register(
        FnHook::new("observer", HookType::AfterModel, |ctx| {
            // Does not modify: the next hook must still see n*2.
            assert_eq!(ctx.data["n"], json!(6));
            Ok(HookResult::success())
        })
        .with_priority(200),
    )
    .unwrap();
    r.register(FnHook::new("add-one", HookType::AfterModel, |ctx| {
        let n = ctx.data["n"].as_i64().unwrap();
        Ok(HookResult::with_data(json!({"n": n + 1})))
    }))
    .unwrap();
    let out = r.execute(HookContext::new(HookType::AfterModel, json!({"n": 3})));
    assert_eq!(out.data, json!({"n": 7}));
    let statuses: Vec<_> = out.hooks.iter().map(|h| h.status).collect();
    assert_eq!(
        statuses,
        [
            HookRunStatus::Modified,
            HookRunStatus::Continued,
            HookRunStatus::Modified
        ]
    );
}

#[test]
fn a_stop_ends_the_chain_and_says_who_and_why() {
    let r = HookRegistry::new();
    r.register(tracer("first", HookType::BeforeTool, 300))
        .unwrap();
    r.register(
        FnHook::new("guard", HookType::BeforeTool, |_| {
            Ok(HookResult::stop("writes are frozen"))
        })
        .with_priority(200),
    )
    .unwrap();
    r.register(tracer("never", HookType::BeforeTool, 100))
        .unwrap();
    let out = r.execute(tool_ctx("create"));
    assert_eq!(out.status, ChainStatus::Stopped);
    let stop = out.stopped_by.as_ref().expect("stopped_by");
    assert_eq!(stop.hook, "guard");
    assert_eq!(stop.reason, "writes are frozen");
    assert_eq!(trace_of(&out.data), ["first"]);
    assert_eq!(out.hooks.len(), 2);
    assert_eq!(out.hooks[1].status, HookRunStatus::Stopped);
    let j = out.to_json();
    assert_eq!(j["status"], "stopped");
    assert_eq!(j["stopped_by"]["hook"], "guard");
}

#[test]
fn errors_panics_and_slow_sync_hooks_are_isolated() {
    let r = HookRegistry::new();
    r.register(
        FnHook::new(
            "fails",
            HookType::BeforeTool,
            |_| Err("disk on fire".into()),
        )
        .with_priority(500),
    )
    .unwrap();
    r.register(
        FnHook::new("reports-error", HookType::BeforeTool, |_| {
            Ok(HookResult::error("bad input"))
        })
        .with_priority(400),
    )
    .unwrap();
    r.register(
        FnHook::new("panics", HookType::BeforeTool, |_| panic!("boom {}", 42)).with_priority(300),
    )
    .unwrap();
    r.register_with(
        FnHook::new("slow", HookType::BeforeTool, |ctx| {
            std::thread::sleep(Duration::from_millis(60));
            let mut d = ctx.data.clone();
            d["slow"] = json!(true);
            Ok(HookResult::with_data(d))
        })
        .with_priority(200),
        HookOptions {
            timeout: Some(Duration::from_millis(10)),
            ..HookOptions::default()
        },
    )
    .unwrap();
    r.register(tracer("survivor", HookType::BeforeTool, 100))
        .unwrap();

    let out = r.execute(tool_ctx("view"));
    assert_eq!(out.status, ChainStatus::Completed);
    assert_eq!(trace_of(&out.data), ["survivor"]);
    assert!(
        out.data.get("slow").is_none(),
        "a timed-out hook's answer is discarded"
    );
    let by = |n: &str| out.hooks.iter().find(|h| &*h.name == n).expect(n);
    assert_eq!(by("fails").status, HookRunStatus::Error);
    assert_eq!(by("fails").error.as_deref(), Some("disk on fire"));
    assert_eq!(by("reports-error").status, HookRunStatus::Error);
    assert_eq!(by("reports-error").error.as_deref(), Some("bad input"));
    assert_eq!(by("panics").status, HookRunStatus::Panicked);
    assert_eq!(
        by("panics").error.as_deref(),
        Some("hook panicked: boom 42")
    );
    assert_eq!(by("slow").status, HookRunStatus::TimedOut);
    assert!(by("slow")
        .error
        .as_deref()
        .unwrap()
        .contains("time limit of 10ms"));
    assert!(by("slow").duration >= Duration::from_millis(60));
    assert_eq!(by("survivor").status, HookRunStatus::Modified);
    assert_eq!(out.failures().count(), 4);
}

#[test]
fn enable_and_disable_at_run_time() {
    let r = HookRegistry::new();
    r.register(tracer("a", HookType::BeforeTool, 100)).unwrap();
    r.register(tracer("b", HookType::BeforeTool, 100)).unwrap();
    r.disable("a").unwrap();
    assert_eq!(r.is_enabled("a"), Some(false));
    let out = r.execute(tool_ctx("x"));
    assert_eq!(trace_of(&out.data), ["b"]);
    assert_eq!(out.hooks.len(), 1, "disabled hooks are not listed as run");
    r.enable("a").unwrap();
    assert_eq!(trace_of(&r.execute(tool_ctx("x")).data), ["a", "b"]);

    r.register_with(
        tracer("starts-off", HookType::BeforeTool, 50),
        HookOptions {
            disabled: true,
            ..HookOptions::default()
        },
    )
    .unwrap();
    assert_eq!(trace_of(&r.execute(tool_ctx("x")).data), ["a", "b"]);
    assert!(!r.list_type(HookType::BeforeTool)[2].enabled);

    let err = r.disable("nope").unwrap_err();
    assert!(matches!(err, Error::UnknownHook(ref n) if n == "nope"));
    assert_eq!(err.to_string(), "no hook named `nope` is registered");
    assert_eq!(err.code(), "unknown_hook");
    assert!(r.enable("nope").is_err());
    assert_eq!(r.is_enabled("nope"), None);
}

#[test]
fn duplicate_unknown_and_invalid_names() {
    let r = HookRegistry::new();
    r.register(tracer("dup", HookType::BeforeTool, 1)).unwrap();
    let err = r
        .register(tracer("dup", HookType::AfterTool, 1))
        .unwrap_err();
    assert_eq!(err.to_string(), "a hook named `dup` is already registered");
    assert_eq!(err.code(), "duplicate_hook");
    assert_eq!(r.len(), 1);

    let err = r.unregister("ghost").unwrap_err();
    assert_eq!(err.to_string(), "no hook named `ghost` is registered");

    for bad in ["", "   ", "a\nb"] {
        let err = r
            .register(tracer(bad, HookType::BeforeTool, 1))
            .unwrap_err();
        assert_eq!(err.code(), "invalid_hook_name", "{bad:?}");
    }
    let long = "x".repeat(129);
    assert!(r.register(tracer(&long, HookType::BeforeTool, 1)).is_err());

    r.unregister("dup").unwrap();
    assert!(!r.contains("dup"));
    assert!(r.is_empty());
    // The name is free again.
    r.register(tracer("dup", HookType::AfterTool, 1)).unwrap();
    assert_eq!(r.list()[0].hook_type, HookType::AfterTool);
}

#[test]
fn tool_matchers_select_tools() {
    let r = HookRegistry::new();
    let with = |pattern: &str| HookOptions {
        matcher: Some(ToolMatcher::new(pattern).unwrap()),
        ..HookOptions::default()
    };
    r.register_with(
        tracer("writes", HookType::BeforeTool, 300),
        with("create|str-replace|insert"),
    )
    .unwrap();
    r.register_with(tracer("mcp", HookType::BeforeTool, 200), with("mcp__*"))
        .unwrap();
    r.register(tracer("all", HookType::BeforeTool, 100))
        .unwrap();

    assert_eq!(
        trace_of(&r.execute(tool_ctx("create")).data),
        ["writes", "all"]
    );
    assert_eq!(trace_of(&r.execute(tool_ctx("view")).data), ["all"]);
    assert_eq!(
        trace_of(&r.execute(tool_ctx("mcp__git__log")).data),
        ["mcp", "all"]
    );
    // No tool name: matcher hooks are skipped.
    let out = r.execute(HookContext::new(HookType::BeforeTool, json!({"trace": []})));
    assert_eq!(trace_of(&out.data), ["all"]);
    assert_eq!(
        r.list_type(HookType::BeforeTool)[0].matcher.as_deref(),
        Some("create|str-replace|insert")
    );

    // Matchers are for tool hooks only.
    let err = r
        .register_with(tracer("model", HookType::BeforeModel, 1), with("x"))
        .unwrap_err();
    assert_eq!(err.code(), "invalid_matcher");
    assert!(err.to_string().contains("matchers apply only to"), "{err}");
}

#[test]
fn sync_chains_run_on_the_callers_thread() {
    let r = HookRegistry::new();
    let seen = Arc::new(Mutex::new(None));
    let s = Arc::clone(&seen);
    r.register(FnHook::new("where", HookType::CustomLogging, move |_| {
        *s.lock().unwrap() = Some(std::thread::current().id());
        Ok(HookResult::success())
    }))
    .unwrap();
    r.execute(HookContext::new(HookType::CustomLogging, Value::Null));
    assert_eq!(*seen.lock().unwrap(), Some(std::thread::current().id()));
}

#[test]
fn an_empty_chain_returns_the_data_unchanged() {
    let r = HookRegistry::new();
    let out = r.execute(HookContext::new(
        HookType::ErrorLogging,
        json!({"k": [1, 2]}),
    ));
    assert!(out.completed());
    assert!(out.hooks.is_empty());
    assert_eq!(out.data, json!({"k": [1, 2]}));
    assert_eq!(out.to_json()["hook_type"], "error_logging");
}

#[test]
fn outcome_json_has_the_documented_shape() {
    let r = HookRegistry::new();
    r.register(FnHook::new("e", HookType::BeforeTool, |_| {
        Err("nope".into())
    }))
    .unwrap();
    let j = r.execute(tool_ctx("view")).to_json();
    assert_eq!(j["hook_type"], "before_tool");
    assert_eq!(j["status"], "completed");
    assert_eq!(j["stopped_by"], Value::Null);
    assert_eq!(j["hooks"][0]["name"], "e");
    assert_eq!(j["hooks"][0]["status"], "error");
    assert_eq!(j["hooks"][0]["error"], "nope");
    assert!(j["hooks"][0]["duration_ns"].is_u64());
    assert!(j["duration_ns"].is_u64());
    assert_eq!(j["data"]["tool_name"], "view");
}

#[test]
fn a_broken_configuration_refuses_only_chains_with_a_hook_to_run() {
    let r = HookRegistry::new();
    let only_view = HookOptions {
        matcher: Some(ToolMatcher::new("view").unwrap()),
        ..HookOptions::default()
    };
    r.register_with(tracer("v", HookType::BeforeTool, 100), only_view)
        .unwrap();
    r.set_config_error(Some(Error::Config {
        path: "/ws/.radium/hooks.toml".into(),
        line: 4,
        column: 1,
        message: "unknown field `priorty`".into(),
    }));
    let shown = "/ws/.radium/hooks.toml:4:1: unknown field `priorty`";
    assert_eq!(r.config_error().unwrap().to_string(), shown);

    // No hook to run: an empty chain, or no matching hook.
    assert!(r
        .execute(HookContext::new(HookType::AfterTool, json!(1)))
        .completed());
    assert!(r.execute(tool_ctx("create")).completed());
    assert!(r.check_config(HookType::BeforeTool, Some("create")).is_ok());

    let outcome = r.execute(tool_ctx("view"));
    assert_eq!(outcome.status, ChainStatus::ConfigError);
    assert!(outcome.hooks.is_empty(), "no hook ran");
    assert_eq!(trace_of(&outcome.data), Vec::<String>::new());
    let stop = outcome.stopped_by.as_ref().unwrap();
    assert_eq!(
        (stop.hook.as_str(), stop.reason.as_str()),
        ("/ws/.radium/hooks.toml", shown)
    );
    assert_eq!(outcome.to_json()["status"], "config_error");

    let error = r.try_execute(tool_ctx("view")).unwrap_err();
    assert_eq!(
        (error.code(), error.to_string()),
        ("config", shown.to_owned())
    );
    let error = pollster::block_on(r.try_execute_async(tool_ctx("view"), Default::default()));
    assert_eq!(error.unwrap_err().code(), "config");
    assert_eq!(
        r.check_config(HookType::BeforeTool, Some("view"))
            .unwrap_err()
            .code(),
        "config"
    );
    use radium_core::HookExecutor as _;
    let decision = radium_core::OrchestratorHooks::new(r.clone()).before_tool("view", json!({}));
    assert!(!decision.proceeds());
    assert_eq!(decision.refused().unwrap().reason, shown);

    // Disabled, the hook has nothing to run; cleared, the chain runs again.
    r.disable("v").unwrap();
    assert!(r.try_execute(tool_ctx("view")).unwrap().completed());
    r.enable("v").unwrap();
    r.set_config_error(None);
    assert!(r.config_error().is_none());
    let ran = r.try_execute(tool_ctx("view")).unwrap();
    assert_eq!(trace_of(&ran.data), ["v"]);
}
