//! The agent step with real agent processes.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType, Request};
use serde_json::{json, Value};

#[path = "../common/mod.rs"]
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

mod config;
mod run;
mod stop;
