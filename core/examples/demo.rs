//! The main job: the editor round trip end to end, then a tour of the hooks.
//!
//! 1. An editor selection is sent to the bundled example agent
//!    (`examples/agents/example-agent.sh`, no network) through an agent step:
//!    hooks enrich the context, the agent answers in Markdown, `code-apply`
//!    extracts the code blocks; the demo prints them, previews the first as a
//!    diff against the file and applies it atomically.
//! 2. Hooks written in Rust (sync and async) and the demo workspace's
//!    `.radium/hooks.toml`, with errors, panics and time-outs isolated.
//!
//! Run: `cargo run -p radium-core --example demo`.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use radium_core::{
    AsyncFnHook, Engine, EngineConfig, ErrorHookContext, FnHook, HookContext, HookExecutor,
    HookLoader, HookRegistry, HookResult, HookType, OrchestratorHooks, Request,
};
use serde_json::{json, Value};

fn editor_round_trip() -> Result<(), Box<dyn std::error::Error>> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ws = tempfile::tempdir()?;
    std::fs::create_dir_all(ws.path().join(".radium"))?;
    std::fs::create_dir_all(ws.path().join("src"))?;
    let file = ws.path().join("src/main.rs");
    std::fs::write(
        &file,
        "use std::io;\n\nfn main() {\n    println!(\"hello\");\n}\n",
    )?;
    std::fs::write(
        ws.path().join(".radium/agents.toml"),
        format!(
            "[[agents]]\nid = \"example\"\ncommand = [\"{}\"]\ntimeout = \"10s\"\n",
            repo.join("examples/agents/example-agent.sh").display()
        ),
    )?;
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.path().to_owned()),
        radium_home: Some(ws.path().to_owned()),
        ..EngineConfig::default()
    })?;
    // The workspace's own agents run only once the user trusts it.
    engine.handle(&Request::new("trust", json!({"path": ws.path()})));
    // A hook of the editor's: counts the lines of the selection before the agent sees them.
    engine.registry().register(FnHook::new(
        "selection-size",
        HookType::BeforeModel,
        |ctx| {
            let lines = ctx.data["context"]["selection"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .count();
            let mut data = ctx.data.clone();
            data["input"] = json!(format!(
                "{} ({lines} selected lines)",
                ctx.data["input"].as_str().unwrap_or_default()
            ));
            Ok(HookResult::with_data(data))
        },
    ))?;

    println!("== 1. send a selection to the example agent");
    let context = json!({
        "file_path": file,
        "selection": "fn main() {\n    println!(\"hello\");\n}",
        "surrounding_lines": "use std::io;\n---\n",
        "workspace": ws.path(),
        "selection_range": {"start_line": 3, "end_line": 5},
    });
    let started = Instant::now();
    let response = engine.handle(&Request::new(
        "step",
        json!({"agent": "example", "prompt": "review this", "context": context}),
    ));
    let elapsed = started.elapsed();
    let Some(answer) = response.data.filter(|_| response.ok) else {
        return Err(response.error.unwrap_or_default().into());
    };
    println!(
        "step took {elapsed:?} (most of it the agent process); {} code block(s):",
        answer["block_count"]
    );
    for block in answer["code_blocks"].as_array().into_iter().flatten() {
        println!(
            "--- block {} [{}] for {}\n{}",
            block["index"],
            block["language"].as_str().unwrap_or_default(),
            block["file_path"].as_str().unwrap_or("?"),
            block["content"].as_str().unwrap_or_default()
        );
    }

    println!("== 2. preview the first block as a diff against the selected lines");
    let apply = |write: bool| {
        engine.handle(&Request::new(
            "apply",
            json!({"content": answer["code_blocks"][0]["content"], "file": file, "start_line": 3, "end_line": 5, "write": write}),
        ))
    };
    let preview = apply(false);
    print!(
        "{}",
        preview
            .data
            .as_ref()
            .map_or("", |d| d["diff"].as_str().unwrap_or_default())
    );

    println!("== 3. apply it (atomic write)");
    let applied = apply(true);
    println!(
        "written: {}",
        applied
            .data
            .as_ref()
            .map_or(Value::Null, |d| d["written"].clone())
    );
    println!("{}", std::fs::read_to_string(&file)?);
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One hook of the tour panics on purpose; say so in one line instead of
    // the default panic report (this is the demo's own process, not a host).
    std::panic::set_hook(Box::new(|info| {
        eprintln!("(demo) a hook panicked on purpose and was isolated: {info}");
    }));
    editor_round_trip()?;
    println!("\n== 4. a tour of the hook engine");
    let registry = HookRegistry::new();

    // Adds the editor's context to every tool call.
    registry.register(
        FnHook::new("editor-context", HookType::BeforeTool, |ctx| {
            let mut data = ctx.data.clone();
            data["arguments"]["editor"] =
                json!({"file_path": "/demo/src/main.rs", "language": "rust"});
            Ok(HookResult::with_data(data))
        })
        .with_priority(150),
    )?;
    // Refuses writes that contain a secret (limited to write tools by hooks.toml).
    registry.register(FnHook::new(
        "protect-secrets",
        HookType::BeforeTool,
        |ctx| {
            let text = ctx.data["arguments"].to_string();
            if text.contains("AKIA") {
                Ok(HookResult::stop("the new text contains an AWS access key"))
            } else {
                Ok(HookResult::success())
            }
        },
    ))?;
    // A hook with a bug: the engine isolates its panic.
    registry.register(FnHook::new("flaky-linter", HookType::BeforeTool, |_| {
        panic!("linter crashed")
    }))?;
    // A slow async hook: its time limit comes from hooks.toml.
    registry.register(AsyncFnHook::new(
        "slow-indexer",
        HookType::BeforeTool,
        |_| async {
            tokio::time::sleep(Duration::from_secs(2)).await;
            Ok(HookResult::success())
        },
    ))?;
    // Rewrites the model's answer.
    registry.register(FnHook::new("sign-answers", HookType::AfterModel, |ctx| {
        let response = ctx.data["response"].as_str().unwrap_or_default();
        Ok(HookResult::with_data(
            json!({ "response": format!("{response}\n-- checked by radium") }),
        ))
    }))?;
    registry.register(FnHook::new(
        "redact-tokens",
        HookType::ErrorTransformation,
        |ctx| {
            let message = ctx.data["error_message"].as_str().unwrap_or_default();
            let mut data = ctx.data.clone();
            data["error_message"] = json!(message.replace("sk-123", "sk-***"));
            Ok(HookResult::with_data(data))
        },
    ))?;

    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo-workspace");
    let applied = HookLoader::new(&workspace).apply(&registry)?;
    println!(
        "radium-core {} — applied {applied} entries from {}",
        radium_core::VERSION,
        workspace.join(".radium/hooks.toml").display()
    );

    let hooks = OrchestratorHooks::new(registry.clone());

    println!("\na. before_tool `view` (read-only: protect-secrets does not match):");
    let view = hooks.before_tool("view", json!({"path": "src/main.rs"}));
    println!("{}", serde_json::to_string_pretty(&view.outcome.to_json())?);

    println!("\nb. before_tool `create` with a secret (refused):");
    let create = hooks.before_tool("create", json!({"path": "cfg.env", "text": "KEY=AKIAXXXX"}));
    match create.refused() {
        Some(stop) => println!("refused by `{}`: {}", stop.hook, stop.reason),
        None => println!("not refused?!"),
    }

    println!("\nc. after_model:");
    let answer = hooks.after_model("fix it", "demo-model", "```rust\nfn main() {}\n```");
    println!("{}", answer.value);

    println!("\nd. the error chain:");
    let handled = hooks.handle_error(ErrorHookContext::new(
        "request failed: key sk-123 rejected",
        "auth",
    ));
    println!("message after hooks: {}", handled.message);

    println!("\ne. disable `flaky-linter` at run time and run the chain again:");
    registry.disable("flaky-linter")?;
    let out = registry.execute(HookContext::new(
        HookType::BeforeTool,
        json!({"tool_name": "view", "arguments": {}}),
    ));
    for run in &out.hooks {
        println!("  {:<16} {:?} {:?}", run.name, run.status, run.duration);
    }
    Ok(())
}
