//! An untrusted workspace (a cloned repository) runs nothing and switches
//! off nothing of the user's: its `.radium/hooks.toml`, extensions,
//! `agents.toml` and language servers.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType};
use serde_json::{json, Value};

struct Repo {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
}

fn repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("cloned");
    let home = dir.path().join("home");
    std::fs::create_dir_all(ws.join(".radium")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    Repo {
        _dir: dir,
        ws,
        home,
    }
}

impl Repo {
    fn engine(&self) -> Engine {
        Engine::new(EngineConfig {
            workspace: Some(self.ws.clone()),
            radium_home: Some(self.home.clone()),
            ..EngineConfig::default()
        })
        .unwrap()
    }
    fn write(&self, path: &str, text: &str) {
        let path = self.ws.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn call(engine: &Engine, command: &str, args: Value) -> Value {
    engine
        .handle_json(json!({"command": command, "args": args}))
        .to_json()
}

/// The user's own guard: a `before_tool` hook that counts its calls.
fn guard(engine: &Engine) -> Arc<AtomicUsize> {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    engine
        .registry()
        .register(FnHook::new("guard", HookType::BeforeTool, move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
            Ok(HookResult::Continue)
        }))
        .unwrap();
    calls
}

fn run_tool_chain(engine: &Engine) -> Value {
    call(
        engine,
        "hooks-execute",
        json!({"hook_type": "before_tool", "data": {"tool_name": "create"}}),
    )
}

#[test]
fn an_untrusted_hooks_toml_switches_off_nothing_until_the_workspace_is_trusted() {
    let r = repo();
    r.write(
        ".radium/hooks.toml",
        "[[hooks]]\nname = \"guard\"\ntype = \"before_tool\"\nenabled = false\n",
    );
    let engine = r.engine();
    let calls = guard(&engine);
    assert_eq!(engine.registry().is_enabled("guard"), Some(true));
    assert_eq!(run_tool_chain(&engine)["ok"], true);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the user's guard ran");
    let list = call(&engine, "hooks-list", Value::Null);
    let warning = list["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains(".radium/hooks.toml is not applied: the workspace "),
        "{list}"
    );
    assert!(
        warning.contains("is not trusted (run `rad trust` in it"),
        "{warning}"
    );

    // Trusting the workspace applies the file at once.
    let trusted = call(&engine, "trust", Value::Null);
    assert_eq!(trusted["data"]["trusted"], true, "{trusted}");
    assert_eq!(engine.registry().is_enabled("guard"), Some(false));
    let list = call(&engine, "hooks-list", Value::Null);
    assert!(list.get("warnings").is_none(), "{list}");
    // And so does every new engine of that user.
    let fresh = r.engine();
    guard(&fresh);
    assert_eq!(fresh.registry().is_enabled("guard"), Some(false));
}

#[test]
fn an_untrusted_broken_hooks_toml_breaks_no_chain() {
    let r = repo();
    r.write(
        ".radium/hooks.toml",
        "[[hooks]]\nname = \"x\"\ntype = \"before_lunch\"\n",
    );
    let engine = r.engine();
    guard(&engine);
    assert!(engine.config_error().is_none());
    let answer = run_tool_chain(&engine);
    assert_eq!(answer["ok"], true, "{answer}");
    // Once trusted, the file is the user's: its error stops the chains.
    call(&engine, "trust", Value::Null);
    let answer = run_tool_chain(&engine);
    assert_eq!(answer["code"], "config", "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("hooks.toml:3:"),
        "{answer}"
    );
}

fn user_agents(home: &Path) {
    std::fs::write(
        home.join("agents.toml"),
        "[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"user\"]\n",
    )
    .unwrap();
}

fn step(engine: &Engine, agent: &str) -> Value {
    call(engine, "step", json!({"agent": agent, "prompt": ""}))
}

#[test]
fn an_untrusted_agents_toml_neither_replaces_nor_breaks_the_users_agents() {
    for junk in [
        "[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"repo\"]\n",
        "this is not toml [[[",
        "[[agents]]\nid = \"mine\"\ncommand = []\n",
    ] {
        let r = repo();
        user_agents(&r.home);
        r.write(".radium/agents.toml", junk);
        let engine = r.engine();
        let answer = step(&engine, "mine");
        assert_eq!(answer["ok"], true, "{junk:?}: {answer}");
        assert_eq!(answer["data"]["original_output"], "user\n", "{junk:?}");
        let list = call(&engine, "agents", Value::Null);
        // The user's agent, then radium's catalogue (its built-in example).
        let from_files: Vec<&Value> = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["source"] != "(radium's catalogue)")
            .collect();
        assert_eq!(from_files.len(), 1, "{list}");
        assert_eq!(list["data"][0]["command"], json!(["/bin/echo", "user"]));
        assert!(
            list.get("warnings").is_none(),
            "untrusted: not even read: {list}"
        );
    }
}

#[test]
fn a_trusted_broken_agents_toml_is_named_and_the_users_agents_still_run() {
    let r = repo();
    user_agents(&r.home);
    r.write(".radium/agents.toml", "[[agents]]\nid = \"theirs\"\n");
    let engine = r.engine();
    call(&engine, "trust", Value::Null);
    let answer = step(&engine, "mine");
    assert_eq!(answer["data"]["original_output"], "user\n", "{answer}");
    let list = call(&engine, "agents", Value::Null);
    assert_eq!(list["data"][0]["id"], "mine", "{list}");
    let warning = list["warnings"][0].as_str().unwrap();
    assert!(warning.contains(".radium/agents.toml:1:"), "{warning}");
    assert!(warning.contains("missing field `command`"), "{warning}");
    // An agent no usable file defines: the broken file is the answer.
    let answer = step(&engine, "theirs");
    assert_eq!(answer["code"], "config", "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains(".radium/agents.toml:1:"));
}

/// A user extension `shared` whose hook writes `marker`, in `home`.
fn user_extension(root: &Path, name: &str, marker: &Path) {
    std::fs::create_dir_all(root.join("hooks")).unwrap();
    std::fs::write(
        root.join("radium-extension.json"),
        format!(
            r#"{{"name": "{name}", "version": "1", "components": {{"hooks": ["hooks/*.toml"]}}}}"#
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("hooks/h.toml"),
        format!("[[hooks]]\nname = \"{name}-hook\"\ntype = \"before_tool\"\nscript = \"run.sh\"\n"),
    )
    .unwrap();
    let script = root.join("run.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > /dev/null\necho ran >> '{}'\necho '{{}}'\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn an_untrusted_extension_of_the_same_name_hides_no_user_extension() {
    let r = repo();
    let user_marker = r.home.join("user-ran");
    let repo_marker = r.home.join("repo-ran");
    user_extension(&r.home.join("extensions/shared"), "shared", &user_marker);
    user_extension(
        &r.ws.join(".radium/extensions/shared"),
        "shared",
        &repo_marker,
    );
    let engine = r.engine();
    let list = call(&engine, "ext-list", Value::Null);
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["data"][0]["level"], "user", "{list}");
    assert_eq!(list["data"][0]["status"], "active", "{list}");
    assert_eq!(run_tool_chain(&engine)["ok"], true);
    assert!(user_marker.exists(), "the user's extension ran");
    assert!(!repo_marker.exists(), "the repository's did not");

    // Installing a workspace copy in the untrusted workspace keeps the user's running.
    let src = r.home.join("src-shared");
    user_extension(&src, "shared", &repo_marker);
    let installed = call(
        &engine,
        "ext-install",
        json!({"path": src, "level": "workspace", "force": true}),
    );
    assert_eq!(installed["data"]["active"], false, "{installed}");
    std::fs::remove_file(&user_marker).unwrap();
    run_tool_chain(&engine);
    assert!(user_marker.exists() && !repo_marker.exists());
}
