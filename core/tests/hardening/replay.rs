//! Undo, redo and the recovery after a crash replay recorded paths into a
//! tree that may have changed since: a folder swapped for a symlink into
//! `.git/` or `.radium/` is refused like any edit there.

use super::*;

fn tagged(
    engine: &Engine,
    ws: &std::path::Path,
    command: &str,
    args: serde_json::Value,
    tag: &serde_json::Value,
) -> serde_json::Value {
    engine
        .handle_json(serde_json::json!({"command": command, "args": args, "cwd": ws, "tag": tag}))
        .to_json()
}

/// Swaps the folder `ws/name` for a symlink to `ws/target`.
fn swap_for_link(ws: &std::path::Path, name: &str, target: &str) {
    std::fs::remove_dir_all(ws.join(name)).unwrap();
    std::fs::create_dir_all(ws.join(target)).unwrap();
    std::os::unix::fs::symlink(ws.join(target), ws.join(name)).unwrap();
}

#[test]
fn undo_and_redo_through_a_symlink_do_not_write_the_protected_folders() {
    let (_dir, ws, engine) = workspace_engine();
    // An undo would put back `.git/hooks/pre-commit`'s earlier text.
    let created = edit(
        &engine,
        &ws,
        "create",
        serde_json::json!({"path": "d/pre-commit", "content": "echo one\n"}),
    );
    assert_eq!(created["ok"], true, "{created}");
    let replaced = tagged(
        &engine,
        &ws,
        "str-replace",
        serde_json::json!({"path": "d/pre-commit", "old": "one", "new": "two"}),
        &created["tag"],
    );
    assert_eq!(replaced["ok"], true, "{replaced}");
    swap_for_link(&ws, "d", ".git/hooks");
    std::fs::write(ws.join(".git/hooks/pre-commit"), "echo two\n").unwrap();
    let undo = tagged(
        &engine,
        &ws,
        "undo",
        serde_json::json!({}),
        &replaced["tag"],
    );
    assert_eq!(undo["code"], "protected", "{undo}");
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/hooks/pre-commit")).unwrap(),
        "echo two\n",
        "the hook is untouched"
    );
    // A tagless undo takes the same path and is refused the same way.
    let undo = edit(&engine, &ws, "undo", serde_json::json!({}));
    assert_eq!(undo["code"], "protected", "{undo}");

    // A redo would create `.radium/hooks.toml`.
    let created = edit(
        &engine,
        &ws,
        "create",
        serde_json::json!({"path": "h/hooks.toml", "content": "[[hooks]]\n"}),
    );
    assert_eq!(created["ok"], true, "{created}");
    let undone = tagged(&engine, &ws, "undo", serde_json::json!({}), &created["tag"]);
    assert_eq!(undone["ok"], true, "{undone}");
    assert!(!ws.join("h/hooks.toml").exists());
    swap_for_link(&ws, "h", ".radium");
    let redo = tagged(&engine, &ws, "redo", serde_json::json!({}), &undone["tag"]);
    assert_eq!(redo["code"], "protected", "{redo}");
    assert!(
        !ws.join(".radium/hooks.toml").exists(),
        "no hooks.toml was written"
    );
}

#[test]
fn the_recovery_after_a_crash_does_not_replay_into_the_protected_folders() {
    let (dir, ws, engine) = workspace_engine();
    let created = edit(
        &engine,
        &ws,
        "create",
        serde_json::json!({"path": "c/config", "content": "[core]\n"}),
    );
    let replaced = tagged(
        &engine,
        &ws,
        "str-replace",
        serde_json::json!({"path": "c/config", "old": "[core]", "new": "[core]\n\thooksPath = /tmp/evil"}),
        &created["tag"],
    );
    assert_eq!(replaced["ok"], true, "{replaced}");
    // A crash inside the undo of the str-replace, and `c` swapped for a
    // link to `.git`, whose config shows the text before the str-replace.
    let state = std::fs::read_dir(dir.path().join("home"))
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
    swap_for_link(&ws, "c", ".git");
    std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
    // The recovery does not take the protected file for the interrupted
    // undo's result, and neither the redo nor the undo writes it.
    let redo = tagged(
        &engine,
        &ws,
        "redo",
        serde_json::json!({}),
        &replaced["tag"],
    );
    assert_eq!(redo["ok"], false, "{redo}");
    assert!(
        !state.join("pending.json").exists(),
        "the marker is done with"
    );
    let undo = tagged(
        &engine,
        &ws,
        "undo",
        serde_json::json!({}),
        &replaced["tag"],
    );
    assert_eq!(undo["code"], "protected", "{undo}");
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n",
        ".git/config is untouched"
    );
}
