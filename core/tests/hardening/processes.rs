//! Script hooks and agents: huge time limits, big selections, children left behind.

use super::*;

#[test]
fn a_huge_time_limit_is_no_deadline_and_never_panics() {
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let request = |ms: u64| {
        format!(
            r#"{{"command":"hooks-execute","args":{{"hook_type":"before_tool","data":{{}},"timeout_ms":{ms}}}}}"#
        )
    };
    // The fast clock calibrates itself after 256 chains: cross that point.
    for round in 0..300 {
        let ms = if round % 2 == 0 { u64::MAX } else { 1 << 62 };
        let answer = engine.handle_json_text(&request(ms)).unwrap();
        assert!(answer.contains(r#""status":"completed""#), "{answer}");
    }
}

#[test]
fn a_selection_too_big_for_the_environment_still_reaches_the_agent() {
    let (dir, ws, _) = workspace_engine();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // The agent prints how long its variable is, its last line, and how
    // much came on stdin.
    std::fs::write(
        home.join("agents.toml"),
        r#"[[agents]]
id = "measure"
command = ["sh", "-c", "printf 'env %s\n' \"${#RADIUM_EDITOR_SELECTION}\"; printf '%s' \"$RADIUM_EDITOR_SELECTION\" | tail -n 1; echo; printf 'stdin %s\n' \"$(wc -c)\""]
"#,
    )
    .unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.clone()),
        radium_home: Some(home),
        ..EngineConfig::default()
    })
    .unwrap();
    let selection = "é".repeat(250_000); // 500,000 bytes, far over 128 KiB
    let answer = request(
        &engine,
        "step",
        serde_json::json!({"agent": "measure", "context": {
            "file_path": ws.join("a.txt"), "selection": selection, "workspace": ws,
        }}),
    );
    assert_eq!(answer["ok"], true, "{answer}");
    let output = answer["data"]["original_output"].as_str().unwrap();
    let chars: usize = output
        .lines()
        .find_map(|l| l.strip_prefix("env "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        chars > 30_000 && chars <= radium_core::MAX_ENV_VALUE,
        "{output}"
    );
    assert!(
        output.contains(radium_core::ENV_TRUNCATED.trim_start()),
        "{output}"
    );
    let stdin: usize = output
        .lines()
        .find_map(|l| l.strip_prefix("stdin "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        stdin > 500_000,
        "the whole selection came on stdin: {output}"
    );
}

#[test]
fn a_hook_ends_when_its_program_exits_even_if_a_child_keeps_stdout_open() {
    use radium_core::{
        ExecuteOptions, HookContext, HookOptions, HookRegistry, HookType, ScriptHook,
    };
    let registry = HookRegistry::new();
    let hook = ScriptHook::new("leaves-a-child", HookType::BeforeTool, "sh").with_args([
        "-c".to_owned(),
        "sleep 30 & printf '{\"action\":\"stop\",\"reason\":\"seen\"}'".to_owned(),
    ]);
    registry
        .register_with(
            hook,
            HookOptions {
                timeout: Some(std::time::Duration::from_secs(10)),
                ..HookOptions::default()
            },
        )
        .unwrap();
    let started = std::time::Instant::now();
    let outcome = pollster::block_on(registry.execute_async(
        HookContext::new(HookType::BeforeTool, serde_json::json!({"tool_name": "x"})),
        ExecuteOptions::default(),
    ));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let json = outcome.to_json();
    assert_eq!(json["status"], "stopped", "{json}");
    assert_eq!(json["stopped_by"]["reason"], "seen", "{json}");
}
