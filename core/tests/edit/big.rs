//! Big files and many matches: hashes of history written by earlier
//! releases, block-wise prefix and suffix compares on multibyte text, and
//! error texts that stay short however many matches there are.

use super::*;

/// FNV-1a, 64 bits: the content hash earlier releases stored.
fn fnv(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The project's only changeset file.
/// Changeset `seq` as it is on disk.
fn changeset(e: &Env, seq: u64) -> Value {
    serde_json::from_str(&std::fs::read_to_string(changeset_file(e, seq)).unwrap()).unwrap()
}

fn changeset_file(e: &Env, seq: u64) -> PathBuf {
    std::fs::read_dir(&e.home)
        .unwrap()
        .map(|d| {
            d.unwrap()
                .path()
                .join("history")
                .join(format!("{seq:08}.json"))
        })
        .find(|p| p.exists())
        .unwrap()
}

#[test]
fn new_changesets_carry_the_xxh3_prefix() {
    let e = env();
    std::fs::write(e.root.join("a.txt"), "one\ntwo\n").unwrap();
    let r = e.call(
        "str-replace",
        json!({"path": "a.txt", "old": "two", "new": "2"}),
        None,
    );
    assert_eq!(r["ok"], true, "{r}");
    let cs = changeset(&e, 1);
    for side in ["before_hash", "after_hash"] {
        let hash = cs[side].as_str().unwrap();
        assert!(
            hash.starts_with("x3:") && hash.len() == 19,
            "{side}: {hash}"
        );
    }
    assert_ne!(cs["before_hash"], cs["after_hash"]);
}

#[test]
fn a_changeset_with_old_fnv_hashes_still_undoes_and_redoes() {
    let e = env();
    std::fs::write(e.root.join("a.txt"), "one\ntwo\n").unwrap();
    let r = e.call(
        "str-replace",
        json!({"path": "a.txt", "old": "two", "new": "2"}),
        None,
    );
    let t = tag(&r);
    // The changeset as an earlier release wrote it: 16-hex FNV-1a hashes.
    let path = changeset_file(&e, 1);
    let mut cs: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    cs["before_hash"] = fnv("one\ntwo\n").into();
    cs["after_hash"] = fnv("one\n2\n").into();
    std::fs::write(&path, cs.to_string()).unwrap();

    let undo = e.call("undo", Value::Null, Some(&t));
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(e.read("a.txt"), "one\ntwo\n");
    let redo = e.call("redo", Value::Null, Some(&tag(&undo)));
    assert_eq!(redo["ok"], true, "{redo}");
    assert_eq!(e.read("a.txt"), "one\n2\n");

    // An old hash still tells a file changed since from one that did not.
    std::fs::write(e.root.join("a.txt"), "one\n3\n").unwrap();
    let refused = e.call("undo", Value::Null, Some(&tag(&redo)));
    assert_eq!(
        refused["error"],
        "cannot undo str-replace (a.txt) [seq:1]: the file changed since"
    );
    assert_eq!(e.read("a.txt"), "one\n3\n");
}

#[test]
fn edits_of_a_large_multibyte_file_record_only_the_change_and_undo_exactly() {
    let e = env();
    // Multibyte characters straddle the 4 KiB compare blocks everywhere.
    let big: String = (0..40_000).map(|i| format!("é{i}ü€\n")).collect();
    std::fs::write(e.root.join("big.txt"), &big).unwrap();
    let r = e.call(
        "str-replace",
        json!({"path": "big.txt", "old": "é20000ü€", "new": "ß"}),
        None,
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["line"], 20_001);
    let cs = changeset(&e, 1);
    assert_eq!(cs["old"], "é20000ü€");
    assert_eq!(cs["new"], "ß");
    assert_eq!(cs["offset"], big.find("é20000ü€").unwrap());

    // A change of one character's last byte: the changed region starts on
    // the character's boundary.
    let r = e.call(
        "str-replace",
        json!({"path": "big.txt", "old": "é39999ü€", "new": "é39999ü₭"}),
        Some(&tag(&r)),
    );
    let cs = changeset(&e, 2);
    assert_eq!(cs["old"], "€");
    assert_eq!(cs["new"], "₭");

    let t = tag(&r);
    let undo = e.call("undo", Value::Null, Some(&t));
    let undo = e.call("undo", Value::Null, Some(&tag(&undo)));
    assert_eq!(undo["ok"], true, "{undo}");
    assert!(e.read("big.txt") == big, "the undone file differs");
}

#[test]
fn many_matches_are_refused_with_the_count_and_the_first_lines() {
    let e = env();
    let text: String = (0..100_000).map(|i| format!("x = {i}\n")).collect();
    std::fs::write(e.root.join("many.py"), &text).unwrap();
    let r = e.call(
        "str-replace",
        json!({"path": "many.py", "old": "x = ", "new": "y = "}),
        None,
    );
    assert_eq!(
        r["error"],
        "`old` occurs 100000 times in `many.py` (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 99990 more); include more text to make it unique"
    );
    assert!(e.read("many.py") == text, "a refused edit changed the file");

    // Exactly as many as are listed: no "more".
    std::fs::write(e.root.join("ten.txt"), "ab\n".repeat(10)).unwrap();
    let r = e.call(
        "str-replace",
        json!({"path": "ten.txt", "old": "b", "new": "c"}),
        None,
    );
    assert_eq!(
        r["error"],
        "`old` occurs 10 times in `ten.txt` (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10); include more text to make it unique"
    );
    // Matches on one line are each listed with it.
    std::fs::write(e.root.join("one.txt"), "\n\naaa\n").unwrap();
    let r = e.call(
        "str-replace",
        json!({"path": "one.txt", "old": "a", "new": "b"}),
        None,
    );
    assert_eq!(
        r["error"],
        "`old` occurs 3 times in `one.txt` (lines 3, 3, 3); include more text to make it unique"
    );
}

#[test]
fn insert_after_a_last_line_without_newline_adds_the_newline_before_the_text() {
    let e = env();
    std::fs::write(e.root.join("a.txt"), "a\nb").unwrap();
    let r = e.call(
        "insert",
        json!({"path": "a.txt", "line": 2, "text": "c"}),
        None,
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    let undo = e.call("undo", Value::Null, Some(&tag(&r)));
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(e.read("a.txt"), "a\nb");
    let far = e.call(
        "insert",
        json!({"path": "a.txt", "line": 3, "text": "c"}),
        None,
    );
    assert_eq!(
        far["error"],
        "`a.txt` has 2 lines; cannot insert after line 3"
    );
}

#[test]
fn a_view_of_a_range_counts_every_line_of_a_big_file() {
    let e = env();
    let text: String = (1..=300_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(e.root.join("big.txt"), &text).unwrap();
    let r = e.call(
        "view",
        json!({"path": "big.txt", "start_line": 299_999, "end_line": 400_000}),
        None,
    );
    assert_eq!(r["data"]["lines"], 300_000, "{r}");
    assert_eq!(r["data"]["text"], "299999\t299999\n300000\t300000\n");
    let past = e.call(
        "view",
        json!({"path": "big.txt", "start_line": 300_001}),
        None,
    );
    assert_eq!(
        past["error"],
        "`big.txt` has 300000 lines; start_line 300001 is past the end"
    );
}

fn session_file(e: &Env) -> PathBuf {
    std::fs::read_dir(&e.home)
        .unwrap()
        .map(|d| d.unwrap().path().join("session.json"))
        .find(|p| p.exists())
        .unwrap()
}

#[test]
fn views_after_a_thousand_tagless_calls_keep_the_tag_and_write_nothing() {
    let e = env();
    std::fs::write(e.root.join("a.txt"), "a\n").unwrap();
    let mine = tag(&e.call("view", json!({"path": "a.txt"}), None));
    // Command lines without a tag: each a conversation and a tag of its
    // own, until the project keeps its last 1,000 tags.
    for _ in 0..1000 {
        tag(&e.call("view", json!({"path": "a.txt"}), None));
    }
    let held = tag(&e.call("view", json!({"path": "a.txt"}), None));
    let session = session_file(&e);
    let before = std::fs::read_to_string(&session).unwrap();
    let modified = std::fs::metadata(&session).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    for _ in 0..50 {
        let r = e.call("view", json!({"path": "a.txt"}), Some(&held));
        assert_eq!(tag(&r), held, "{r}");
        assert_eq!(r["warnings"], Value::Null, "{r}");
    }
    assert_eq!(
        std::fs::metadata(&session).unwrap().modified().unwrap(),
        modified,
        "views rewrote the session file"
    );
    assert!(std::fs::read_to_string(&session).unwrap() == before);
    // The first tag was forgotten with the oldest: a new conversation.
    let r = e.call("view", json!({"path": "a.txt"}), Some(&mine));
    assert_ne!(tag(&r), mine, "{r}");
}

#[test]
fn a_session_file_changed_by_another_process_is_read_again_not_remembered() {
    let e = env();
    std::fs::write(e.root.join("a.txt"), "a\n").unwrap();
    let first = tag(&e.call(
        "str-replace",
        json!({"path": "a.txt", "old": "a", "new": "b"}),
        None,
    ));
    let r = e.call("view", json!({"path": "a.txt"}), Some(&first));
    assert_eq!(tag(&r), first, "{r}");
    // Another process forgets the tag (as a project past 1,000 tags does).
    let session = session_file(&e);
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    value["tags"].as_object_mut().unwrap().remove(&first);
    value["tag_order"] = json!([]);
    std::fs::write(&session, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let r = e.call("view", json!({"path": "a.txt"}), Some(&first));
    assert_ne!(
        tag(&r),
        first,
        "a forgotten tag was answered from memory: {r}"
    );
    assert!(
        r["warnings"][0]
            .as_str()
            .unwrap_or_default()
            .contains(&first),
        "{r}"
    );
    // And a second engine (another door in this process) sees the same.
    let other = e.fresh_engine();
    let mut request = Request::new("view", json!({"path": "a.txt"}));
    request.tag = Some(first.clone());
    let r = other.handle(&request).to_json();
    assert_ne!(tag(&r), first, "{r}");
}

#[test]
fn a_merge_with_hundreds_of_conflicts_names_each_ones_line() {
    use radium_core::edit::merge3;
    // Every third line changed differently on both sides: 200 conflicts,
    // each line number counted once from the previous one.
    let side = |tag: &str| -> String {
        (0..600)
            .map(|i| {
                if i % 3 == 1 {
                    format!("{tag}{i}\n")
                } else {
                    format!("same{i}\n")
                }
            })
            .collect()
    };
    let m = merge3(&side("base"), &side("ours"), &side("theirs"));
    assert_eq!(m.conflicts.len(), 200);
    let lines: Vec<&str> = m.text.lines().collect();
    for c in &m.conflicts {
        assert_eq!(lines[c.line - 1], "<<<<<<< ours", "conflict {}", c.id);
        assert_eq!(&m.text[c.start..c.start + 13], "<<<<<<< ours\n");
    }
}
