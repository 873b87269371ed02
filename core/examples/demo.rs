//! The main job: a tour of the hook engine.
//!
//! Registers hooks written in Rust (sync and async), applies the demo
//! workspace's `.radium/hooks.toml`, and runs the chains an agent step would
//! run, printing each outcome as JSON.
//!
//! Run: `cargo run -p radium-core --example demo`.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use radium_core::{
    AsyncFnHook, ErrorHookContext, FnHook, HookContext, HookExecutor, HookLoader, HookRegistry,
    HookResult, HookType, OrchestratorHooks,
};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
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
    println!(
        "\nregistered hooks:\n{}",
        serde_json::to_string_pretty(&registry.list())?
    );

    let hooks = OrchestratorHooks::new(registry.clone());

    println!("\n1. before_tool `view` (read-only: protect-secrets does not match):");
    let view = hooks.before_tool("view", json!({"path": "src/main.rs"}));
    println!("{}", serde_json::to_string_pretty(&view.outcome.to_json())?);

    println!("\n2. before_tool `create` with a secret (refused):");
    let create = hooks.before_tool("create", json!({"path": "cfg.env", "text": "KEY=AKIAXXXX"}));
    match create.refused() {
        Some(stop) => println!("refused by `{}`: {}", stop.hook, stop.reason),
        None => println!("not refused?!"),
    }

    println!("\n3. after_model:");
    let answer = hooks.after_model("fix it", "demo-model", "```rust\nfn main() {}\n```");
    println!("{}", answer.value);

    println!("\n4. the error chain:");
    let handled = hooks.handle_error(ErrorHookContext::new(
        "request failed: key sk-123 rejected",
        "auth",
    ));
    println!("message after hooks: {}", handled.message);

    println!("\n5. disable `flaky-linter` at run time and run the chain again:");
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
