//! The main job's agent session: a turn with the bundled example ACP agent
//! (no model, no network): streamed text, a tool call with its diff, a
//! permission granted by a hook, the file changed, then undone with the tag.
//!
//! Run with `cargo run -p radium-core --example session_demo` (needs `node`).

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::path::PathBuf;

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType, Request};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let (ws, home) = (dir.path().join("project"), dir.path().join("home"));
    std::fs::create_dir_all(&ws)?;
    std::fs::create_dir_all(&home)?;
    std::fs::write(ws.join("hello.txt"), "Hello, old world.\n")?;
    let agent = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/acp-agent/agent.mjs")
        .canonicalize()?;
    std::fs::write(
        home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\"]\n",
            agent.display()
        ),
    )?;
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.clone()),
        radium_home: Some(home),
        ..EngineConfig::default()
    })?;
    // A hook grants the agent's edits of text files; anything else would go
    // to the editor to ask the user.
    engine.registry().register(FnHook::new(
        "allow-txt-edits",
        HookType::BeforeTool,
        |ctx| {
            let mut data = ctx.data.clone();
            let title = data["tool_name"].as_str().unwrap_or_default();
            let txt = std::path::Path::new(title)
                .extension()
                .is_some_and(|ext| ext.eq_ignore_ascii_case("txt"));
            if title.starts_with("Write ") && txt {
                data["permission"] = json!("allow");
            }
            Ok(HookResult::with_data(data))
        },
    ))?;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let entry = engine.open_session("example", None, None).await?;
        println!("session {} with agent `example` is open", entry.session.id);
        println!("\n> write hello.txt Hello, new world.");
        let mut events = entry.session.prompt(vec![
            json!({"type": "text", "text": "write hello.txt Hello, new world."}),
        ])?;
        let mut tag = None;
        while let Some(event) = events.recv().await {
            match event["type"].as_str().unwrap_or_default() {
                "text" => println!("  text: {}", event["text"].as_str().unwrap()),
                "tool_call" => {
                    println!("  tool call: {}", event["title"].as_str().unwrap());
                    let d = &event["diffs"][0];
                    println!("    - {}", d["old_text"].as_str().unwrap_or("").trim_end());
                    println!("    + {}", d["new_text"].as_str().unwrap_or("").trim_end());
                }
                "permission_decided" => println!(
                    "  permission: allowed={} by {} ({})",
                    event["allowed"],
                    event["by"].as_str().unwrap(),
                    event["reason"].as_str().unwrap()
                ),
                "write" => println!(
                    "  wrote {} (tag {})",
                    event["path"].as_str().unwrap(),
                    event["tag"].as_str().unwrap()
                ),
                "turn_end" => {
                    println!("  turn ended: {}", event["stop_reason"].as_str().unwrap());
                    tag = event["tag"].as_str().map(str::to_owned);
                }
                "error" => return Err(event["message"].as_str().unwrap().to_owned().into()),
                _ => {}
            }
        }
        println!(
            "\nhello.txt now: {}",
            std::fs::read_to_string(ws.join("hello.txt"))?.trim_end()
        );
        let mut undo = Request::new("undo", json!({}));
        undo.tag = tag;
        let answer = engine.handle(&undo).to_json();
        println!("undo with the turn's tag: {}", answer["data"]);
        println!(
            "hello.txt after undo: {}",
            std::fs::read_to_string(ws.join("hello.txt"))?.trim_end()
        );
        entry.session.close();
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}
