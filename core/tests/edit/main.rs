//! Edit tools, undo/redo, dog-tag sessions and path confinement, through the
//! JSON request door.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType, Request};
use serde_json::{json, Value};

#[path = "../common/mod.rs"]
mod common;

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    engine: Engine,
}

fn env() -> Env {
    env_with(EngineConfig::default())
}

fn env_with(mut config: EngineConfig) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    config.radium_home = Some(home.clone());
    config.workspace = Some(root.clone());
    let engine = Engine::new(config).unwrap();
    Env {
        _dir: dir,
        root,
        home,
        engine,
    }
}

impl Env {
    fn call(&self, command: &str, args: Value, tag: Option<&str>) -> Value {
        let mut request = Request::new(command, args);
        request.tag = tag.map(str::to_owned);
        self.engine.handle(&request).to_json()
    }
    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.root.join(file)).unwrap()
    }
    fn fresh_engine(&self) -> Engine {
        Engine::new(EngineConfig {
            workspace: Some(self.root.clone()),
            radium_home: Some(self.home.clone()),
            ..EngineConfig::default()
        })
        .unwrap()
    }
}

fn tag(v: &Value) -> String {
    v["tag"]
        .as_str()
        .unwrap_or_else(|| panic!("no tag in {v}"))
        .to_owned()
}

mod big;
mod conversations;
mod history;
mod merge;
mod record;
mod safety;
mod tools;
mod turns;
