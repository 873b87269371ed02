//! What the `rad` tests share: the output of a run as text, and a workspace
//! with the example ACP agent. Each test binary uses a part of it.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Output;

/// stdout as text.
pub fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// stderr as text.
pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A temporary folder with a workspace (`ws`) and a `RADIUM_HOME` (`home`)
/// whose `agents.toml` has the example ACP agent as `example`.
pub struct AgentHome {
    /// Owns the folder.
    pub dir: tempfile::TempDir,
    /// The workspace.
    pub ws: PathBuf,
    /// The `RADIUM_HOME`.
    pub home: PathBuf,
}

/// A new [`AgentHome`].
pub fn agent_home() -> AgentHome {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/acp-agent/agent.mjs")
        .canonicalize()
        .unwrap();
    std::fs::write(
        home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\"]\n",
            script.display()
        ),
    )
    .unwrap();
    AgentHome { dir, ws, home }
}
