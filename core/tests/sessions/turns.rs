//! A turn is one undo step, and the files can be put back to before any
//! prompt: the example agent writes two files in one turn, one through
//! `fs/write_text_file` and one (twice) by itself.

use serde_json::{json, Value};

use super::{env, of_type, Env};

fn read(e: &Env, name: &str) -> Option<String> {
    std::fs::read_to_string(e.ws.join(name)).ok()
}

fn rewind(e: &Env, tag: &str, dry_run: bool) -> Value {
    e.call("rewind", json!({"tag": tag, "dry_run": dry_run}))
}

/// A session that ran `twowrite a.txt b.txt hello` over a.txt = "a\n"
/// (b.txt did not exist): the turn's end event.
fn two_file_turn(e: &Env) -> Value {
    std::fs::write(e.ws.join("a.txt"), "a\n").unwrap();
    let s = e.open("example");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "twowrite a.txt b.txt hello"}),
    );
    let events = e.drain(&s, Some("allow"));
    let end = events.last().unwrap().clone();
    assert_eq!(end["type"], "turn_end", "{events:?}");
    assert_eq!(of_type(&events, "write").len(), 3, "{events:?}");
    assert_eq!(read(e, "a.txt").as_deref(), Some("hello again\n"));
    assert_eq!(read(e, "b.txt").as_deref(), Some("hello\n"));
    end
}

#[test]
fn one_undo_takes_a_whole_turn_back_and_one_redo_brings_it_back() {
    let e = env();
    let end = two_file_turn(&e);
    let tag = end["tag"].as_str().unwrap();
    assert!(end["tag_before"].is_string(), "{end}");
    assert_ne!(end["tag_before"], end["tag"]);

    let undo = e.undo(tag);
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(read(&e, "a.txt").as_deref(), Some("a\n"), "{undo}");
    assert_eq!(read(&e, "b.txt"), None, "a created file goes away: {undo}");
    let files = undo["data"]["undone"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "each file named once: {undo}");

    let after_undo = undo["tag"].as_str().unwrap();
    let redo = e
        .engine
        .handle_json(json!({"command": "redo", "tag": after_undo}))
        .to_json();
    assert_eq!(redo["ok"], true, "{redo}");
    assert_eq!(read(&e, "a.txt").as_deref(), Some("hello again\n"));
    assert_eq!(read(&e, "b.txt").as_deref(), Some("hello\n"));
    // Nothing more of that turn to redo: it was one step.
    let again = e
        .engine
        .handle_json(json!({"command": "redo", "tag": redo["tag"]}))
        .to_json();
    assert_eq!(again["ok"], false, "{again}");
}

#[test]
fn restore_previews_then_puts_the_files_back_to_before_the_prompt() {
    let e = env();
    let end = two_file_turn(&e);
    let before = end["tag_before"].as_str().unwrap();

    let preview = rewind(&e, before, true);
    assert_eq!(preview["ok"], true, "{preview}");
    assert_eq!(
        preview["data"]["files"],
        json!(["a.txt", "b.txt"]),
        "{preview}"
    );
    assert_eq!(preview["data"]["operations"].as_array().unwrap().len(), 3);
    assert_eq!(preview["data"]["partial"], false);
    assert_eq!(
        read(&e, "a.txt").as_deref(),
        Some("hello again\n"),
        "a preview changes nothing"
    );
    assert_eq!(read(&e, "b.txt").as_deref(), Some("hello\n"));

    let done = rewind(&e, before, false);
    assert_eq!(done["ok"], true, "{done}");
    assert_eq!(done["tag"], before, "{done}");
    assert_eq!(done["data"]["direction"], "undo");
    assert_eq!(read(&e, "a.txt").as_deref(), Some("a\n"));
    assert_eq!(read(&e, "b.txt"), None);

    // The prompt's end tag is ahead now: a rewind to it brings the turn back.
    let forward = rewind(&e, end["tag"].as_str().unwrap(), false);
    assert_eq!(forward["ok"], true, "{forward}");
    assert_eq!(forward["data"]["direction"], "redo");
    assert_eq!(read(&e, "a.txt").as_deref(), Some("hello again\n"));
    assert_eq!(read(&e, "b.txt").as_deref(), Some("hello\n"));
}

#[test]
fn a_file_changed_since_makes_the_restore_partial_and_the_preview_says_so() {
    let e = env();
    let end = two_file_turn(&e);
    let before = end["tag_before"].as_str().unwrap();
    std::fs::write(e.ws.join("b.txt"), "mine\n").unwrap();
    let preview = rewind(&e, before, true);
    assert_eq!(preview["data"]["partial"], true, "{preview}");
    let warned = preview["warnings"].to_string();
    assert!(warned.contains("b.txt"), "{preview}");
    let done = rewind(&e, before, false);
    assert_eq!(done["ok"], true, "{done}");
    assert_eq!(done["data"]["partial"], true, "{done}");
    assert!(
        done["warnings"].to_string().contains("partial rewind"),
        "{done}"
    );
    // A step is never taken back in half.
    assert_eq!(read(&e, "a.txt").as_deref(), Some("hello again\n"));
    assert_eq!(read(&e, "b.txt").as_deref(), Some("mine\n"));
}

#[test]
fn a_preview_with_diffs_gives_each_file_before_the_turn_and_now() {
    let e = env();
    let end = two_file_turn(&e);
    let before = end["tag_before"].as_str().unwrap();
    let preview = e.call(
        "rewind",
        json!({"tag": before, "dry_run": true, "diffs": true}),
    );
    assert_eq!(preview["ok"], true, "{preview}");
    // a.txt was written twice in the turn: one diff, from before the first
    // write to after the last; b.txt did not exist.
    assert_eq!(
        preview["data"]["diffs"],
        json!([
            {"file": "a.txt", "old_text": "a\n", "new_text": "hello again\n"},
            {"file": "b.txt", "old_text": null, "new_text": "hello\n"},
        ]),
        "{preview}"
    );
    assert_eq!(read(&e, "a.txt").as_deref(), Some("hello again\n"));

    // A file changed since by someone else is left out, with the warning.
    std::fs::write(e.ws.join("b.txt"), "mine\n").unwrap();
    let preview = e.call(
        "rewind",
        json!({"tag": before, "dry_run": true, "diffs": true}),
    );
    assert_eq!(
        preview["data"]["diffs"],
        json!([{"file": "a.txt", "old_text": "a\n", "new_text": "hello again\n"}]),
        "{preview}"
    );
    assert!(
        preview["warnings"].to_string().contains("b.txt"),
        "{preview}"
    );
    // Without `diffs`, none; a bad `diffs` is refused.
    assert!(rewind(&e, before, true)["data"].get("diffs").is_none());
    let bad = e.call(
        "rewind",
        json!({"tag": before, "dry_run": true, "diffs": 1}),
    );
    assert!(
        bad["error"].as_str().unwrap().contains("must be a boolean"),
        "{bad}"
    );
}

#[test]
fn bad_rewind_requests_name_the_problem() {
    let e = env();
    let missing = e.call("rewind", json!({}));
    assert_eq!(missing["ok"], false);
    assert!(
        missing["error"]
            .as_str()
            .unwrap()
            .contains("missing argument `tag`"),
        "{missing}"
    );
    let unknown = rewind(&e, "nope-nope", true);
    assert_eq!(unknown["ok"], false);
    assert!(
        unknown["error"]
            .as_str()
            .unwrap()
            .contains("nothing changed"),
        "{unknown}"
    );
    let bad = e.call("rewind", json!({"tag": "x", "dry_run": "yes"}));
    assert_eq!(bad["ok"], false);
    assert!(
        bad["error"].as_str().unwrap().contains("must be a boolean"),
        "{bad}"
    );
}
