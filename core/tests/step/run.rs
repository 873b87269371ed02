//! A step from prompt to code blocks, through every hook stage and the error chains.

use super::*;

#[test]
fn a_step_runs_the_agent_and_returns_the_code_blocks() {
    let s = setup(&example_toml());
    let r = step(&s, "example", "review this", context(&s.ws));
    assert_eq!(r["ok"], true, "{r}");
    let d = &r["data"];
    assert_eq!(d["agent"], "example");
    assert_eq!(d["block_count"], 1);
    assert_eq!(d["code_blocks"][0]["language"], "rust");
    assert_eq!(d["code_blocks"][0]["file_path"], "src/main.rs");
    assert_eq!(
        d["code_blocks"][0]["content"],
        "// reviewed by the example agent\nfn main() {}\n"
    );
    assert!(d["original_output"]
        .as_str()
        .unwrap()
        .starts_with("Here is the selection"));
    assert_eq!(d["context"]["language"], "rust", "the validated context");
    for stage in [
        "before_tool_ns",
        "before_model_ns",
        "agent_ns",
        "after_model_ns",
        "after_tool_ns",
        "total_ns",
    ] {
        assert!(d["timings"][stage].is_u64(), "{stage}");
    }
}

#[test]
fn hooks_see_every_stage_and_can_rewrite_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("stdin.json");
    let s = setup(&format!(
        "[[agents]]\nid = \"recorder\"\ncommand = [\"/bin/sh\", \"-c\", \"cat > '{}'; printf 'ok'\"]\n",
        seen.display()
    ));
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    for hook_type in [
        HookType::BeforeTool,
        HookType::BeforeModel,
        HookType::AfterModel,
        HookType::AfterTool,
        HookType::PerformanceMonitoring,
    ] {
        let log = log.clone();
        s.engine
            .registry()
            .register(
                FnHook::new(format!("log-{hook_type}"), hook_type, move |ctx| {
                    log.lock().unwrap().push(ctx.hook_type.to_string());
                    if ctx.hook_type == HookType::BeforeModel {
                        let mut d = ctx.data.clone();
                        d["input"] = json!(format!(
                            "{} (be brief)",
                            ctx.data["input"].as_str().unwrap()
                        ));
                        return Ok(HookResult::with_data(d));
                    }
                    if ctx.hook_type == HookType::PerformanceMonitoring {
                        assert!(ctx.data["data"]["timings"]["agent_ns"].is_u64());
                    }
                    Ok(HookResult::success())
                })
                .with_priority(10),
            )
            .unwrap();
    }
    let r = step(&s, "recorder", "fix it", context(&s.ws));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        *log.lock().unwrap(),
        [
            "before_tool",
            "before_model",
            "after_model",
            "after_tool",
            "performance_monitoring"
        ]
    );
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(seen).unwrap()).unwrap();
    assert_eq!(stdin["prompt"], "fix it (be brief)");
    assert_eq!(stdin["agent"], "recorder");
    assert_eq!(stdin["context"]["selection"], "fn main() {}");
    assert_eq!(r["data"]["original_output"], "ok");
    assert_eq!(r["data"]["block_count"], 0);
}

#[test]
fn the_agent_gets_the_editor_context_in_its_environment_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env.txt");
    let s = setup(&format!(
        "[[agents]]\nid = \"env\"\ncommand = [\"/bin/sh\", \"-c\", \"cat >/dev/null; printf '%s|%s|%s|%s' \\\"$RADIUM_EDITOR_FILE_PATH\\\" \\\"$RADIUM_EDITOR_LANGUAGE\\\" \\\"$RADIUM_AGENT_ID\\\" \\\"$MODEL\\\" > '{}'\"]\n[agents.env]\nMODEL = \"tiny\"\n",
        out.display()
    ));
    let r = step(&s, "env", "", context(&s.ws));
    assert_eq!(r["ok"], true, "{r}");
    let text = std::fs::read_to_string(out).unwrap();
    assert_eq!(
        text,
        format!("{}|rust|env|tiny", s.ws.join("src/main.rs").display())
    );
    assert!(
        std::env::var("RADIUM_EDITOR_FILE_PATH").is_err(),
        "the host's environment is untouched"
    );
}

#[test]
fn bad_contexts_unknown_agents_and_refusals_are_clear_errors() {
    let s = setup(&example_toml());
    let r = step(&s, "example", "x", json!({"file_path": "relative.rs"}));
    assert_eq!(r["code"], "refused");
    assert_eq!(
        r["error"],
        "refused by hook `editor-context` (before_tool): invalid editor context: file_path: must be an absolute path, got `relative.rs`"
    );
    let r = step(
        &s,
        "example",
        "x",
        json!({"file_path": "/etc/passwd", "workspace": s.ws}),
    );
    assert_eq!(r["code"], "refused");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("is outside the workspace"),
        "{r}"
    );

    let r = step(&s, "nope", "x", Value::Null);
    assert_eq!(r["code"], "unknown_agent");
    assert_eq!(
        r["error"],
        "unknown agent `nope`; configured agents: example"
    );

    s.engine
        .registry()
        .register(FnHook::new(
            "no-agents-today",
            HookType::BeforeModel,
            |_| Ok(HookResult::stop("agents are paused")),
        ))
        .unwrap();
    let r = step(&s, "example", "x", Value::Null);
    assert_eq!(
        r["error"],
        "refused by hook `no-agents-today` (before_model): agents are paused"
    );

    let r = s
        .engine
        .handle(&Request::new("step", json!({"prompt": "x"})))
        .to_json();
    assert_eq!(
        r["error"],
        "invalid argument: `step`: missing argument `agent`"
    );
}

#[test]
fn a_failing_agent_goes_through_the_error_hooks() {
    let s = setup(&example_toml());
    let r = step(&s, "example", "fail", Value::Null);
    assert_eq!(r["code"], "agent_failed");
    assert_eq!(
        r["error"],
        "agent `example` exited with status 3: the example agent was asked to fail"
    );

    s.engine
        .registry()
        .register(FnHook::new(
            "soften",
            HookType::ErrorTransformation,
            |ctx| {
                let mut d = ctx.data.clone();
                d["error_message"] = json!(format!(
                    "agent trouble: {}",
                    ctx.data["error_type"].as_str().unwrap()
                ));
                Ok(HookResult::with_data(d))
            },
        ))
        .unwrap();
    let r = step(&s, "example", "fail", Value::Null);
    assert_eq!(r["error"], "agent trouble: agent_failed");

    s.engine
        .registry()
        .register(FnHook::new("fallback", HookType::ErrorRecovery, |ctx| {
            let mut d = ctx.data.clone();
            d["recovery"] = json!("```text\nfallback answer\n```\n");
            Ok(HookResult::with_data(d))
        }))
        .unwrap();
    let r = step(&s, "example", "fail", Value::Null);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["code_blocks"][0]["content"], "fallback answer\n");
}

#[test]
fn with_code_apply_disabled_the_answer_stays_text() {
    let s = setup(&example_toml());
    s.engine.registry().disable("code-apply").unwrap();
    let r = step(&s, "example", "x", context(&s.ws));
    assert_eq!(r["data"]["block_count"], 0);
    assert!(r["data"]["original_output"]
        .as_str()
        .unwrap()
        .contains("```rust"));
}
