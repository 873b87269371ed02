//! Extensions with real script hooks, discovery, install/list/remove and
//! workspace trust, through the JSON request door.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use radium_core::{Engine, EngineConfig, Request};
use serde_json::{json, Value};

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ws: PathBuf,
    home: PathBuf,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_owned();
    let ws = root.join("ws");
    let home = root.join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    Env {
        _dir: dir,
        root,
        ws,
        home,
    }
}

fn new_engine(e: &Env) -> Engine {
    Engine::new(EngineConfig {
        workspace: Some(e.ws.clone()),
        radium_home: Some(e.home.clone()),
        ..EngineConfig::default()
    })
    .unwrap()
}

fn call(engine: &Engine, command: &str, args: Value) -> Value {
    engine.handle(&Request::new(command, args)).to_json()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn script(path: &Path, body: &str) {
    write(path, &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// An extension folder with one hook per behaviour the issue names.
fn make_extension(dir: &Path, name: &str, version: &str) {
    write(
        &dir.join("radium-extension.json"),
        &format!(
            r#"{{"name": "{name}", "version": "{version}", "description": "test hooks", "author": "radium", "components": {{"hooks": ["hooks/*.toml"]}}}}"#
        ),
    );
    write(
        &dir.join("hooks/hooks.toml"),
        &format!(
            r#"
[[hooks]]
name = "{name}-modify"
type = "before_tool"
priority = 300
script = "scripts/modify.sh"
args = ["--tag", "from-{name}"]

[[hooks]]
name = "{name}-fail"
type = "before_tool"
priority = 250
script = "scripts/fail.sh"

[[hooks]]
name = "{name}-hang"
type = "before_tool"
priority = 240
timeout = "300ms"
script = "scripts/hang.sh"

[[hooks]]
name = "{name}-garbage"
type = "before_tool"
priority = 230
script = "scripts/garbage.sh"

[[hooks]]
name = "{name}-flood"
type = "before_tool"
priority = 220
script = "scripts/flood.sh"

[[hooks]]
name = "{name}-stop-json"
type = "after_tool"
script = "scripts/stop-json.sh"

[[hooks]]
name = "{name}-stop-exit"
type = "after_model"
script = "scripts/stop-exit.sh"
"#
        ),
    );
    script(
        &dir.join("scripts/modify.sh"),
        r#"cat > /dev/null; printf '{"action":"modify","data":{"tool_name":"view","tag":"%s","cwd":"%s"}}' "$2" "$(basename "$PWD")""#,
    );
    script(
        &dir.join("scripts/fail.sh"),
        "cat > /dev/null; echo 'lint config missing' >&2; exit 1",
    );
    script(
        &dir.join("scripts/hang.sh"),
        "cat > /dev/null; sleep 30 & echo $! > hang.pid; wait",
    );
    script(
        &dir.join("scripts/garbage.sh"),
        "cat > /dev/null; echo 'Traceback (most recent call last):'",
    );
    script(
        &dir.join("scripts/flood.sh"),
        "cat > /dev/null; head -c 3000000 /dev/zero | tr '\\0' x",
    );
    script(
        &dir.join("scripts/stop-json.sh"),
        r#"cat > /dev/null; echo '{"action":"stop","reason":"json says no"}'"#,
    );
    script(
        &dir.join("scripts/stop-exit.sh"),
        "cat > /dev/null; echo 'exit 2 says no' >&2; exit 2",
    );
}

#[test]
fn an_installed_extension_runs_its_scripts_and_the_chain_survives_each_failure() {
    let e = env();
    let src = e.root.join("src-ext");
    make_extension(&src, "lint", "1.0.0");
    let engine = new_engine(&e);
    let r = call(&engine, "ext-install", json!({"path": src}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["level"], "user");
    assert_eq!(r["data"]["active"], true);
    assert_eq!(r["data"]["hooks"].as_array().unwrap().len(), 7);
    assert!(e
        .home
        .join("extensions/lint/radium-extension.json")
        .exists());

    // The hang script's child writes its pid in the extension's folder (its cwd).
    let pidfile = e.home.join("extensions/lint/hang.pid");
    let t = Instant::now();
    let out = call(
        &engine,
        "hooks-execute",
        json!({"hook_type": "before_tool", "data": {"tool_name": "view"}}),
    );
    assert!(t.elapsed() < Duration::from_secs(10));
    let d = &out["data"];
    assert_eq!(d["status"], "completed", "{out}");
    assert_eq!(
        d["data"]["tag"], "from-lint",
        "the modify script changed the data (args passed)"
    );
    assert_eq!(
        d["data"]["cwd"], "lint",
        "scripts run in the extension's folder"
    );
    let by = |n: &str| {
        d["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(by("lint-modify")["status"], "modified");
    assert_eq!(by("lint-fail")["status"], "error");
    assert_eq!(
        by("lint-fail")["error"],
        "script hook `lint-fail` exited with status 1: lint config missing"
    );
    assert_eq!(by("lint-hang")["status"], "timed_out");
    assert!(by("lint-garbage")["error"]
        .as_str()
        .unwrap()
        .contains("printed something that is not JSON"));
    assert!(by("lint-flood")["error"]
        .as_str()
        .unwrap()
        .contains("wrote more than 1048576 bytes on stdout"));
    std::thread::sleep(Duration::from_millis(200));
    let child = std::fs::read_to_string(&pidfile).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.trim())).unwrap_or_default();
    assert!(
        stat.is_empty() || stat.contains(") Z "),
        "the hung script's child was killed"
    );

    let out = call(
        &engine,
        "hooks-execute",
        json!({"hook_type": "after_tool", "data": {}}),
    );
    assert_eq!(
        out["data"]["stopped_by"],
        json!({"hook": "lint-stop-json", "reason": "json says no"})
    );
    let out = call(
        &engine,
        "hooks-execute",
        json!({"hook_type": "after_model", "data": {}}),
    );
    assert_eq!(
        out["data"]["stopped_by"],
        json!({"hook": "lint-stop-exit", "reason": "exit 2 says no"})
    );

    // list, reinstall, remove
    let list = call(&engine, "ext-list", Value::Null);
    let ext = &list["data"][0];
    assert_eq!(ext["name"], "lint");
    assert_eq!(ext["version"], "1.0.0");
    assert_eq!(ext["level"], "user");
    assert_eq!(ext["status"], "active");
    assert_eq!(
        ext["hooks"][0],
        json!({"name": "lint-modify", "hook_type": "before_tool", "enabled": true})
    );

    let again = call(&engine, "ext-install", json!({"path": src}));
    assert_eq!(again["code"], "extension");
    assert!(
        again["error"]
            .as_str()
            .unwrap()
            .contains("is already installed at"),
        "{again}"
    );
    make_extension(&src, "lint", "2.0.0");
    let forced = call(&engine, "ext-install", json!({"path": src, "force": true}));
    assert_eq!(forced["data"]["version"], "2.0.0", "{forced}");
    assert_eq!(
        call(&engine, "ext-list", Value::Null)["data"][0]["version"],
        "2.0.0"
    );

    let removed = call(&engine, "ext-remove", json!({"name": "lint"}));
    assert_eq!(removed["data"]["level"], "user");
    assert!(!e.home.join("extensions/lint").exists());
    assert!(
        !engine.registry().contains("lint-modify"),
        "hooks unregistered"
    );
    let gone = call(&engine, "ext-remove", json!({"name": "lint"}));
    assert_eq!(gone["error"], "no extension named `lint` is installed");
}

#[test]
fn a_new_engine_finds_installed_extensions_and_hooks_toml_overrides_them() {
    let e = env();
    let src = e.root.join("src-ext");
    make_extension(&src, "fmt", "1.0.0");
    call(&new_engine(&e), "ext-install", json!({"path": src}));
    write(
        &e.ws.join(".radium/hooks.toml"),
        "[[hooks]]\nname = \"fmt-fail\"\ntype = \"before_tool\"\nenabled = false\npriority = 999\n",
    );
    // The workspace's hooks.toml applies once the workspace is trusted.
    call(&new_engine(&e), "trust", Value::Null);
    let fresh = new_engine(&e);
    let list = fresh.registry().list();
    let fail = list.iter().find(|h| h.name == "fmt-fail").unwrap();
    assert!(!fail.enabled, "hooks.toml disabled it");
    assert_eq!(fail.priority.0, 999);
    assert!(fresh.registry().is_enabled("fmt-modify").unwrap());
}

#[test]
fn workspace_extensions_wait_for_trust_and_then_win_over_user_ones() {
    let e = env();
    let user_src = e.root.join("user-ext");
    make_extension(&user_src, "shared", "1.0.0-user");
    let engine = new_engine(&e);
    call(&engine, "ext-install", json!({"path": user_src}));
    // The same name at the workspace level, copied in by a cloned repository.
    make_extension(
        &e.ws.join(".radium/extensions/shared"),
        "shared",
        "2.0.0-ws",
    );
    make_extension(&e.ws.join(".radium/extensions/ws-only"), "ws-only", "0.1.0");

    let listed = |engine: &Engine| -> Vec<(String, String, String, String)> {
        call(engine, "ext-list", Value::Null)["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["name"].as_str().unwrap().into(),
                    x["version"].as_str().unwrap().into(),
                    x["level"].as_str().unwrap().into(),
                    x["status"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let fresh = new_engine(&e);
    let row = |n: &str, v: &str, l: &str, s: &str| (n.into(), v.into(), l.into(), s.into());
    assert_eq!(
        listed(&fresh),
        [
            row("shared", "1.0.0-user", "user", "active"),
            row("ws-only", "0.1.0", "workspace", "blocked"),
        ],
        "an untrusted workspace's extension hides no user one, and is blocked"
    );
    let list = call(&fresh, "ext-list", Value::Null)["data"].clone();
    assert!(list[1]["reason"].as_str().unwrap().contains("not trusted"));
    assert!(
        !fresh.registry().contains("ws-only-modify"),
        "untrusted code is not registered"
    );
    assert!(
        fresh.registry().contains("shared-modify"),
        "the user's runs"
    );

    let trusted = call(&fresh, "trust", Value::Null);
    assert_eq!(trusted["data"]["trusted"], true, "{trusted}");
    assert!(
        fresh.registry().contains("ws-only-modify"),
        "trusting activates them"
    );
    assert_eq!(
        listed(&fresh),
        [
            row("shared", "2.0.0-ws", "workspace", "active"),
            row("ws-only", "0.1.0", "workspace", "active"),
        ],
        "a trusted workspace's extension wins over the user's"
    );

    // Another engine of the same user sees the trust.
    assert_eq!(listed(&new_engine(&e))[0].1, "2.0.0-ws");
    // Revoking stops them, and the user's runs again.
    call(&fresh, "trust", json!({"revoke": true}));
    assert!(!fresh.registry().contains("ws-only-modify"));
    assert!(fresh.registry().contains("shared-modify"));
    assert_eq!(
        listed(&fresh)[0],
        row("shared", "1.0.0-user", "user", "active")
    );
}

#[test]
fn bad_manifests_and_hook_files_are_clear_errors() {
    let e = env();
    let engine = new_engine(&e);
    type Case<'a> = (&'a str, Option<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        (r#"{"version": "1"}"#, None, "missing field `name`"),
        (
            r#"{"name": "a b", "version": "1"}"#,
            None,
            "field `name`: `a b` must be 1-64 letters",
        ),
        (
            r#"{"name": "a", "version": ""}"#,
            None,
            "field `version`: must not be empty",
        ),
        (
            r#"{"name": "a", "version": "1", "colour": 1}"#,
            None,
            "unknown field `colour`",
        ),
        (
            "{\"name\": \"a\",\n \"version\": }",
            None,
            "radium-extension.json:2:",
        ),
        (
            r#"{"name": "a", "version": "1", "components": {"hooks": ["../*.toml"]}}"#,
            None,
            "must stay inside the extension",
        ),
        (
            r#"{"name": "a", "version": "1", "components": {"hooks": ["hooks/*.toml"]}}"#,
            Some((
                "hooks/h.toml",
                "[[hooks]]\nname = \"x\"\ntype = \"before_tool\"\n",
            )),
            "field `script`: hook `x` of an extension needs a `script`",
        ),
        (
            r#"{"name": "a", "version": "1", "components": {"hooks": ["hooks/*.toml"]}}"#,
            Some((
                "hooks/h.toml",
                "[[hooks]]\nname = \"x\"\ntype = \"before_tool\"\nscript = \"../../evil.sh\"\n",
            )),
            "must be a path inside the extension",
        ),
        (
            r#"{"name": "a", "version": "1", "components": {"hooks": ["hooks/*.toml"]}}"#,
            Some((
                "hooks/h.toml",
                "[[hooks]]\nname = \"x\"\ntype = \"before_lunch\"\nscript = \"s.sh\"\n",
            )),
            "h.toml:3:",
        ),
    ];
    for (i, (manifest, hook_file, expected)) in cases.into_iter().enumerate() {
        let dir = e.root.join(format!("bad-{i}"));
        write(&dir.join("radium-extension.json"), manifest);
        if let Some((path, text)) = hook_file {
            write(&dir.join(path), text);
        }
        let r = call(&engine, "ext-install", json!({"path": dir}));
        assert_eq!(r["ok"], false, "{manifest}");
        let err = r["error"].as_str().unwrap();
        assert!(err.contains(expected), "{manifest}: {err}");
        assert!(
            err.contains(&dir.display().to_string()),
            "names the file: {err}"
        );
    }
    let r = call(
        &engine,
        "ext-install",
        json!({"path": e.root.join("nowhere")}),
    );
    assert_eq!(r["code"], "io");
    assert!(
        !e.home.join("extensions").join("a").exists(),
        "nothing half-installed"
    );
    let r = call(
        &engine,
        "ext-install",
        json!({"path": "x", "level": "galaxy"}),
    );
    assert!(r["error"]
        .as_str()
        .unwrap()
        .contains("`level` must be \"user\" or \"workspace\""));
}
