//! A broken workspace `.radium/hooks.toml`: the engine is still created, and
//! only the chains that have a hook to run fail, with the file's error.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use radium_core::{
    ChainStatus, Engine, EngineConfig, FnHook, HookContext, HookOptions, HookResult, HookType,
    Request, ToolMatcher,
};
use serde_json::{json, Value};

/// Line 3 names a hook type that does not exist.
const BROKEN: &str = "[[hooks]]\nname = \"audit\"\ntype = \"before_lunch\"\n";

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

fn workspace(hooks_toml: &[u8]) -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let home = dir.path().join("home");
    std::fs::create_dir_all(root.join(".radium")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(root.join(".radium/hooks.toml"), hooks_toml).unwrap();
    std::fs::write(root.join("notes.txt"), "one\ntwo\n").unwrap();
    // The workspace's own file applies only in a trusted workspace.
    radium_core::trust::TrustStore::new(&home)
        .trust(&root)
        .unwrap();
    Ws {
        _dir: dir,
        root,
        home,
    }
}

impl Ws {
    fn engine(&self) -> Engine {
        Engine::new(EngineConfig {
            workspace: Some(self.root.clone()),
            radium_home: Some(self.home.clone()),
            ..EngineConfig::default()
        })
        .expect("a broken hooks.toml must not stop the engine")
    }
    fn toml(&self) -> String {
        self.root.join(".radium/hooks.toml").display().to_string()
    }
}

fn call(e: &Engine, command: &str, args: Value) -> Value {
    e.handle(&Request::new(command, args)).to_json()
}

/// A hook that counts its calls.
fn counter(name: &str, hook_type: HookType) -> (impl radium_core::Hook, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    let hook = FnHook::new(name, hook_type, move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        Ok(HookResult::Continue)
    });
    (hook, calls)
}

fn assert_config_error(answer: &Value, toml: &str, line: usize) {
    assert_eq!(answer["ok"], false, "{answer}");
    assert_eq!(answer["code"], "config", "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(error.starts_with(&format!("{toml}:{line}:")), "{error}");
}

#[test]
fn the_engine_is_created_and_commands_without_hooks_work() {
    let ws = workspace(BROKEN.as_bytes());
    let e = ws.engine();
    let error = e.config_error().expect("the error is kept");
    assert_eq!(error.code(), "config");
    let shown = error.to_string();
    assert!(shown.starts_with(&format!("{}:3:", ws.toml())), "{shown}");
    assert!(shown.contains("unknown variant `before_lunch`") || shown.contains("before_lunch"));

    assert_eq!(call(&e, "ping", Value::Null)["data"], "pong");
    assert_eq!(call(&e, "version", Value::Null)["ok"], true);
    let extracted = call(&e, "extract", json!({"text": "```rs\nfn x() {}\n```"}));
    assert_eq!(extracted["data"]["block_count"], 1, "{extracted}");

    // hooks-list answers the hooks, with the error as a warning.
    let list = call(&e, "hooks-list", Value::Null);
    assert_eq!(list["ok"], true);
    assert_eq!(
        list["data"].as_array().unwrap().len(),
        2,
        "the built-in hooks"
    );
    assert_eq!(list["warnings"], json!([shown]));

    // An empty chain has nothing the file could configure.
    let empty = call(&e, "hooks-execute", json!({"hook_type": "before_model"}));
    assert_eq!(empty["ok"], true, "{empty}");
    assert_eq!(empty["data"]["status"], "completed");
}

#[test]
fn hooks_execute_with_a_hook_to_run_answers_the_config_error() {
    let ws = workspace(BROKEN.as_bytes());
    let e = ws.engine();
    let (hook, calls) = counter("model", HookType::BeforeModel);
    e.registry().register(hook).unwrap();
    let answer = call(
        &e,
        "hooks-execute",
        json!({"hook_type": "before_model", "data": {"input": "hi"}}),
    );
    assert_config_error(&answer, &ws.toml(), 3);
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no hook ran");

    // A disabled hook has nothing to run: the chain completes.
    e.registry().disable("model").unwrap();
    let answer = call(&e, "hooks-execute", json!({"hook_type": "before_model"}));
    assert_eq!(answer["data"]["status"], "completed", "{answer}");
}

#[test]
fn the_registry_reports_the_refusal_in_the_outcome_and_as_an_error() {
    let ws = workspace(BROKEN.as_bytes());
    let e = ws.engine();
    let (hook, calls) = counter("model", HookType::BeforeModel);
    e.registry().register(hook).unwrap();
    let context = || HookContext::new(HookType::BeforeModel, json!({"input": "hi"}));

    let outcome = e.registry().execute(context());
    assert_eq!(outcome.status, ChainStatus::ConfigError);
    assert!(!outcome.completed());
    assert!(outcome.hooks.is_empty());
    assert_eq!(
        outcome.data,
        json!({"input": "hi"}),
        "the data is unchanged"
    );
    let stop = outcome.stopped_by.clone().unwrap();
    assert_eq!(stop.hook, ws.toml());
    assert!(stop.reason.starts_with(&format!("{}:3:", ws.toml())));
    assert_eq!(outcome.to_json()["status"], "config_error");
    assert_eq!(outcome.into_json()["status"], "config_error");

    let error = e.registry().try_execute(context()).unwrap_err();
    assert_eq!(error.code(), "config");
    assert!(error.to_string().contains("hooks.toml:3:"), "{error}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    assert!(e
        .registry()
        .check_config(HookType::BeforeModel, None)
        .is_err());
    assert!(e
        .registry()
        .check_config(HookType::AfterModel, None)
        .is_ok());

    // Fixed (cleared), the same registry runs its hooks again.
    e.registry().set_config_error(None);
    assert!(e.config_error().is_none());
    assert!(e.registry().try_execute(context()).unwrap().completed());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn edit_commands_fail_only_when_a_tool_hook_would_run() {
    let ws = workspace(BROKEN.as_bytes());
    let e = ws.engine();
    let args = |path: &Path| json!({"path": path.join("notes.txt")});

    // Only the built-in tool hooks (for `step`): the edit tools work.
    let view = call(&e, "view", args(&ws.root));
    assert_eq!(view["ok"], true, "{view}");

    // A tool hook limited to other tools does not run for `view` either.
    let (other, _) = counter("other", HookType::BeforeTool);
    let only_replace = HookOptions {
        matcher: Some(ToolMatcher::new("str-replace").unwrap()),
        ..HookOptions::default()
    };
    e.registry().register_with(other, only_replace).unwrap();
    assert_eq!(call(&e, "view", args(&ws.root))["ok"], true);
    let replaced = call(
        &e,
        "str-replace",
        json!({"path": ws.root.join("notes.txt"), "old": "one", "new": "1"}),
    );
    assert_config_error(&replaced, &ws.toml(), 3);

    // An after_tool hook is checked before the edit: nothing is written.
    let (after, after_calls) = counter("after", HookType::AfterTool);
    e.registry().register(after).unwrap();
    let created = call(
        &e,
        "create",
        json!({"path": ws.root.join("new.txt"), "content": "x"}),
    );
    assert_config_error(&created, &ws.toml(), 3);
    assert!(!ws.root.join("new.txt").exists(), "the edit was not made");
    assert_eq!(after_calls.load(Ordering::SeqCst), 0);
    assert_eq!(
        std::fs::read_to_string(ws.root.join("notes.txt")).unwrap(),
        "one\ntwo\n"
    );

    let (before, before_calls) = counter("before", HookType::BeforeTool);
    e.registry().register(before).unwrap();
    assert_config_error(&call(&e, "view", args(&ws.root)), &ws.toml(), 3);
    assert_eq!(before_calls.load(Ordering::SeqCst), 0);
}

#[test]
fn a_step_fails_before_its_agent_runs() {
    let ws = workspace(BROKEN.as_bytes());
    let marker = ws.root.join("agent-ran");
    std::fs::write(
        ws.home.join("agents.toml"),
        format!(
            "[[agents]]\nid = \"touch\"\ncommand = [\"sh\", \"-c\", \"touch '{}'; echo hi\"]\n",
            marker.display()
        ),
    )
    .unwrap();
    let e = ws.engine();
    let answer = call(
        &e,
        "step",
        json!({"agent": "touch", "prompt": "hi", "context": {"file_path": ws.root.join("notes.txt")}}),
    );
    // The built-in editor-context hook runs in every step's before_tool chain.
    assert_config_error(&answer, &ws.toml(), 3);
    assert!(!marker.exists(), "the agent did not run");
}

#[test]
fn every_kind_of_broken_file_is_kept_and_a_fixed_file_works_in_a_new_engine() {
    let cases: [(&[u8], &str); 4] = [
        (b"[[hooks]\n", ":1:"),
        (
            b"[[hooks]]\nname = \"x\"\npriorty = 3\ntype = \"before_tool\"\n",
            ":3:",
        ),
        // A type that contradicts the built-in before_tool hook.
        (
            b"[[hooks]]\nname = \"editor-context\"\ntype = \"after_model\"\n",
            ":1:",
        ),
        // Not UTF-8: the file cannot be read (no line: 0:0).
        (b"\xff\xfe\n", ":0:0:"),
    ];
    for (text, place) in cases {
        let ws = workspace(text);
        let e = ws.engine();
        let error = e.config_error().unwrap();
        assert_eq!(error.code(), "config");
        let shown = error.to_string();
        assert!(
            shown.starts_with(&format!("{}{place}", ws.toml())),
            "{shown}"
        );

        // Fixed: a new engine applies it, and the hook runs with its settings.
        std::fs::write(
            ws.root.join(".radium/hooks.toml"),
            "[[hooks]]\nname = \"model\"\ntype = \"before_model\"\npriority = 7\n",
        )
        .unwrap();
        let fixed = ws.engine();
        assert!(fixed.config_error().is_none());
        let (hook, calls) = counter("model", HookType::BeforeModel);
        fixed.registry().register(hook).unwrap();
        let list = call(&fixed, "hooks-list", Value::Null);
        assert!(list.get("warnings").is_none(), "{list}");
        let model = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == "model")
            .unwrap();
        assert_eq!(model["priority"], 7);
        let ran = call(
            &fixed,
            "hooks-execute",
            json!({"hook_type": "before_model"}),
        );
        assert_eq!(ran["data"]["status"], "completed", "{ran}");
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
