//! Steps joined after the fact (a turn of an agent session) and a door that
//! follows its conversation after an undo without a tag.

use serde_json::json;

use super::{env, tag};

#[test]
fn a_door_following_its_conversation_after_an_undo_without_a_tag_is_not_warned_about_the_future() {
    let e = env();
    let r = e.call("create", json!({"path": "a.txt", "content": "1\n"}), None);
    let t1 = tag(&r);
    let r = e.call(
        "str-replace",
        json!({"path": "a.txt", "old": "1", "new": "2"}),
        Some(&t1),
    );
    let t2 = tag(&r);
    // The user's own undo, without a tag (`:RadiumUndo`).
    let undo = e.call("undo", json!({}), None);
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(e.read("a.txt"), "1\n");
    // The door still holds the tag of before the undo, and follows it.
    std::fs::write(e.root.join("b.txt"), "accepted\n").unwrap();
    let mut request = radium_core::Request::new(
        "record",
        json!({"files": [{"path": "b.txt", "old_text": "before\n"}]}),
    );
    request.tag = Some(t2);
    request.follow = true;
    let rec = e.engine.handle(&request).to_json();
    assert_eq!(rec["ok"], true, "{rec}");
    // Nothing the user did not cause: no tag "from the future", and their
    // own undo is not news to them.
    assert_eq!(rec["warnings"].as_array().map_or(0, Vec::len), 0, "{rec}");
    assert_eq!(e.read("a.txt"), "1\n", "nothing redone: {rec}");
    // The conversation's own next call is still told.
    let next = e.call("view", json!({"path": "a.txt"}), Some(&tag(&rec)));
    assert!(
        next["warnings"]
            .to_string()
            .contains("another client undid"),
        "{next}"
    );
}

#[test]
fn a_join_interrupted_by_a_crash_is_finished_on_the_next_load() {
    let e = env();
    let r = e.call("create", json!({"path": "a.txt", "content": "a\n"}), None);
    let r = e.call(
        "create",
        json!({"path": "b.txt", "content": "b\n"}),
        Some(&tag(&r)),
    );
    let t = tag(&r);
    let state = e.home.read_dir().unwrap().next().unwrap().unwrap().path();
    let session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("session.json")).unwrap())
            .unwrap();
    let chain = session["tags"][&t]["chain"].as_str().unwrap().to_owned();
    // The marker is written first: the crash came before the changesets
    // and the session were.
    std::fs::write(
        state.join("joining.json"),
        json!({"chain": chain, "seqs": [1, 2]}).to_string(),
    )
    .unwrap();
    let fresh = e.fresh_engine();
    let mut undo = radium_core::Request::new("undo", json!({}));
    undo.tag = Some(t);
    let r = fresh.handle(&undo).to_json();
    assert_eq!(r["ok"], true, "{r}");
    assert!(!e.root.join("a.txt").exists(), "one step: {r}");
    assert!(!e.root.join("b.txt").exists(), "one step: {r}");
    assert!(!state.join("joining.json").exists());
}
