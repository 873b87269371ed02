//! Scripts stopped at their time limit are reaped even in a host that owns
//! SIGCHLD (Neovim and Node do, through libuv), where tokio's own
//! signal-driven reaping never runs. Alone in its test binary: it changes the
//! process's SIGCHLD handler, as such a host does.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{ExecuteOptions, HookContext, HookOptions, HookRegistry, HookType, ScriptHook};

/// The zombie children of this process.
fn zombies() -> usize {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| {
            // pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
            let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first() == Some(&"Z") && fields.get(1) == Some(&me.as_str())
        })
        .count()
}

fn run_chain(registry: &HookRegistry) -> serde_json::Value {
    pollster::block_on(registry.execute_async(
        HookContext::new(HookType::BeforeTool, serde_json::json!({"tool_name": "x"})),
        ExecuteOptions::default(),
    ))
    .to_json()
}

#[test]
fn scripts_stopped_at_their_time_limit_leave_no_zombies() {
    let registry = HookRegistry::new();
    let hook = ScriptHook::new("never", HookType::BeforeTool, "sh")
        .with_args(["-c".to_owned(), "exec sleep 30".to_owned()]);
    registry
        .register_with(
            hook,
            HookOptions {
                timeout: Some(std::time::Duration::from_millis(50)),
                ..HookOptions::default()
            },
        )
        .unwrap();
    // The first run sets tokio's handler up; then the host takes SIGCHLD
    // over, as libuv does in Neovim and Node.
    assert_eq!(run_chain(&registry)["hooks"][0]["status"], "timed_out");
    // SAFETY: restoring a signal's default action; this binary runs no other test.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    }
    for _ in 0..20 {
        assert_eq!(run_chain(&registry)["hooks"][0]["status"], "timed_out");
    }
    let started = std::time::Instant::now();
    while zombies() > 0 && started.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(zombies(), 0, "every killed script was reaped");
}
