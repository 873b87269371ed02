//! Code intelligence (`read-var`, `modify-var`, `rename-file`, `lsp-list`)
//! through the request door: against the scripted language server of
//! `tests/lsp/scripted_server.py` for the protocol cases, the syntax-tree
//! fallback, and (`real.rs`, run by scripts/test-lsp.sh) real servers.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::{Path, PathBuf};

use radium_core::{Engine, EngineConfig, Request};
use serde_json::Value;

mod big_steps;
mod fallback;
mod many_edits;
mod real;
mod rust_moves;
mod scripted;
mod untrusted;

/// A workspace, a `$RADIUM_HOME` and an engine on them.
pub struct Env {
    /// The folder holding both (removed on drop).
    pub dir: tempfile::TempDir,
    /// The workspace.
    pub root: PathBuf,
    /// `$RADIUM_HOME`.
    pub home: PathBuf,
    /// The engine.
    pub engine: Engine,
}

impl Env {
    /// A workspace with `files`, and `lsp_toml` in `$RADIUM_HOME`.
    pub fn new(files: &[(&str, &str)], lsp_toml: &str) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project").canonicalize_or_make();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("lsp.toml"), lsp_toml).unwrap();
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let engine = Engine::new(EngineConfig {
            workspace: Some(root.clone()),
            radium_home: Some(home.clone()),
            ..EngineConfig::default()
        })
        .unwrap();
        Env {
            dir,
            root,
            home,
            engine,
        }
    }

    /// Trusts the workspace (its servers may run its code).
    pub fn trust(&self) {
        let r = self.call("trust", Value::Null);
        assert_eq!(r["data"]["trusted"], true, "{r}");
    }

    /// The whole response to `command` with `args`.
    pub fn call(&self, command: &str, args: Value) -> Value {
        self.call_tagged(command, args, None)
    }

    /// The response, with a dog tag.
    pub fn call_tagged(&self, command: &str, args: Value, tag: Option<&str>) -> Value {
        let mut request = Request::new(command, args);
        request.tag = tag.map(str::to_owned);
        serde_json::to_value(self.engine.handle(&request)).unwrap()
    }

    /// The data of a response that must succeed.
    pub fn ok(&self, command: &str, args: Value) -> Value {
        let response = self.call(command, args);
        assert_eq!(response["ok"], true, "{command}: {response:#}");
        response
    }

    /// A file's text (None: missing).
    pub fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(path)).ok()
    }
}

trait MakeDir {
    fn canonicalize_or_make(self) -> PathBuf;
}

impl MakeDir for PathBuf {
    fn canonicalize_or_make(self) -> PathBuf {
        std::fs::create_dir_all(&self).unwrap();
        self.canonicalize().unwrap()
    }
}

/// The scripted server's `lsp.toml` entry for Python, in `modes`, logging
/// to `log`.
pub fn scripted_toml(modes: &str, encoding: &str, log: &Path, extra: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/lsp/scripted_server.py")
        .canonicalize()
        .unwrap();
    format!(
        "[python]\ncommand = [\"python3\", {script:?}, \"--mode\", {modes:?}, \"--encoding\", {encoding:?}, \"--log\", {log:?}]\n{extra}\n",
        script = script.display().to_string(),
        log = log.display().to_string(),
    )
}

/// The log of the scripted server: (kind, payload) lines.
pub fn server_log(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// (file, line, column) of each occurrence of a `read-var` answer.
pub fn places(data: &Value) -> Vec<(String, u64, u64)> {
    data["occurrences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["file"].as_str().unwrap().to_owned(),
                o["line"].as_u64().unwrap(),
                o["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Waits up to `secs` for `check`.
pub fn eventually(secs: u64, mut check: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if check() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    check()
}

/// Whether process `pid` is alive (and not a zombie).
pub fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.split(')')
            .nth(1)
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}
