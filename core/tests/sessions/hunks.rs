//! Per-hunk review at the permission prompt: the `permission` event's diffs
//! carry their hunks, `session-permission` takes the hunks the user kept,
//! and radium takes the others back (after an agent's own write, in the same
//! undo step; before a write through `fs/write_text_file`).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{env, of_type, Env};

const OLD: &str = "a\nb\nc\nd\ne\nf\ng\nh\n";
/// Two separate changes: `b` → `B` (hunk 0) and `g` → `G` (hunk 1).
const PROPOSED: &str = "a|B|c|d|e|f|G|h";

/// Runs a turn answering its permission request with `answer` (the
/// `session-permission` arguments besides `session` and `id`), given the
/// path of the request's first diff; answers the events and that answer.
fn turn(e: &Env, s: &str, prompt: &str, answer: impl Fn(&str) -> Value) -> (Vec<Value>, Value) {
    e.call("session-prompt", json!({"session": s, "prompt": prompt}));
    let started = Instant::now();
    let mut all = Vec::new();
    let mut answered = Value::Null;
    loop {
        assert!(started.elapsed() < Duration::from_secs(30), "{all:?}");
        let r = e.call("session-events", json!({"session": s, "wait_ms": 500}));
        for event in r["data"]["events"].as_array().unwrap() {
            if event["type"] == "permission" {
                let path = event["tool_call"]["diffs"][0]["path"].as_str().unwrap();
                let mut args = answer(path);
                args["session"] = json!(s);
                args["id"] = event["id"].clone();
                answered = e.call("session-permission", args);
            }
            all.push(event.clone());
            if event["type"] == "turn_end" || event["type"] == "error" {
                return (all, answered);
            }
        }
    }
}

fn read(e: &Env, name: &str) -> String {
    std::fs::read_to_string(e.ws.join(name)).unwrap()
}

#[test]
fn an_agent_that_writes_itself_keeps_only_the_accepted_hunk_in_one_undo_step() {
    let e = env();
    std::fs::write(e.ws.join("f.txt"), OLD).unwrap();
    let s = e.open("example");
    let (events, answered) = turn(
        &e,
        &s,
        &format!("selflines f.txt {PROPOSED}"),
        |path| json!({"answer": "allow", "hunks": {path: [0]}}),
    );
    assert_eq!(answered["ok"], true, "{answered}");
    // The question showed the two hunks, numbered, with their lines.
    let asked = of_type(&events, "permission");
    let hunks = asked[0]["tool_call"]["diffs"][0]["hunks"]
        .as_array()
        .unwrap();
    assert_eq!(hunks.len(), 2, "{hunks:?}");
    assert_eq!(hunks[0]["index"], 0);
    assert_eq!(hunks[0]["old_start"], 1);
    assert_eq!(hunks[0]["old_lines"], json!(["b\n"]));
    assert_eq!(hunks[1]["new_lines"], json!(["G\n"]));
    // Only the accepted hunk is on disk; the write says which was taken back.
    assert_eq!(read(&e, "f.txt"), "a\nB\nc\nd\ne\nf\ng\nh\n");
    let decided = of_type(&events, "permission_decided");
    assert_eq!(decided[0]["hunks_rejected"].as_object().unwrap().len(), 1);
    let writes = of_type(&events, "write");
    assert_eq!(writes.len(), 1, "{events:?}");
    assert_eq!(writes[0]["hunks_taken_back"], json!([1]), "{events:?}");
    assert_eq!(writes[0]["by"], "agent");
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end", "{events:?}");
    // One undo takes the whole tool call back, as accepted; redo brings it back.
    let tag = end["tag"].as_str().unwrap();
    let undo = e.undo(tag);
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(read(&e, "f.txt"), OLD);
    let redo = e
        .engine
        .handle_json(json!({"command": "redo", "tag": undo["tag"]}))
        .to_json();
    assert_eq!(redo["ok"], true, "{redo}");
    assert_eq!(read(&e, "f.txt"), "a\nB\nc\nd\ne\nf\ng\nh\n");
}

#[test]
fn a_write_through_radium_leaves_rejected_hunks_out() {
    let e = env();
    std::fs::write(e.ws.join("f.txt"), OLD).unwrap();
    let s = e.open("example");
    // Keep the second hunk only.
    let (events, _) = turn(
        &e,
        &s,
        &format!("lines f.txt {PROPOSED}"),
        |path| json!({"answer": "allow", "hunks": {path: [1]}}),
    );
    assert_eq!(read(&e, "f.txt"), "a\nb\nc\nd\ne\nf\nG\nh\n", "{events:?}");
    let writes = of_type(&events, "write");
    assert_eq!(writes[0]["hunks_taken_back"], json!([0]), "{events:?}");
    // Keep none: the file is as it was.
    let (events, _) = turn(
        &e,
        &s,
        "lines f.txt x|b|c|d|e|f|g|y",
        |path| json!({"option": "allow", "hunks": {path: []}}),
    );
    assert_eq!(read(&e, "f.txt"), "a\nb\nc\nd\ne\nf\nG\nh\n", "{events:?}");
    // Keep all: the change as proposed, nothing taken back.
    let (events, _) = turn(
        &e,
        &s,
        "lines f.txt x|b|c|d|e|f|g|y",
        |path| json!({"answer": "allow", "hunks": {path: [0, 1]}}),
    );
    assert_eq!(read(&e, "f.txt"), "x\nb\nc\nd\ne\nf\ng\ny\n", "{events:?}");
    let writes = of_type(&events, "write");
    assert!(writes[0].get("hunks_taken_back").is_none(), "{events:?}");
}

#[test]
fn an_agent_that_writes_something_else_has_the_rejected_hunks_taken_back_where_they_apply() {
    let e = env();
    std::fs::write(e.ws.join("f.txt"), OLD).unwrap();
    let s = e.open("example");
    // The agent writes a line `drift` first, which it did not propose.
    let (events, _) = turn(
        &e,
        &s,
        &format!("driftlines f.txt {PROPOSED}"),
        |path| json!({"answer": "allow", "hunks": {path: [0]}}),
    );
    assert_eq!(
        read(&e, "f.txt"),
        "drift\na\nB\nc\nd\ne\nf\ng\nh\n",
        "{events:?}"
    );
    assert_eq!(of_type(&events, "write")[0]["hunks_taken_back"], json!([1]));
}

#[test]
fn bad_hunk_answers_name_the_problem_and_the_request_keeps_waiting() {
    let e = env();
    std::fs::write(e.ws.join("f.txt"), OLD).unwrap();
    let s = e.open("example");
    let errors = std::sync::Mutex::new(Vec::new());
    let (events, answered) = turn(&e, &s, &format!("selflines f.txt {PROPOSED}"), |path| {
        let bad = [
            (
                json!({"answer": "allow", "hunks": {"/nowhere.txt": [0]}}),
                "no diff of `/nowhere.txt`",
            ),
            (
                json!({"answer": "allow", "hunks": {path: [0, 2]}}),
                "not hunk 2",
            ),
            (
                json!({"answer": "reject", "hunks": {path: [0]}}),
                "answer that allows",
            ),
            (
                json!({"option": "reject", "hunks": {path: [0]}}),
                "answer that allows",
            ),
            (
                json!({"answer": "allow", "hunks": [0]}),
                "must be an object",
            ),
            (
                json!({"answer": "allow", "hunks": {path: ["0"]}}),
                "not a hunk index",
            ),
        ];
        for (mut args, expected) in bad {
            args["session"] = json!(s);
            args["id"] = json!("p1");
            let r = e.call("session-permission", args);
            errors.lock().unwrap().push((r, expected));
        }
        json!({"answer": "allow", "hunks": {path: [1]}})
    });
    for (r, expected) in errors.lock().unwrap().iter() {
        assert_eq!(r["ok"], false, "{r}");
        assert_eq!(r["code"], "invalid_argument", "{r}");
        let message = r["error"].as_str().unwrap();
        assert!(
            message.contains(expected),
            "{message} should say {expected}"
        );
    }
    // The request kept waiting: the good answer after them counted.
    assert_eq!(answered["ok"], true, "{answered}");
    assert_eq!(read(&e, "f.txt"), "a\nb\nc\nd\ne\nf\nG\nh\n", "{events:?}");
}

#[test]
fn a_review_belongs_to_its_tool_call_not_to_a_later_write_of_the_same_file() {
    let e = env();
    std::fs::write(e.ws.join("f.txt"), OLD).unwrap();
    let s = e.open("example");
    // The first call is allowed keeping hunk 0 but fails without writing;
    // the second is allowed whole: nothing of the first review is applied.
    let asked = std::sync::atomic::AtomicUsize::new(0);
    let (events, _) = turn(&e, &s, &format!("retrylines f.txt {PROPOSED}"), |path| {
        if asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            json!({"answer": "allow", "hunks": {path: [0]}})
        } else {
            json!({"answer": "allow"})
        }
    });
    assert_eq!(asked.into_inner(), 2, "{events:?}");
    assert_eq!(read(&e, "f.txt"), "a\nB\nc\nd\ne\nf\nG\nh\n", "{events:?}");
    assert!(of_type(&events, "write")[0]
        .get("hunks_taken_back")
        .is_none());
}
