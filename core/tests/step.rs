//! The agent step with real agent processes.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType, Request};
use serde_json::{json, Value};

mod common;

struct Setup {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    engine: Engine,
}

fn example_agent() -> String {
    format!(
        "{}/../examples/agents/example-agent.sh",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn setup(agents_toml: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(ws.join(".radium")).unwrap();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(ws.join(".radium/agents.toml"), agents_toml).unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.clone()),
        radium_home: Some(home.clone()),
        ..EngineConfig::default()
    })
    .unwrap();
    let trusted = engine
        .handle(&Request::new("trust", json!({"path": ws})))
        .to_json();
    assert_eq!(trusted["data"]["trusted"], true, "{trusted}");
    Setup {
        _dir: dir,
        ws,
        home,
        engine,
    }
}

fn example_toml() -> String {
    format!(
        "[[agents]]\nid = \"example\"\ncommand = [\"{}\"]\ntimeout = \"10s\"\n",
        example_agent()
    )
}

fn step(s: &Setup, agent: &str, prompt: &str, context: Value) -> Value {
    s.engine
        .handle(&Request::new(
            "step",
            json!({"agent": agent, "prompt": prompt, "context": context}),
        ))
        .to_json()
}

fn context(ws: &Path) -> Value {
    json!({
        "file_path": ws.join("src/main.rs"),
        "selection": "fn main() {}",
        "surrounding_lines": "use std::io;\n---\n",
        "workspace": ws,
    })
}

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
fn a_slow_agent_is_stopped_with_its_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let s = setup(&format!(
        "[[agents]]\nid = \"slow\"\ncommand = [\"/bin/sh\", \"-c\", \"sleep 30 & echo $$ $! > '{}'; wait\"]\ntimeout = 300\n",
        pids.display()
    ));
    let t = Instant::now();
    let r = step(&s, "slow", "", Value::Null);
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(r["code"], "agent_timeout");
    assert_eq!(
        r["error"],
        "agent `slow` did not answer within 300ms; it was stopped"
    );
    std::thread::sleep(Duration::from_millis(200));
    for pid in std::fs::read_to_string(pids).unwrap().split_whitespace() {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            stat.is_empty() || stat.contains(") Z "),
            "process {pid} survived"
        );
    }
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

#[test]
fn agents_come_from_the_workspace_and_the_user_and_the_workspace_wins() {
    let s = setup(&format!(
        "{}\n[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"workspace\"]\n",
        example_toml()
    ));
    std::fs::write(
        s.home.join("agents.toml"),
        "[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"user\"]\n\n[[agents]]\nid = \"user-only\"\ncommand = [\"/bin/echo\", \"u\"]\n",
    )
    .unwrap();
    let list = s
        .engine
        .handle(&Request::new("agents", Value::Null))
        .to_json();
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["example", "mine", "user-only"]);
    assert_eq!(
        list["data"][1]["command"],
        json!(["/bin/echo", "workspace"])
    );
    assert_eq!(list["data"][0]["timeout_ms"], 10000);
    assert_eq!(
        step(&s, "mine", "", Value::Null)["data"]["original_output"],
        "workspace\n"
    );
    assert_eq!(
        step(&s, "user-only", "", Value::Null)["data"]["original_output"],
        "u\n"
    );
}

#[test]
fn agents_toml_errors_name_the_file_and_line() {
    let cases = [
        ("[[agents]]\nid = \"a\"\n", "missing field `command`"),
        ("[[agents]]\nid = \"a\"\ncommand = []\n", "field `command`: must name a program"),
        ("[[agents]]\nid = \"a b\"\ncommand = [\"x\"]\n", "field `id`"),
        ("[[agents]]\nid = \"a\"\ncommand = [\"x\"]\ntimeout = \"soon\"\n", "field `timeout`: invalid duration"),
        ("[[agents]]\nid = \"a\"\ncommand = [\"x\"]\n[[agents]]\nid = \"a\"\ncommand = [\"y\"]\n", "configured twice"),
        ("[[agents]]\nid = \"a\"\ncommand = [\"x\"]\nmodel = 1\n", "unknown field `model`"),
    ];
    for (text, expected) in cases {
        let s = setup(text);
        let r = s
            .engine
            .handle(&Request::new("agents", Value::Null))
            .to_json();
        let err = r["error"].as_str().unwrap_or_default().to_owned();
        assert!(err.contains(".radium/agents.toml:"), "{err}");
        assert!(err.contains(expected), "{text:?}: {err}");
    }
}

#[test]
fn the_async_form_does_not_block_its_executor() {
    let s = setup(
        "[[agents]]\nid = \"slowish\"\ncommand = [\"/bin/sh\", \"-c\", \"sleep 0.3; echo done\"]\n",
    );
    let (r, ticks) = common::while_ticking(
        s.engine
            .handle_async(&Request::new("step", json!({"agent": "slowish"}))),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.data.unwrap()["original_output"], "done\n");
    assert!(ticks >= 10, "{ticks}");
}

#[test]
fn workspace_agents_need_a_trusted_workspace() {
    let s = setup(&example_toml());
    let r = s
        .engine
        .handle(&Request::new(
            "trust",
            json!({"path": s.ws, "revoke": true}),
        ))
        .to_json();
    assert_eq!(r["data"]["trusted"], false);
    let r = step(&s, "example", "x", Value::Null);
    assert_eq!(r["code"], "untrusted", "{r}");
    let err = r["error"].as_str().unwrap();
    assert!(err.starts_with("agent `example` is defined in "), "{err}");
    assert!(err.contains("is not trusted; trust it first"), "{err}");
    let list = s
        .engine
        .handle(&Request::new("agents", Value::Null))
        .to_json();
    assert_eq!(
        list["data"],
        json!([]),
        "untrusted workspace agents are not listed"
    );
    // User-level agents need no trust.
    std::fs::write(
        s.home.join("agents.toml"),
        "[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"hi\"]\n",
    )
    .unwrap();
    assert_eq!(
        step(&s, "mine", "", Value::Null)["data"]["original_output"],
        "hi\n"
    );
    s.engine
        .handle(&Request::new("trust", json!({"path": s.ws})));
    assert_eq!(step(&s, "example", "x", Value::Null)["ok"], true);
}

fn gone(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.is_empty() || stat.contains(") Z ")
}

#[test]
fn cancel_stops_a_running_step_and_kills_its_agent() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let s = setup(&format!(
        "[[agents]]\nid = \"slow\"\ncommand = [\"/bin/sh\", \"-c\", \"sleep 30 & echo $$ $! > '{}'; wait\"]\ntimeout = \"60s\"\n",
        pids.display()
    ));
    let mut request = Request::new("step", json!({"agent": "slow"}));
    request.id = Some("step-1".into());
    let engine = s.engine.clone();
    let t = Instant::now();
    // The sync door blocks its thread; another thread cancels it.
    let waiter = std::thread::spawn(move || engine.handle(&request).to_json());
    while !pids.exists()
        || std::fs::read_to_string(&pids)
            .unwrap()
            .split_whitespace()
            .count()
            < 2
    {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // An id nobody uses cancels nothing.
    let none = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "other"})))
        .to_json();
    assert_eq!(
        none,
        json!({"ok": true, "data": {"id": "other", "cancelled": 0}})
    );
    let cancel = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "step-1"})))
        .to_json();
    assert_eq!(
        cancel,
        json!({"ok": true, "data": {"id": "step-1", "cancelled": 1}})
    );
    let r = waiter.join().unwrap();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(r["ok"], false);
    assert_eq!(r["code"], "cancelled", "{r}");
    assert_eq!(r["error"], "request `step-1` was cancelled");
    let deadline = Instant::now() + Duration::from_secs(5);
    for pid in std::fs::read_to_string(&pids).unwrap().split_whitespace() {
        while !gone(pid) {
            assert!(
                Instant::now() < deadline,
                "process {pid} survived the cancel"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // Finished requests are forgotten: cancelling again finds nothing.
    let again = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "step-1"})))
        .to_json();
    assert_eq!(again["data"]["cancelled"], 0);
}

#[test]
fn cancel_needs_an_id_and_a_finished_request_keeps_its_answer() {
    let s = setup(&example_toml());
    for (args, message) in [
        (
            json!({}),
            "invalid argument: `cancel`: missing argument `id`",
        ),
        (
            json!({"id": 3}),
            "invalid argument: `cancel`: argument `id` must be a string, got a number",
        ),
    ] {
        let r = s.engine.handle(&Request::new("cancel", args)).to_json();
        assert_eq!(r["code"], "invalid_argument", "{r}");
        assert_eq!(r["error"], message);
    }
    let mut request = Request::new(
        "step",
        json!({"agent": "example", "context": context(&s.ws)}),
    );
    request.id = Some("quick".into());
    let r = s.engine.handle(&request).to_json();
    assert_eq!(r["ok"], true, "{r}");
    let cancel = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "quick"})))
        .to_json();
    assert_eq!(cancel["data"]["cancelled"], 0);
}
