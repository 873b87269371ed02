//! One chain of operations per conversation: rewinds undo only their own
//! conversation's operations, stop with a warning where another one changed
//! the file since, and a conversation whose operations someone else undid is
//! told on its next call.

use super::*;

fn warnings(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .map(|a| a.iter().map(|w| w.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn concurrent_conversations_rewind_only_their_own_operations() {
    let e = std::sync::Arc::new(env());
    let clients: Vec<_> = (0..40)
        .map(|i| {
            let e = std::sync::Arc::clone(&e);
            std::thread::spawn(move || {
                let file = format!("f{i}.txt");
                let r = e.call("create", json!({"path": file, "content": "v0\n"}), None);
                assert_eq!(r["ok"], true, "{r}");
                let mut t = tag(&r);
                let mut kept = t.clone();
                for n in 1..=2 {
                    let r = e.call(
                        "str-replace",
                        json!({"path": file, "old": format!("v{}", n - 1), "new": format!("v{n}")}),
                        Some(&t),
                    );
                    assert_eq!(r["ok"], true, "{r}");
                    assert_eq!(warnings(&r), Vec::<String>::new(), "{r}");
                    t = tag(&r);
                    if n == 1 {
                        kept = t.clone();
                    }
                }
                // Rewind one step: only this client's last operation goes.
                let r = e.call("view", json!({"path": file}), Some(&kept));
                let w = warnings(&r);
                assert_eq!(w.len(), 2, "{r}");
                assert_eq!(
                    w[0],
                    "conversation rewind detected. Undoing 1 operation(s)."
                );
                assert!(
                    w[1].starts_with("  undone: str-replace (") && w[1].contains(&file),
                    "{w:?}"
                );
                assert_eq!(tag(&r), kept);
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    for i in 0..40 {
        assert_eq!(
            e.read(&format!("f{i}.txt")),
            "v1\n",
            "client {i}'s first edit stays"
        );
    }
}

#[test]
fn a_rewind_stops_where_another_conversation_changed_the_file() {
    let e = env();
    let r = e.call("create", json!({"path": "s.txt", "content": "a\n"}), None);
    let a1 = tag(&r);
    let r = e.call(
        "insert",
        json!({"path": "s.txt", "line": 1, "text": "a2"}),
        Some(&a1),
    );
    let a2 = tag(&r);
    // Another conversation (no tag) edits the same file.
    let r = e.call(
        "insert",
        json!({"path": "s.txt", "line": 0, "text": "b"}),
        None,
    );
    let b1 = tag(&r);
    assert_eq!(e.read("s.txt"), "b\na\na2\n");

    let r = e.call("view", json!({"path": "s.txt"}), Some(&a1));
    assert_eq!(
        warnings(&r),
        [
            "conversation rewind detected. Undoing 1 operation(s).",
            "partial rewind: cannot undo insert (s.txt) [seq:2]: another conversation changed `s.txt` since (insert (s.txt) [seq:3]); 1 operation(s) of this conversation stay applied",
        ]
    );
    assert_eq!(
        e.read("s.txt"),
        "b\na\na2\n",
        "nothing of the other conversation is undone"
    );
    assert_eq!(tag(&r), a2, "the conversation stays where it was");

    // The other conversation takes its own edit back; then the rewind works.
    let r = e.call("undo", Value::Null, Some(&b1));
    assert_eq!(r["data"]["undone"]["seq"], 3, "{r}");
    let r = e.call("view", json!({"path": "s.txt"}), Some(&a1));
    assert_eq!(
        warnings(&r),
        [
            "conversation rewind detected. Undoing 1 operation(s).",
            "  undone: insert (s.txt) [seq:2]",
        ]
    );
    assert_eq!(e.read("s.txt"), "a\n");
}

#[test]
fn an_undo_without_a_tag_takes_the_latest_operation_and_its_owner_is_told() {
    let e = env();
    let r = e.call("create", json!({"path": "a.txt", "content": "a"}), None);
    let a1 = tag(&r);
    let r = e.call("create", json!({"path": "b.txt", "content": "b"}), None);
    let b1 = tag(&r);

    let u = e.call("undo", Value::Null, None);
    assert_eq!(u["data"]["undone"]["file"], "b.txt", "{u}");
    assert!(!e.root.join("b.txt").exists());
    // The other conversation hears nothing.
    let r = e.call("view", json!({"path": "a.txt"}), Some(&a1));
    assert_eq!(warnings(&r), Vec::<String>::new(), "{r}");
    // The owner is told once, on its next call.
    let r = e.call("view", json!({"path": "."}), Some(&b1));
    let w = warnings(&r);
    assert_eq!(
        w[0],
        "another client undid an operation of this conversation: create (b.txt) [seq:2]"
    );
    assert!(w[1].contains("is from the future"), "{w:?}");
    let r = e.call("view", json!({"path": "."}), Some(&tag(&r)));
    assert_eq!(warnings(&r), Vec::<String>::new(), "told only once: {r}");

    // A redo without a tag brings it back, and says so too.
    let r = e.call("redo", Value::Null, None);
    assert_eq!(r["data"]["redone"]["file"], "b.txt", "{r}");
    assert_eq!(e.read("b.txt"), "b");
    let r = e.call("view", json!({"path": "."}), Some(&b1));
    assert_eq!(
        warnings(&r),
        ["another client redid an operation of this conversation: create (b.txt) [seq:2]"]
    );
    let r = e.call("redo", Value::Null, None);
    assert_eq!(r["error"], "nothing to redo");
    // Undo without a tag walks back through every conversation.
    for file in ["b.txt", "a.txt"] {
        let r = e.call("undo", Value::Null, None);
        assert_eq!(r["data"]["undone"]["file"], file, "{r}");
    }
    assert_eq!(
        e.call("undo", Value::Null, None)["error"],
        "nothing to undo"
    );
}

#[test]
fn a_session_of_the_first_format_is_one_conversation() {
    let e = env();
    let r = e.call("create", json!({"path": "a.txt", "content": "1\n"}), None);
    let t1 = tag(&r);
    let r = e.call(
        "str-replace",
        json!({"path": "a.txt", "old": "1", "new": "2"}),
        Some(&t1),
    );
    let t2 = tag(&r);
    let state = e.home.read_dir().unwrap().next().unwrap().unwrap().path();
    std::fs::write(
        state.join("session.json"),
        json!({
            "applied": 2, "top": 2, "oldest": 1,
            "tags": {t1.clone(): 1, t2.clone(): 2},
            "current_tag": t2, "tag_order": [t1, t2],
        })
        .to_string(),
    )
    .unwrap();
    let r = e.call("view", json!({"path": "a.txt"}), Some(&t1));
    assert_eq!(
        warnings(&r),
        [
            "conversation rewind detected. Undoing 1 operation(s).",
            "  undone: str-replace (a.txt) [seq:2]",
        ]
    );
    assert_eq!(e.read("a.txt"), "1\n");
    let r = e.call("create", json!({"path": "b.txt", "content": ""}), Some(&t1));
    assert_eq!(r["data"]["seq"], 3, "numbering goes on: {r}");
}

#[test]
fn a_damaged_session_file_is_a_clear_error() {
    let e = env();
    let r = e.call("create", json!({"path": "a.txt", "content": "1\n"}), None);
    let state = e.home.read_dir().unwrap().next().unwrap().unwrap().path();
    std::fs::write(
        state.join("session.json"),
        "{\"version\": 2, \"chains\": 7}",
    )
    .unwrap();
    let r = e.call("view", json!({"path": "a.txt"}), Some(&tag(&r)));
    assert_eq!(r["code"], "config", "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(
        error.contains("session.json") && error.contains("the session file is damaged"),
        "{error}"
    );
}

#[test]
fn a_read_with_the_current_tag_keeps_it_and_writes_no_state() {
    let e = env();
    std::fs::write(e.root.join("a.txt"), "a\n").unwrap();
    // A conversation that has not written yet, then one that has.
    let first = tag(&e.call("view", json!({"path": "a.txt"}), None));
    let again = e.call("view", json!({"path": "a.txt"}), Some(&first));
    assert_eq!(tag(&again), first, "{again}");
    let wrote = tag(&e.call(
        "str-replace",
        json!({"path": "a.txt", "old": "a", "new": "b"}),
        Some(&first),
    ));
    let session = std::fs::read_dir(&e.home)
        .unwrap()
        .map(|d| d.unwrap().path().join("session.json"))
        .find(|p| p.exists())
        .unwrap();
    let before = std::fs::metadata(&session).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    for _ in 0..3 {
        let r = e.call("view", json!({"path": "a.txt"}), Some(&wrote));
        assert_eq!(tag(&r), wrote, "{r}");
    }
    let after = std::fs::metadata(&session).unwrap().modified().unwrap();
    assert_eq!(before, after, "reads rewrote the session file");
    // An older tag is still a rewind, answered with that tag.
    let r = e.call("view", json!({"path": "a.txt"}), Some(&first));
    assert_eq!(tag(&r), first, "{r}");
    assert_eq!(e.read("a.txt"), "a\n");
}

#[test]
fn clients_that_follow_share_a_conversation_without_rewinding_each_other() {
    let e = env();
    std::fs::write(e.root.join("a.txt"), "a\n").unwrap();
    let call = |command: &str, args: Value, tag: &str, follow: bool| {
        let mut request = Request::new(command, args);
        request.tag = Some(tag.to_owned());
        request.follow = follow;
        e.engine.handle(&request).to_json()
    };
    // Both clients start from the same tag of one conversation.
    let shared = tag(&e.call("view", json!({"path": "a.txt"}), None));
    let r = call(
        "create",
        json!({"path": "b.txt", "content": "b\n"}),
        &shared,
        true,
    );
    assert_eq!(r["ok"], true, "{r}");
    // The other client still holds the first tag: following, it continues
    // after the first one's edit instead of undoing it.
    let r = call(
        "str-replace",
        json!({"path": "a.txt", "old": "a", "new": "A"}),
        &shared,
        true,
    );
    assert_eq!(warnings(&r), Vec::<String>::new(), "{r}");
    assert!(e.root.join("b.txt").exists());
    let latest = tag(&r);
    // One conversation: an undo with its tag takes back the latest edit,
    // a rewind to the shared tag both.
    let r = e.call("view", json!({"path": "a.txt"}), Some(&shared));
    assert_eq!(
        warnings(&r)[0],
        "conversation rewind detected. Undoing 2 operation(s).",
        "{r}"
    );
    assert_eq!(e.read("a.txt"), "a\n");
    assert!(!e.root.join("b.txt").exists());
    // `follow` with an unknown tag starts a conversation of its own, as
    // without it.
    let r = call("view", json!({"path": "a.txt"}), "zzzz-unknown", true);
    assert!(
        warnings(&r)[0].contains("belongs to another project"),
        "{r}"
    );
    assert_ne!(tag(&r), latest);
    // The envelope's JSON form.
    let r = e.engine.handle_json(json!({
        "command": "view", "args": {"path": "a.txt"}, "tag": shared, "follow": true,
    }));
    assert!(r.ok, "{r:?}");
    let r = e
        .engine
        .handle_json(json!({"command": "view", "args": {"path": "a.txt"}, "follow": "yes"}));
    assert!(!r.ok);
    let error = r.error.unwrap();
    assert!(
        error.contains("invalid type") && error.contains("boolean"),
        "{error}"
    );
}

#[test]
fn an_undo_or_redo_with_a_forgotten_tag_undoes_nothing() {
    let e = env();
    // A conversation's edit, then its tag is forgotten: the project keeps
    // its last 1,000 tags, and 1,000 reads of other clients issue newer ones.
    let mine = e.call(
        "create",
        json!({"path": "mine.txt", "content": "m\n"}),
        None,
    );
    assert_eq!(mine["ok"], true, "{mine}");
    let forgotten = tag(&mine);
    let users = e.call(
        "create",
        json!({"path": "user.txt", "content": "u\n"}),
        None,
    );
    assert_eq!(users["ok"], true, "{users}");
    for _ in 0..1000 {
        assert_eq!(
            e.call("view", json!({"path": "user.txt"}), None)["ok"],
            true
        );
    }
    for command in ["undo", "redo"] {
        let r = e.call(command, json!({}), Some(&forgotten));
        assert_eq!(r["ok"], false, "{command}: {r}");
        assert_eq!(r["code"], "edit", "{r}");
        let error = r["error"].as_str().unwrap();
        assert!(
            error.contains(&format!(
                "unknown tag `{forgotten}` (too old or never issued)"
            )) && error.contains("nothing"),
            "{error}"
        );
    }
    // Neither the user's latest edit nor the conversation's own was taken back.
    assert_eq!(e.read("user.txt"), "u\n");
    assert_eq!(e.read("mine.txt"), "m\n");
    // A tag of another project is refused the same way.
    let r = e.call("undo", json!({}), Some("zzzz-abcdefgh"));
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("belongs to another project"),
        "{r}"
    );
    assert_eq!(e.read("user.txt"), "u\n");
    // Without a tag, undo still takes back the project's latest edit.
    let r = e.call("undo", json!({}), None);
    assert_eq!(r["ok"], true, "{r}");
    assert!(!e.root.join("user.txt").exists());
}
