//! radium's built-in catalogue of agents: its entries, how an installed
//! copy is found (radium's cache, PATH), agents.toml overriding an entry,
//! the example agent on a fresh install, and the errors of an agent that is
//! not installed and of a bad `agents-install`.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use radium_core::agents::catalogue::{catalogue, entry, Found, Places, COMPLETE_MARKER};
use radium_core::{Engine, EngineConfig, Request};
use serde_json::{json, Value};

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_catalogue_names_the_agents_people_use_pinned_with_what_each_needs() {
    let ids: Vec<&str> = catalogue().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["claude", "gemini", "codex", "opencode", "example"]);
    let claude = entry("claude").unwrap();
    assert_eq!(
        claude.package.as_deref(),
        Some("@zed-industries/claude-agent-acp")
    );
    assert_eq!(claude.version.as_deref(), Some("0.23.1"));
    assert!(claude.pitfalls.iter().any(|p| p.contains("IS_SANDBOX")));
    assert!(claude
        .sign_in_vars
        .contains(&"ANTHROPIC_API_KEY".to_owned()));
    let gemini = entry("gemini").unwrap();
    assert_eq!(
        (gemini.package.as_deref(), gemini.version.as_deref()),
        (Some("@google/gemini-cli"), Some("0.61.0"))
    );
    assert_eq!(gemini.args, ["--acp"]);
    assert_eq!(entry("opencode").unwrap().args, ["acp"]);
    assert_eq!(
        entry("codex").unwrap().package.as_deref(),
        Some("@zed-industries/codex-acp")
    );
    for e in catalogue() {
        assert!(!e.sign_in.is_empty(), "{}: how to sign in", e.id);
        if e.builtin.is_none() {
            assert!(
                e.version
                    .as_deref()
                    .is_some_and(|v| v.split('.').count() == 3),
                "{}: pinned to a version",
                e.id
            );
        }
    }
    assert!(entry("nobody").is_none());
}

#[test]
fn an_installed_copy_is_found_in_the_cache_first_then_on_path() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let bin = dir.path().join("bin");
    let places = Places {
        cache: cache.clone(),
        path: vec![bin.clone()],
    };
    let gemini = entry("gemini").unwrap();
    assert_eq!(gemini.locate(&places), None, "nothing installed");
    // On PATH: a program that is not executable does not count.
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("gemini"), "not a program").unwrap();
    assert_eq!(gemini.locate(&places), None, "a file that cannot run");
    executable(&bin.join("gemini"), "#!/bin/sh\n");
    let on_path = bin.join("gemini").to_string_lossy().into_owned();
    assert_eq!(
        gemini.locate(&places),
        Some((vec![on_path, "--acp".to_owned()], Found::Path))
    );
    // A half-finished install in the cache (no marker) is not used.
    let folder = cache.join("gemini-cli@0.61.0");
    assert_eq!(gemini.cache_dir(&cache), Some(folder.clone()));
    let program = folder.join("node_modules/.bin/gemini");
    executable(&program, "#!/bin/sh\n");
    assert_eq!(gemini.locate(&places).unwrap().1, Found::Path);
    std::fs::write(folder.join(COMPLETE_MARKER), "@google/gemini-cli@0.61.0").unwrap();
    assert_eq!(
        gemini.locate(&places),
        Some((
            vec![program.to_string_lossy().into_owned(), "--acp".to_owned()],
            Found::Cache
        )),
        "radium's pinned copy first"
    );
    // The example agent is built in: always there.
    let (command, found) = entry("example").unwrap().locate(&places).unwrap();
    assert_eq!((command[0].as_str(), found), ("sh", Found::Builtin));
}

struct Fresh {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    engine: Engine,
}

/// An engine with a fresh `RADIUM_HOME` and no agents.toml anywhere.
fn fresh() -> Fresh {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let engine = Engine::new(EngineConfig {
        workspace: Some(ws.clone()),
        radium_home: Some(home.clone()),
        ..EngineConfig::default()
    })
    .unwrap();
    Fresh {
        _dir: dir,
        ws,
        home,
        engine,
    }
}

fn ask(f: &Fresh, command: &str, args: Value) -> Value {
    f.engine.handle(&Request::new(command, args)).to_json()
}

fn listed<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["data"]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed: {list}"))
}

#[test]
fn the_example_agent_answers_a_step_on_a_fresh_install() {
    let f = fresh();
    let r = ask(
        &f,
        "step",
        json!({"agent": "example", "prompt": "review", "context": {
            "file_path": f.ws.join("main.py"), "selection": "x = 1", "workspace": f.ws,
        }}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["data"]["code_blocks"][0]["content"],
        "# reviewed by the example agent\nx = 1\n"
    );
    let list = ask(&f, "agents-list", Value::Null);
    assert_eq!(list["ok"], true, "{list}");
    let example = listed(&list, "example");
    assert_eq!(example["status"], "installed");
    assert_eq!(example["found"], "builtin");
    assert_eq!(example["ready"], false, "not an ACP agent: no chat");
    for id in ["claude", "gemini", "codex", "opencode"] {
        let a = listed(&list, id);
        assert!(a["sign_in"].as_str().is_some_and(|s| !s.is_empty()), "{a}");
        assert!(a["package"].is_string(), "{a}");
    }
}

#[test]
fn an_agents_toml_entry_with_a_catalogue_id_overrides_it() {
    let f = fresh();
    std::fs::write(
        f.home.join("agents.toml"),
        "[[agents]]\nid = \"gemini\"\nprotocol = \"acp\"\ncommand = [\"/opt/my-gemini\", \"--acp\"]\n\n[[agents]]\nid = \"mine\"\nprotocol = \"acp\"\ncommand = [\"/opt/mine\"]\n",
    )
    .unwrap();
    let list = ask(&f, "agents-list", Value::Null);
    let gemini = listed(&list, "gemini");
    assert_eq!(gemini["status"], "configured", "{gemini}");
    assert_eq!(gemini["command"], json!(["/opt/my-gemini", "--acp"]));
    assert_eq!(gemini["source"], json!(f.home.join("agents.toml")));
    assert_eq!(gemini["ready"], true);
    let mine = listed(&list, "mine");
    assert_eq!(
        (mine["status"].as_str(), mine["ready"].as_bool()),
        (Some("configured"), Some(true))
    );
    // The usable agents: the file's gemini (once), then the built-in example.
    let agents = ask(&f, "agents", Value::Null);
    let gem: Vec<&Value> = agents["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["id"] == "gemini")
        .collect();
    assert_eq!(gem.len(), 1, "{agents}");
    assert_eq!(gem[0]["command"], json!(["/opt/my-gemini", "--acp"]));
    // The example agent overridden the same way.
    std::fs::write(
        f.home.join("agents.toml"),
        "[[agents]]\nid = \"example\"\ncommand = [\"/bin/echo\", \"mine\"]\n",
    )
    .unwrap();
    let list = ask(&f, "agents-list", Value::Null);
    assert_eq!(
        listed(&list, "example")["command"],
        json!(["/bin/echo", "mine"])
    );
}

#[test]
fn a_catalogue_agent_that_is_not_installed_says_how_to_install_it() {
    let f = fresh();
    // codex-acp is not on this machine's PATH nor in its cache (the test
    // says so when it is, rather than passing for the wrong reason).
    let list = ask(&f, "agents-list", Value::Null);
    if listed(&list, "codex")["status"] != "not_installed" {
        panic!("codex is installed on this machine: {list}");
    }
    let r = ask(&f, "session-new", json!({"agent": "codex"}));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "not_found", "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(
        error.contains("agent `codex` is not installed: `rad agents install codex` installs @zed-industries/codex-acp@0.16.0"),
        "{error}"
    );
    let r = ask(&f, "agents-check", json!({"agents": ["codex"]}));
    assert_eq!(r["data"]["agents"][0]["code"], "not_found", "{r}");
    // An id neither the catalogue nor a file knows stays an unknown agent.
    let r = ask(&f, "session-new", json!({"agent": "nobody"}));
    assert_eq!(r["code"], "unknown_agent", "{r}");
}

#[test]
fn agents_install_refuses_bad_input_with_a_clear_error() {
    let f = fresh();
    let r = ask(&f, "agents-install", json!({"agent": "nobody"}));
    assert_eq!(r["code"], "invalid_argument", "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("`nobody` is not in radium's catalogue (one of: claude, gemini, codex, opencode, example)"),
        "{r}"
    );
    let r = ask(&f, "agents-install", json!({"agent": "example"}));
    assert_eq!(r["code"], "invalid_argument", "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("built into radium"),
        "{r}"
    );
    let r = ask(&f, "agents-install", json!({}));
    assert_eq!(r["code"], "invalid_argument", "{r}");
    let r = ask(&f, "agents-install", json!({"agent": 3}));
    assert_eq!(r["code"], "invalid_argument", "{r}");
}
