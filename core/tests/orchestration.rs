//! The orchestration helpers: the chains around model calls, tool calls and errors.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{
    ErrorHookContext, FnHook, HookExecutor, HookRegistry, HookResult, HookType, OrchestratorHooks,
};
use serde_json::json;

fn helpers() -> (HookRegistry, OrchestratorHooks) {
    let r = HookRegistry::new();
    (r.clone(), OrchestratorHooks::new(r))
}

#[test]
fn model_helpers_read_back_input_and_response() {
    let (r, h) = helpers();
    let d = h.before_model("hello", "m");
    assert!(d.proceeds());
    assert_eq!(d.value, "hello");

    r.register(FnHook::new("ctx", HookType::BeforeModel, |c| {
        assert_eq!(c.data["model_id"], "m");
        Ok(HookResult::with_data(
            json!({"input": format!("{} + context", c.data["input"].as_str().unwrap())}),
        ))
    }))
    .unwrap();
    r.register(FnHook::new("plain", HookType::AfterModel, |_| {
        Ok(HookResult::with_data(json!("rewritten")))
    }))
    .unwrap();
    assert_eq!(h.before_model("hello", "m").value, "hello + context");
    assert_eq!(h.after_model("hello", "m", "answer").value, "rewritten");
}

#[test]
fn a_before_tool_stop_is_a_refusal_with_the_reason() {
    let (r, h) = helpers();
    r.register(FnHook::new("guard", HookType::BeforeTool, |c| {
        if c.tool_name() == Some("delete") {
            Ok(HookResult::stop("deleting is disabled"))
        } else {
            let mut d = c.data.clone();
            d["arguments"]["checked"] = json!(true);
            Ok(HookResult::with_data(d))
        }
    }))
    .unwrap();
    let d = h.before_tool("delete", json!({"path": "x"}));
    assert!(!d.proceeds());
    assert_eq!(d.refused().unwrap().reason, "deleting is disabled");
    assert_eq!(d.value, json!({"path": "x"}));
    let d = h.before_tool("view", json!({"path": "x"}));
    assert!(d.proceeds());
    assert_eq!(d.value, json!({"path": "x", "checked": true}));

    // A hook that drops `arguments` leaves the original in place.
    r.register(FnHook::new("dropper", HookType::AfterTool, |_| {
        Ok(HookResult::with_data(json!({})))
    }))
    .unwrap();
    assert_eq!(
        h.after_tool("view", json!({}), json!("text")).value,
        json!("text")
    );
}

#[test]
fn tool_selection_may_change_the_tool() {
    let (r, h) = helpers();
    r.register(FnHook::new("redirect", HookType::ToolSelection, |c| {
        let mut d = c.data.clone();
        if c.tool_name() == Some("rm") {
            d["tool_name"] = json!("trash");
        }
        Ok(HookResult::with_data(d))
    }))
    .unwrap();
    let d = h.tool_selection("rm", json!({"path": "a"}));
    assert_eq!(d.value.tool_name, "trash");
    assert_eq!(d.value.arguments, json!({"path": "a"}));
}

#[test]
fn the_error_chain_transforms_recovers_and_logs() {
    let (r, h) = helpers();
    let logged = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let l = std::sync::Arc::clone(&logged);
    r.register(FnHook::new("log", HookType::ErrorLogging, move |c| {
        l.lock()
            .unwrap()
            .push(c.data["error_message"].as_str().unwrap().to_owned());
        Ok(HookResult::success())
    }))
    .unwrap();
    r.register(FnHook::new("redact", HookType::ErrorTransformation, |c| {
        let mut d = c.data.clone();
        d["error_message"] = json!(c.data["error_message"]
            .as_str()
            .unwrap()
            .replace("token=abc", "token=***"));
        Ok(HookResult::with_data(d))
    }))
    .unwrap();
    r.register(FnHook::new("retry", HookType::ErrorRecovery, |c| {
        if c.data["error_type"] == "timeout" {
            let mut d = c.data.clone();
            d["recovery"] = json!({"retry": true});
            return Ok(HookResult::with_data(d));
        }
        Ok(HookResult::success())
    }))
    .unwrap();

    let handled = h.handle_error(
        ErrorHookContext::new("failed with token=abc", "timeout").with_source("agent"),
    );
    assert_eq!(handled.message, "failed with token=***");
    assert!(!handled.suppressed);
    assert_eq!(handled.recovery, Some(json!({"retry": true})));
    assert_eq!(handled.outcomes.len(), 4);
    assert_eq!(*logged.lock().unwrap(), ["failed with token=***"]);

    r.register(FnHook::new("swallow", HookType::ErrorInterception, |c| {
        if c.data["error_type"] == "cancelled" {
            Ok(HookResult::stop("user cancelled; nothing to report"))
        } else {
            Ok(HookResult::success())
        }
    }))
    .unwrap();
    let handled = h.handle_error(ErrorHookContext::new("stopped", "cancelled"));
    assert!(handled.suppressed);
    assert_eq!(handled.recovery, None);
    assert_eq!(handled.outcomes.len(), 2, "interception and logging");
    assert_eq!(logged.lock().unwrap().len(), 2, "logging still runs");
}

#[test]
fn telemetry_runs_the_requested_chain() {
    let (r, h) = helpers();
    r.register(FnHook::new("perf", HookType::PerformanceMonitoring, |c| {
        assert_eq!(c.data["event_type"], "step");
        Ok(HookResult::with_data(
            json!({"slow": c.data["data"]["ms"].as_u64().unwrap() > 100}),
        ))
    }))
    .unwrap();
    let out = h.telemetry(HookType::PerformanceMonitoring, "step", json!({"ms": 250}));
    assert_eq!(out.data, json!({"slow": true}));
    assert!(h
        .telemetry(HookType::MetricsAggregation, "step", json!({}))
        .hooks
        .is_empty());
}

#[test]
fn the_executor_trait_is_object_safe() {
    let (_, h) = helpers();
    let exec: Box<dyn HookExecutor> = Box::new(h);
    assert_eq!(exec.before_model("x", "m").value, "x");
}
