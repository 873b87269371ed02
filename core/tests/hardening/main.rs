//! Inputs that once crashed or escaped: each test reproduces one and checks
//! the clear error (or the safe behaviour) that replaced it.

#![allow(clippy::unwrap_used, clippy::pedantic)]

#[path = "../common/deep.rs"]
mod deep;
use deep::{nested, on_stack};
use radium_core::{check_json_depth, parse_json, Engine, EngineConfig, MAX_JSON_DEPTH};

fn workspace_engine() -> (tempfile::TempDir, std::path::PathBuf, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.clone()),
        radium_home: Some(dir.path().join("home")),
        ..EngineConfig::default()
    })
    .unwrap();
    (dir, ws, engine)
}

fn request(engine: &Engine, command: &str, args: serde_json::Value) -> serde_json::Value {
    engine
        .handle_json(serde_json::json!({"command": command, "args": args}))
        .to_json()
}

fn edit(
    engine: &Engine,
    ws: &std::path::Path,
    command: &str,
    args: serde_json::Value,
) -> serde_json::Value {
    engine
        .handle_json(serde_json::json!({"command": command, "args": args, "cwd": ws}))
        .to_json()
}

mod json;
mod processes;
mod replay;
mod trust;
mod writes;
