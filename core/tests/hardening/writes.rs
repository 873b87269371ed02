//! Writes confined to the workspace, atomic, through symlinks, never into protected folders or FIFOs, and replays confined again.

use super::*;

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

#[test]
fn a_crash_between_an_undos_write_and_its_session_save_is_recovered() {
    let (_dir, ws, engine) = workspace_engine();
    let created = edit(
        &engine,
        &ws,
        "create",
        serde_json::json!({"path": "a.txt", "content": "one\n"}),
    );
    let tag = created["tag"].clone();
    let replaced = engine
        .handle_json(serde_json::json!({
            "command": "str-replace",
            "args": {"path": "a.txt", "old": "one", "new": "two"},
            "cwd": ws,
            "tag": tag,
        }))
        .to_json();
    assert_eq!(replaced["ok"], true, "{replaced}");
    // The undo of the str-replace wrote its marker and the file, then the
    // process died before saving the session: the file is back to "one",
    // the session still says the str-replace is applied.
    let state = std::fs::read_dir(ws.parent().unwrap().join("home"))
        .unwrap()
        .map(|d| d.unwrap().path())
        .find(|p| p.join("session.json").exists())
        .expect("the project's state folder");
    let session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("session.json")).unwrap())
            .unwrap();
    let chain = &session["tags"][replaced["tag"].as_str().unwrap()]["chain"];
    std::fs::write(
        state.join("pending.json"),
        serde_json::json!({"chain": chain, "seq": 2, "undo": true}).to_string(),
    )
    .unwrap();
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    let redo = engine
        .handle_json(serde_json::json!({"command": "redo", "cwd": ws, "tag": replaced["tag"]}))
        .to_json();
    assert_eq!(
        redo["ok"], true,
        "the interrupted undo can be redone: {redo}"
    );
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "two\n");
    let undo = engine
        .handle_json(serde_json::json!({"command": "undo", "cwd": ws, "tag": redo["tag"]}))
        .to_json();
    assert_eq!(undo["ok"], true, "and the last edit undone: {undo}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
}
