//! Script hooks: real processes, JSON on stdin, results on stdout, exit codes,
//! time limits that kill the whole process group.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::Path;
use std::time::{Duration, Instant};

use radium_core::{
    CancellationToken, ChainStatus, ExecuteOptions, HookContext, HookOptions, HookRegistry,
    HookRunStatus, HookType, ScriptHook,
};
use serde_json::{json, Value};

fn sh(name: &str, script: &str) -> ScriptHook {
    ScriptHook::new(name, HookType::BeforeTool, "/bin/sh").with_args(["-c", script])
}

fn run_one(hook: ScriptHook) -> radium_core::ChainOutcome {
    let r = HookRegistry::new();
    r.register(hook).unwrap();
    r.execute(HookContext::new(
        HookType::BeforeTool,
        json!({"tool_name": "view", "n": 1}),
    ))
}

/// The first hook answered continue (else its error is the message).
fn assert_continued(out: &radium_core::ChainOutcome) {
    assert_eq!(
        out.hooks[0].status,
        HookRunStatus::Continued,
        "{:?}",
        out.hooks[0].error
    );
}

#[test]
fn empty_stdout_and_exit_0_is_continue() {
    let out = run_one(sh("quiet", "cat > /dev/null"));
    assert_continued(&out);
    assert_eq!(out.data["n"], 1);
}

#[test]
fn the_context_arrives_on_stdin_and_json_stdout_modifies() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("stdin.json");
    let script = format!(
        "cat > '{}'; echo '{{\"action\":\"modify\",\"data\":{{\"from\":\"script\"}}}}'",
        seen.display()
    );
    let out = run_one(sh("modifier", &script));
    assert_eq!(
        out.hooks[0].status,
        HookRunStatus::Modified,
        "{:?}",
        out.hooks[0].error
    );
    assert_eq!(out.data, json!({"from": "script"}));
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(seen).unwrap()).unwrap();
    assert_eq!(
        stdin,
        json!({"hook_type": "before_tool", "data": {"tool_name": "view", "n": 1}, "metadata": null})
    );
}

#[test]
fn the_environment_names_the_hook_and_the_program_runs_without_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("env.txt");
    // printf runs directly: `;` and `$HOME` in an argument stay literal.
    let hook = ScriptHook::new("envy", HookType::BeforeTool, "/bin/sh")
        .with_args([
            "-c",
            "printf '%s|%s|%s|%s' \"$RADIUM_HOOK_TYPE\" \"$RADIUM_HOOK_NAME\" \"$EXTRA\" \"$1\" > \"$OUT\"",
            "argv0",
            "a; rm -rf $HOME",
        ])
        .with_env("EXTRA", "x")
        .with_env("OUT", out_file.to_str().unwrap());
    let out = run_one(hook);
    assert_continued(&out);
    assert_eq!(
        std::fs::read_to_string(out_file).unwrap(),
        "before_tool|envy|x|a; rm -rf $HOME"
    );
    assert!(
        std::env::var("RADIUM_HOOK_NAME").is_err(),
        "the host environment is untouched"
    );
}

#[test]
fn exit_2_stops_with_stderr_as_the_reason() {
    let out = run_one(sh("guard", "echo 'writes are frozen' >&2; exit 2"));
    assert_eq!(out.status, ChainStatus::Stopped);
    let stop = out.stopped_by.unwrap();
    assert_eq!(stop.hook, "guard");
    assert_eq!(stop.reason, "writes are frozen");
}

#[test]
fn other_exit_codes_bad_output_and_missing_programs_are_that_hooks_error() {
    let out = run_one(sh("fails", "echo 'no config' >&2; exit 3"));
    assert_eq!(out.hooks[0].status, HookRunStatus::Error);
    assert_eq!(
        out.hooks[0].error.as_deref(),
        Some("script hook `fails` exited with status 3: no config")
    );

    let out = run_one(sh("garbage", "echo 'hello there'"));
    let err = out.hooks[0].error.as_deref().unwrap();
    assert!(
        err.starts_with("script hook `garbage` printed something that is not JSON"),
        "{err}"
    );
    assert!(err.contains("hello there"), "{err}");

    let out = run_one(sh("bad-action", "echo '{\"action\":\"explode\"}'"));
    assert!(out.hooks[0]
        .error
        .as_deref()
        .unwrap()
        .contains("unknown action `explode`"));

    let out = run_one(ScriptHook::new(
        "ghost",
        HookType::BeforeTool,
        "/no/such/program",
    ));
    let err = out.hooks[0].error.as_deref().unwrap();
    assert!(
        err.starts_with("script hook `ghost`: cannot run `/no/such/program`"),
        "{err}"
    );

    let out = run_one(sh("chatty", "head -c 5000 /dev/zero | tr '\\0' a").with_max_output(1000));
    assert_eq!(
        out.hooks[0].error.as_deref(),
        Some("script hook `chatty` wrote more than 1000 bytes on stdout")
    );
}

fn alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

fn read_pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

#[test]
fn a_time_limit_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    // The script starts a grandchild and waits: both must die at the limit.
    let script = format!("sleep 30 & echo $$ $! > '{}'; wait", pids.display());
    let r = HookRegistry::new();
    r.register_with(
        sh("slow", &script),
        HookOptions {
            timeout: Some(Duration::from_millis(300)),
            ..HookOptions::default()
        },
    )
    .unwrap();
    let t = Instant::now();
    let out = r.execute(HookContext::new(HookType::BeforeTool, json!({})));
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(out.hooks[0].status, HookRunStatus::TimedOut);
    let pids = read_pids(&pids);
    assert_eq!(pids.len(), 2, "{pids:?}");
    std::thread::sleep(Duration::from_millis(200));
    for pid in pids {
        assert!(!alive(pid), "process {pid} survived the time limit");
    }
}

#[test]
fn cancelling_a_chain_kills_its_script() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let script = format!("echo $$ > '{}'; exec sleep 30", pids.display());
    let r = HookRegistry::new();
    r.register(sh("sleeper", &script)).unwrap();
    let token = CancellationToken::new();
    let t2 = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        t2.cancel();
    });
    let out = r.execute_with(
        HookContext::new(HookType::BeforeTool, json!({})),
        &ExecuteOptions::with_cancel(token),
    );
    assert_eq!(out.status, ChainStatus::Cancelled);
    std::thread::sleep(Duration::from_millis(200));
    for pid in read_pids(&pids) {
        assert!(!alive(pid), "process {pid} survived cancellation");
    }
}

#[test]
fn scripts_get_the_editor_context_in_radium_editor_variables() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("env.txt");
    let hook = sh(
        "editor-env",
        &format!(
            "cat > /dev/null; printf '%s|%s|%s' \"$RADIUM_EDITOR_FILE_PATH\" \"$RADIUM_EDITOR_LANGUAGE\" \"$RADIUM_EDITOR_SELECTION\" > '{}'",
            out_file.display()
        ),
    );
    let r = HookRegistry::new();
    r.register(hook).unwrap();
    let data = json!({"tool_name": "step", "arguments": {"context": {
        "file_path": "/w/a.py", "language": "python", "selection": "x = 1", "surrounding_lines": ""
    }}});
    let out = r.execute(HookContext::new(HookType::BeforeTool, data));
    assert_continued(&out);
    assert_eq!(
        std::fs::read_to_string(out_file).unwrap(),
        "/w/a.py|python|x = 1"
    );
}
