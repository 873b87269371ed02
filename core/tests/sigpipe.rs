//! A host that keeps SIGPIPE's default action (most C hosts) survives an
//! agent that exits without reading its stdin. Alone in its test binary: it
//! changes the process's signal disposition, as such a host has it.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{Engine, EngineConfig, StepRequest};

#[test]
fn an_agent_that_reads_no_stdin_does_not_kill_the_host() {
    // SAFETY: restoring a signal's default action has no memory-safety
    // preconditions; this binary runs no other test.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let home = tempfile::tempdir().unwrap();
    let truth = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap();
    std::fs::write(
        home.path().join("agents.toml"),
        format!("[[agents]]\nid = \"deaf\"\ncommand = [\"{truth}\"]\n"),
    )
    .unwrap();
    let engine = Engine::new(EngineConfig {
        radium_home: Some(home.path().to_owned()),
        ..EngineConfig::default()
    })
    .unwrap();
    for _ in 0..3 {
        // 1 MiB on stdin: far more than a pipe buffer (64 KiB).
        let request = StepRequest {
            agent: "deaf".into(),
            prompt: "x".repeat(1 << 20),
            context: serde_json::Value::Null,
        };
        // Reaching the assertion is the test: SIGPIPE would have killed us.
        let answer = pollster::block_on(engine.step(request, None));
        assert!(answer.is_ok(), "{answer:?}");
    }
}
