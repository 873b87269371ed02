//! Hook types, results, contexts and adapters.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::sync::Arc;

use radium_core::{
    ErrorHook, ErrorHookAdapter, ErrorHookContext, Hook, HookCall, HookContext, HookMeta,
    HookRegistry, HookResult, HookType, ModelHook, ModelHookAdapter, ModelHookContext,
    TelemetryHook, TelemetryHookAdapter, TelemetryHookContext, ToolHook, ToolHookAdapter,
    ToolHookContext,
};
use serde_json::{json, Value};

#[test]
fn all_thirteen_types_round_trip_by_name() {
    let names = [
        "before_model",
        "after_model",
        "before_tool",
        "after_tool",
        "tool_selection",
        "error_interception",
        "error_transformation",
        "error_recovery",
        "error_logging",
        "telemetry_collection",
        "custom_logging",
        "metrics_aggregation",
        "performance_monitoring",
    ];
    assert_eq!(HookType::ALL.len(), 13);
    for (i, name) in names.iter().enumerate() {
        let t: HookType = name.parse().unwrap();
        assert_eq!(t.as_str(), *name);
        assert_eq!(t.index(), i);
        assert_eq!(HookType::from_index(i), Some(t));
        assert_eq!(serde_json::to_value(t).unwrap(), json!(name));
        assert_eq!(serde_json::from_value::<HookType>(json!(name)).unwrap(), t);
    }
    assert_eq!(HookType::from_index(13), None);
}

#[test]
fn an_unknown_type_name_lists_the_valid_ones() {
    let err = "BeforeModel".parse::<HookType>().unwrap_err();
    assert_eq!(err.code(), "unknown_hook_type");
    assert_eq!(
        err.to_string(),
        "unknown hook type `BeforeModel`; valid types are: before_model, after_model, before_tool, after_tool, tool_selection, error_interception, error_transformation, error_recovery, error_logging, telemetry_collection, custom_logging, metrics_aggregation, performance_monitoring"
    );
    let err = serde_json::from_value::<HookType>(json!("nope")).unwrap_err();
    assert!(err.to_string().contains("valid types are"));
}

#[test]
fn results_have_a_documented_json_form() {
    let cases = [
        (HookResult::success(), json!({"action": "continue"})),
        (
            HookResult::with_data(json!([1])),
            json!({"action": "modify", "data": [1]}),
        ),
        (
            HookResult::stop("no"),
            json!({"action": "stop", "reason": "no"}),
        ),
        (
            HookResult::error("bad"),
            json!({"action": "error", "message": "bad"}),
        ),
    ];
    for (result, json) in cases {
        assert_eq!(result.to_json(), json);
        assert_eq!(HookResult::from_json(&json).unwrap(), result);
    }
    // Short forms.
    assert_eq!(
        HookResult::from_json(&Value::Null).unwrap(),
        HookResult::Continue
    );
    assert_eq!(
        HookResult::from_json(&json!({})).unwrap(),
        HookResult::Continue
    );
    assert_eq!(
        HookResult::from_json(&json!({"data": {"x": 1}})).unwrap(),
        HookResult::with_data(json!({"x": 1}))
    );
    assert_eq!(
        HookResult::from_json(&json!({"action": "modify", "data": null})).unwrap(),
        HookResult::with_data(Value::Null)
    );
}

#[test]
fn malformed_results_are_clear_errors() {
    let cases = [
        (
            json!(3),
            "expected an object like {\"action\": \"continue\"}, got a number",
        ),
        (json!("continue"), "got a string"),
        (json!({"action": "explode"}), "unknown action `explode`"),
        (
            json!({"action": 1}),
            "`action` must be a string, got a number",
        ),
        (
            json!({"action": "modify"}),
            "action `modify` needs a `data` field",
        ),
        (
            json!({"action": "stop", "reason": 5}),
            "`reason` must be a string",
        ),
        (json!({"oops": 1}), "missing `action`"),
    ];
    for (value, expected) in cases {
        let err = HookResult::from_json(&value).unwrap_err();
        assert_eq!(err.code(), "invalid_result");
        assert!(err.to_string().contains(expected), "{value}: {err}");
    }
}

#[test]
fn specialised_contexts_convert_both_ways() {
    let m = ModelHookContext::after("hi", "m-1", "hello");
    let c = m.to_hook_context(HookType::AfterModel);
    assert_eq!(c.hook_type, HookType::AfterModel);
    assert_eq!(
        c.data,
        json!({"input": "hi", "model_id": "m-1", "response": "hello"})
    );
    assert_eq!(ModelHookContext::from_hook_context(&c).unwrap(), m);
    let before = ModelHookContext::before("hi", "m-1").to_hook_context(HookType::BeforeModel);
    assert_eq!(before.data, json!({"input": "hi", "model_id": "m-1"}));

    let t = ToolHookContext::after("view", json!({"path": "a"}), json!("text"));
    let c = t.to_hook_context(HookType::AfterTool);
    assert_eq!(c.tool_name(), Some("view"));
    assert_eq!(ToolHookContext::from_hook_context(&c).unwrap(), t);

    let e = ErrorHookContext::new("boom", "io").with_source("create");
    let c = e.to_hook_context(HookType::ErrorLogging);
    assert_eq!(
        c.data,
        json!({"error_message": "boom", "error_type": "io", "error_source": "create"})
    );
    assert_eq!(ErrorHookContext::from_hook_context(&c).unwrap(), e);

    let tel = TelemetryHookContext::new("step", json!({"ms": 3}));
    let c = tel.to_hook_context(HookType::MetricsAggregation);
    assert_eq!(TelemetryHookContext::from_hook_context(&c).unwrap(), tel);

    let bad = HookContext::new(HookType::BeforeTool, json!({"arguments": 1}));
    let err = ToolHookContext::from_hook_context(&bad).unwrap_err();
    assert_eq!(err.code(), "invalid_context");
    assert!(err.to_string().contains("tool_name"), "{err}");
}

struct Upper;
impl ModelHook for Upper {
    fn name(&self) -> &'static str {
        "upper"
    }
    fn before_model(&self, ctx: &ModelHookContext) -> radium_core::HookOutput {
        let mut next = ctx.clone();
        next.input = ctx.input.to_uppercase();
        Ok(HookResult::with_data(serde_json::to_value(next)?))
    }
    fn after_model(&self, ctx: &ModelHookContext) -> radium_core::HookOutput {
        Ok(HookResult::with_data(
            json!({"response": format!("[{}]", ctx.response.as_deref().unwrap_or(""))}),
        ))
    }
}

struct DenyRm;
impl ToolHook for DenyRm {
    fn name(&self) -> &'static str {
        "deny-rm"
    }
    fn before_tool(&self, ctx: &ToolHookContext) -> radium_core::HookOutput {
        if ctx.arguments["cmd"] == "rm" {
            Ok(HookResult::stop("rm is not allowed"))
        } else {
            Ok(HookResult::success())
        }
    }
    fn tool_selection(&self, ctx: &ToolHookContext) -> radium_core::HookOutput {
        Ok(HookResult::with_data(
            json!({"tool_name": format!("safe-{}", ctx.tool_name), "arguments": ctx.arguments}),
        ))
    }
}

struct Redact;
impl ErrorHook for Redact {
    fn name(&self) -> &'static str {
        "redact"
    }
    fn transform_error(&self, ctx: &ErrorHookContext) -> radium_core::HookOutput {
        Ok(HookResult::with_data(
            json!({"error_message": ctx.error_message.replace("secret", "***")}),
        ))
    }
}

struct Count(std::sync::atomic::AtomicUsize);
impl TelemetryHook for Count {
    fn name(&self) -> &'static str {
        "count"
    }
    fn on_event(&self, hook_type: HookType, ctx: &TelemetryHookContext) -> radium_core::HookOutput {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(HookResult::with_data(
            json!({"seen": format!("{hook_type}:{}", ctx.event_type)}),
        ))
    }
}

#[test]
fn adapters_run_specialised_hooks_through_the_registry() {
    let r = HookRegistry::new();
    let upper = Arc::new(Upper);
    r.register(ModelHookAdapter::new(Arc::clone(&upper), HookType::BeforeModel).unwrap())
        .unwrap();
    r.register(
        ModelHookAdapter::new(upper, HookType::AfterModel)
            .unwrap()
            .with_name("upper-after"),
    )
    .unwrap();
    let out = r.execute(ModelHookContext::before("hi", "m").to_hook_context(HookType::BeforeModel));
    assert_eq!(out.data["input"], "HI");
    let out =
        r.execute(ModelHookContext::after("hi", "m", "ok").to_hook_context(HookType::AfterModel));
    assert_eq!(out.data["response"], "[ok]");

    let deny = Arc::new(DenyRm);
    r.register(ToolHookAdapter::new(Arc::clone(&deny), HookType::BeforeTool).unwrap())
        .unwrap();
    r.register(
        ToolHookAdapter::new(deny, HookType::ToolSelection)
            .unwrap()
            .with_name("deny-sel"),
    )
    .unwrap();
    let out = r.execute(
        ToolHookContext::before("shell", json!({"cmd": "rm"}))
            .to_hook_context(HookType::BeforeTool),
    );
    assert_eq!(out.stopped_by.unwrap().reason, "rm is not allowed");
    let out = r.execute(
        ToolHookContext::before("shell", json!({})).to_hook_context(HookType::ToolSelection),
    );
    assert_eq!(out.data["tool_name"], "safe-shell");

    r.register(ErrorHookAdapter::new(Arc::new(Redact), HookType::ErrorTransformation).unwrap())
        .unwrap();
    let out = r.execute(
        ErrorHookContext::new("the secret leaked", "x")
            .to_hook_context(HookType::ErrorTransformation),
    );
    assert_eq!(out.data["error_message"], "the *** leaked");

    let count = Arc::new(Count(Default::default()));
    r.register(
        TelemetryHookAdapter::new(Arc::clone(&count), HookType::PerformanceMonitoring).unwrap(),
    )
    .unwrap();
    let out = r.execute(
        TelemetryHookContext::new("step", json!({}))
            .to_hook_context(HookType::PerformanceMonitoring),
    );
    assert_eq!(out.data["seen"], "performance_monitoring:step");
    assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1);

    // Data of the wrong shape is that hook's error, not a crash.
    let out = r.execute(HookContext::new(
        HookType::BeforeTool,
        json!({"no": "tool"}),
    ));
    assert_eq!(out.hooks[0].status, radium_core::HookRunStatus::Error);
    assert!(out.hooks[0]
        .error
        .as_deref()
        .unwrap()
        .contains("invalid hook context"));
}

#[test]
fn adapters_refuse_a_type_of_another_category() {
    let err = ModelHookAdapter::new(Arc::new(Upper), HookType::BeforeTool)
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "invalid hook context: hook `upper` is a model hook and cannot run as `before_tool` (a tool hook)"
    );
    assert!(ToolHookAdapter::new(Arc::new(DenyRm), HookType::ErrorLogging).is_err());
    assert!(ErrorHookAdapter::new(Arc::new(Redact), HookType::AfterModel).is_err());
}

#[test]
fn a_custom_hook_type_implements_the_trait_directly() {
    struct Fixed(HookMeta);
    impl Hook for Fixed {
        fn meta(&self) -> &HookMeta {
            &self.0
        }
        fn call(&self, _: &HookContext) -> HookCall {
            HookResult::with_data(json!("fixed")).into()
        }
    }
    let r = HookRegistry::new();
    r.register(Fixed(HookMeta::new("fixed", HookType::TelemetryCollection)))
        .unwrap();
    assert_eq!(r.list()[0].priority.0, 100);
    let out = r.execute(HookContext::new(HookType::TelemetryCollection, Value::Null));
    assert_eq!(out.data, json!("fixed"));
}

/// A before_tool chain of hooks run in order, each calling `look`; a hook
/// whose entry in `changes` is true then replaces the data with `{"n": 2}`.
fn chain_with_one_change(
    changes: &[bool],
    look: impl Fn(&HookContext) + Send + Sync + Clone + 'static,
) -> HookRegistry {
    let r = HookRegistry::new();
    for (i, &modify) in changes.iter().enumerate() {
        let look = look.clone();
        let priority = i32::try_from(changes.len() - i).unwrap();
        r.register(
            radium_core::FnHook::new(format!("h{i}"), HookType::BeforeTool, move |ctx| {
                look(ctx);
                if modify {
                    Ok(HookResult::with_data(json!({"n": 2})))
                } else {
                    Ok(HookResult::success())
                }
            })
            .with_priority(priority),
        )
        .unwrap();
    }
    r
}

#[test]
fn the_json_text_of_a_context_follows_the_chained_data() {
    let texts = Arc::new(std::sync::Mutex::new(Vec::new()));
    let r = {
        let texts = Arc::clone(&texts);
        chain_with_one_change(&[true, false, false], move |ctx| {
            texts.lock().unwrap().push(ctx.to_json_text().to_owned());
            assert_eq!(ctx.to_json_cstr().to_str().unwrap(), ctx.to_json_text());
        })
    };
    let mut ctx = HookContext::new(HookType::BeforeTool, json!({"n": 1}));
    assert_eq!(
        ctx.to_json_text(),
        r#"{"hook_type":"before_tool","data":{"n":1},"metadata":null}"#
    );
    // Changing a public field after the text was made: the chain starts afresh.
    ctx.data = json!({"n": 0});
    r.execute(ctx);
    let texts = texts.lock().unwrap();
    assert!(texts[0].contains(r#""data":{"n":0}"#), "{}", texts[0]);
    assert!(texts[1].contains(r#""data":{"n":2}"#), "{}", texts[1]);
    assert_eq!(texts[1], texts[2]);
}

#[test]
fn a_context_revision_changes_with_the_chained_data_only() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let r = {
        let seen = Arc::clone(&seen);
        chain_with_one_change(&[false, true, false, false], move |ctx| {
            seen.lock().unwrap().push(ctx.revision());
        })
    };
    let ctx = HookContext::new(HookType::BeforeTool, json!({"n": 1}));
    let copy = ctx.clone();
    assert_ne!(
        ctx.revision(),
        copy.revision(),
        "a clone has its own revision"
    );
    assert_ne!(
        ctx.revision(),
        HookContext::new(HookType::BeforeTool, json!({"n": 1})).revision(),
        "so does another context with equal data"
    );
    r.execute(ctx);
    r.execute(copy);
    let seen = seen.lock().unwrap();
    // a, b see the first state; c, d the state after b's change.
    assert_eq!(seen[0], seen[1]);
    assert_ne!(seen[1], seen[2]);
    assert_eq!(seen[2], seen[3]);
    // The second chain never shares a revision with the first.
    assert!(seen[4..].iter().all(|r| !seen[..4].contains(r)));
}

#[test]
fn run_and_chain_status_names_are_their_json() {
    use radium_core::{ChainStatus, HookRunStatus};
    for status in [
        HookRunStatus::Continued,
        HookRunStatus::Modified,
        HookRunStatus::Stopped,
        HookRunStatus::Error,
        HookRunStatus::Panicked,
        HookRunStatus::TimedOut,
        HookRunStatus::Cancelled,
    ] {
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!(status.as_str())
        );
    }
    for status in [
        ChainStatus::Completed,
        ChainStatus::Stopped,
        ChainStatus::Cancelled,
        ChainStatus::DeadlineExceeded,
    ] {
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!(status.as_str())
        );
    }
}

#[test]
fn an_outcome_built_directly_is_its_serialised_form() {
    let r = HookRegistry::new();
    r.register(radium_core::FnHook::new(
        "fails",
        HookType::BeforeTool,
        |_| Err(radium_core::HookError::new("no luck")),
    ))
    .unwrap();
    r.register(
        radium_core::FnHook::new("stops", HookType::BeforeTool, |_| {
            Ok(HookResult::stop("enough"))
        })
        .with_priority(50),
    )
    .unwrap();
    let out = r.execute(HookContext::new(
        HookType::BeforeTool,
        json!({"n": [1, "x"]}),
    ));
    assert!(out.stopped_by.is_some() && out.hooks.iter().any(|h| h.error.is_some()));
    assert_eq!(out.clone().into_json(), out.to_json());
    let done = r.execute(HookContext::new(HookType::AfterTool, json!(null)));
    assert_eq!(done.clone().into_json(), done.to_json());
}
