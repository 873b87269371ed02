//! Inputs that once crashed or escaped: each test reproduces one and checks
//! the clear error (or the safe behaviour) that replaced it.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use radium_core::{check_json_depth, parse_json, Engine, EngineConfig, MAX_JSON_DEPTH};

fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
    format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
}

/// Runs `f` on a thread with a 256 KiB stack, as a C host's worker might.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn deep_json_is_refused_with_one_error_on_every_path() {
    let refused = format!("JSON nested deeper than {MAX_JSON_DEPTH} levels is refused");
    let engine = Engine::new(EngineConfig::default()).unwrap();
    let cases = [
        // A top-level array, the whole request.
        nested(100_000, "[", "]", ""),
        // Arrays where strings belong.
        format!(
            r#"{{"command":"ping","cwd":{}}}"#,
            nested(5_000, "[", "]", "")
        ),
        format!(
            r#"{{"command":"ping","tag":{}}}"#,
            nested(5_000, "[", "]", "1")
        ),
        format!(
            r#"{{"command":"ping","id":{}}}"#,
            nested(5_000, "{\"a\":", "}", "1")
        ),
        // Deep data where data belongs.
        format!(
            r#"{{"command":"hooks-execute","args":{{"hook_type":"before_tool","data":{}}}}}"#,
            nested(MAX_JSON_DEPTH, "[", "]", "")
        ),
    ];
    for text in cases {
        let engine = engine.clone();
        let answer =
            on_small_stack(move || engine.handle_json_text(&text).map_err(|e| e.to_string()));
        let error = answer.expect_err("deep JSON is refused");
        assert!(error.contains(&refused), "{error}");
    }
    assert_eq!(
        check_json_depth(nested(129, "[", "]", "").as_bytes()),
        Err(refused.clone())
    );
    assert_eq!(parse_json(&nested(129, "{\"k\":", "}", "0")), Err(refused));
}

#[test]
fn json_up_to_the_limit_parses_and_brackets_in_strings_do_not_count() {
    let engine = Engine::new(EngineConfig::default()).unwrap();
    // The request object is one level: data may take the rest.
    let text = format!(
        r#"{{"command":"hooks-execute","args":{{"hook_type":"before_tool","data":{}}}}}"#,
        nested(MAX_JSON_DEPTH - 2, "[", "]", "")
    );
    let answer = engine.handle_json_text(&text).unwrap();
    assert!(answer.contains(r#""ok":true"#), "{answer}");
    let in_strings = format!(
        r#"{{"command":"ping","args":{{"x":"{}"}}}}"#,
        "[{".repeat(5_000)
    );
    assert!(check_json_depth(in_strings.as_bytes()).is_ok());
    let escaped = format!(r#"["\"{}"]"#, "[".repeat(500));
    assert!(parse_json(&escaped).is_ok());
    // serde_json's own limit is the same: what we let through, it parses.
    assert!(parse_json(&nested(MAX_JSON_DEPTH, "[", "]", "")).is_ok());
}

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
fn ext_remove_takes_names_never_paths() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let outside = dir.path().join("victim");
    std::fs::create_dir_all(home.join("extensions")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("radium-extension.json"),
        r#"{"name":"victim","version":"1"}"#,
    )
    .unwrap();
    // A link in the extension folder that points outside it.
    std::os::unix::fs::symlink(&outside, home.join("extensions/linked")).unwrap();
    let engine = Engine::new(EngineConfig {
        radium_home: Some(home.clone()),
        ..EngineConfig::default()
    })
    .unwrap();
    let remove = |name: &str| {
        engine
            .handle_json(serde_json::json!({"command": "ext-remove", "args": {"name": name}}))
            .to_json()
    };
    for name in [
        "../victim",
        "../../victim",
        outside.to_str().unwrap(),
        ".",
        "..",
        "",
        "a/b",
    ] {
        let answer = remove(name);
        assert_eq!(answer["ok"], false, "{name}: {answer}");
        assert_eq!(answer["code"], "invalid_argument", "{name}: {answer}");
    }
    let answer = remove("linked");
    assert_eq!(answer["ok"], false, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("no extension named `linked`"));
    assert!(
        outside.join("radium-extension.json").exists(),
        "nothing outside was removed"
    );
}

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

#[test]
fn apply_without_cwd_is_confined_to_the_engines_workspace() {
    let (dir, ws, engine) = workspace_engine();
    let outside = dir.path().join("outside.txt");
    let answer = request(
        &engine,
        "apply",
        serde_json::json!({"content": "x\n", "file": outside, "write": true}),
    );
    assert_eq!(answer["ok"], false, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("workspace"),
        "{answer}"
    );
    assert!(!outside.exists(), "nothing written outside the workspace");
    let inside = ws.join("inside.txt");
    let answer = request(
        &engine,
        "apply",
        serde_json::json!({"content": "x\n", "file": inside, "write": true}),
    );
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), "x\n");
}

#[test]
fn writes_use_the_umask_go_through_symlinks_and_refuse_fifos() {
    use std::os::unix::fs::PermissionsExt as _;
    let (_dir, ws, engine) = workspace_engine();
    // A new file: 0666 less the umask (the test runner's umask is 022 or so).
    let answer = request(
        &engine,
        "apply",
        serde_json::json!({"content": "x\n", "file": ws.join("new.txt"), "write": true}),
    );
    assert_eq!(answer["ok"], true, "{answer}");
    let mode = std::fs::metadata(ws.join("new.txt"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_ne!(mode, 0o600, "not the temporary file's private mode");
    assert_eq!(mode & 0o644, 0o644, "readable as any new file: {mode:o}");
    // An existing file keeps its mode.
    std::fs::write(ws.join("exec.sh"), "old\n").unwrap();
    std::fs::set_permissions(ws.join("exec.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    request(
        &engine,
        "apply",
        serde_json::json!({"content": "new\n", "file": ws.join("exec.sh"), "write": true}),
    );
    let mode = std::fs::metadata(ws.join("exec.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o751);
    // A symlink inside the workspace is written through; the link stays.
    std::fs::write(ws.join("target.txt"), "old\n").unwrap();
    std::os::unix::fs::symlink(ws.join("target.txt"), ws.join("link.txt")).unwrap();
    let answer = request(
        &engine,
        "apply",
        serde_json::json!({"content": "new\n", "file": ws.join("link.txt"), "write": true}),
    );
    assert_eq!(answer["ok"], true, "{answer}");
    assert!(std::fs::symlink_metadata(ws.join("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(ws.join("target.txt")).unwrap(),
        "new\n"
    );
    // A FIFO is refused at once, by apply and by the edit tools.
    let fifo = ws.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let started = std::time::Instant::now();
    let answer = request(
        &engine,
        "apply",
        serde_json::json!({"content": "x\n", "file": fifo, "write": true}),
    );
    assert_eq!(answer["ok"], false, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("not a regular file"),
        "{answer}"
    );
    for (command, args) in [
        ("view", serde_json::json!({"path": "pipe"})),
        (
            "str-replace",
            serde_json::json!({"path": "pipe", "old": "a", "new": "b"}),
        ),
        (
            "insert",
            serde_json::json!({"path": "pipe", "line": 0, "text": "b"}),
        ),
    ] {
        let answer = engine
            .handle_json(serde_json::json!({"command": command, "args": args, "cwd": ws}))
            .to_json();
        assert_eq!(answer["ok"], false, "{command}: {answer}");
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains("not a regular file"),
            "{command}: {answer}"
        );
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "nothing blocked"
    );
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

#[test]
fn radiums_and_gits_folders_are_not_written_unless_the_user_allows_it() {
    let (dir, ws, engine) = workspace_engine();
    let home = dir.path().join("home");
    for path in [
        ".radium/hooks.toml",
        ".radium/agents.toml",
        ".git/config",
        "sub/.git/HEAD",
    ] {
        let answer = edit(
            &engine,
            &ws,
            "create",
            serde_json::json!({"path": path, "content": "x"}),
        );
        assert_eq!(answer["code"], "protected", "{path}: {answer}");
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains("allow_writes_in"),
            "{answer}"
        );
        assert!(!ws.join(path).exists(), "{path} was not written");
    }
    let answer = request(
        &engine,
        "apply",
        serde_json::json!({"content": "x\n", "file": ws.join(".radium/agents.toml"), "write": true}),
    );
    assert_eq!(answer["code"], "protected", "{answer}");
    // Reading is fine.
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: main\n").unwrap();
    assert_eq!(
        edit(
            &engine,
            &ws,
            "view",
            serde_json::json!({"path": ".git/HEAD"})
        )["ok"],
        true
    );
    // The user's settings allow one folder; the other stays protected.
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("settings.toml"), "allow_writes_in = [\".git\"]\n").unwrap();
    let answer = edit(
        &engine,
        &ws,
        "create",
        serde_json::json!({"path": ".git/info", "content": "x"}),
    );
    assert_eq!(answer["ok"], true, "{answer}");
    let tag = answer["tag"].clone();
    let tagged = |path: &str| {
        engine
            .handle_json(serde_json::json!({
                "command": "create",
                "args": {"path": path, "content": "x"},
                "cwd": ws,
                "tag": tag,
            }))
            .to_json()
    };
    let answer = tagged(".radium/x");
    assert_eq!(answer["code"], "protected", "{answer}");
    // Broken settings are a clear error naming the file and line.
    std::fs::write(home.join("settings.toml"), "\nallow_writes_in = 3\n").unwrap();
    let answer = tagged(".git/y");
    assert_eq!(answer["code"], "config", "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("settings.toml:2:1"),
        "{answer}"
    );
}

#[test]
fn undo_and_redo_are_confined_again_when_they_replay() {
    let (dir, ws, engine) = workspace_engine();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let created = edit(
        &engine,
        &ws,
        "create",
        serde_json::json!({"path": "d/a.txt", "content": "one\n"}),
    );
    assert_eq!(created["ok"], true, "{created}");
    let tag = created["tag"].as_str().unwrap().to_owned();
    let replaced = engine
        .handle_json(serde_json::json!({"command": "str-replace", "args": {"path": "d/a.txt", "old": "one", "new": "two"}, "cwd": ws, "tag": tag}))
        .to_json();
    assert_eq!(replaced["ok"], true, "{replaced}");
    let tag = replaced["tag"].as_str().unwrap().to_owned();
    // The folder is swapped for a link to a folder outside with the same file.
    std::fs::write(outside.join("a.txt"), "two\n").unwrap();
    std::fs::remove_dir_all(ws.join("d")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("d")).unwrap();
    let undo = engine
        .handle_json(serde_json::json!({"command": "undo", "cwd": ws, "tag": tag}))
        .to_json();
    assert_eq!(undo["code"], "outside_project", "{undo}");
    assert_eq!(
        std::fs::read_to_string(outside.join("a.txt")).unwrap(),
        "two\n",
        "untouched"
    );
}
