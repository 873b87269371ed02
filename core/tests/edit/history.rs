//! The rewind scenario of seed 001, undo and redo across restarts, and the history depth.

use super::*;

#[test]
fn the_rewind_scenario_of_seed_001() {
    let e = env();
    std::fs::write(e.root.join("file.ts"), "const x = \"A\";\n").unwrap();
    let first = e.call(
        "str-replace",
        json!({"path": "file.ts", "old": "A", "new": "B"}),
        None,
    );
    assert_eq!(first["ok"], true, "{first}");
    let t1 = tag(&first);
    assert!(
        t1.len() == 13 && t1.as_bytes()[4] == b'-',
        "tag format <4>-<8>: {t1}"
    );
    let second = e.call(
        "str-replace",
        json!({"path": "file.ts", "old": "B", "new": "C"}),
        Some(&t1),
    );
    let t2 = tag(&second);
    assert_ne!(t1, t2);
    assert_eq!(e.read("file.ts"), "const x = \"C\";\n");

    let rewind = e.call("view", json!({"path": "file.ts"}), Some(&t1));
    assert_eq!(
        rewind["warnings"],
        json!([
            "conversation rewind detected. Undoing 1 operation(s).",
            "  undone: str-replace (file.ts) [seq:2]"
        ])
    );
    assert_eq!(tag(&rewind), t1);
    assert_eq!(e.read("file.ts"), "const x = \"B\";\n");
    assert_eq!(rewind["data"]["text"], "     1\tconst x = \"B\";\n");

    // The tag after the rewound one is now from the future.
    let future = e.call("view", json!({"path": "file.ts"}), Some(&t2));
    assert!(
        future["warnings"][0]
            .as_str()
            .unwrap()
            .contains("is from the future"),
        "{future}"
    );
    // Unknown and foreign tags.
    let prefix = &t1[..4];
    let unknown = e.call(
        "view",
        json!({"path": "file.ts"}),
        Some(&format!("{prefix}-zzzzzzzz")),
    );
    assert!(
        unknown["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("unknown tag"),
        "{unknown}"
    );
    let foreign = e.call("view", json!({"path": "file.ts"}), Some("zzzz-abcdefgh"));
    assert!(
        foreign["warnings"][0]
            .as_str()
            .unwrap()
            .contains("belongs to another project"),
        "{foreign}"
    );
    // A write without a tag starts a conversation of its own, which the
    // first conversation's rewinds leave alone.
    let untagged = e.call(
        "insert",
        json!({"path": "file.ts", "line": 0, "text": "// x"}),
        None,
    );
    assert_eq!(untagged["ok"], true, "{untagged}");
    let again = e.call("view", json!({"path": "file.ts"}), Some(&t1));
    assert_eq!(again["warnings"], Value::Null, "{again}");
    assert_eq!(e.read("file.ts"), "// x\nconst x = \"B\";\n");
}

#[test]
fn undo_redo_survive_a_restart_and_tell_empty_from_missing() {
    let e = env();
    let r = e.call("create", json!({"path": "empty.txt", "content": ""}), None);
    let mut t = tag(&r);
    let r = e.call(
        "create",
        json!({"path": "a.txt", "content": "one\n"}),
        Some(&t),
    );
    t = tag(&r);
    let r = e.call(
        "str-replace",
        json!({"path": "a.txt", "old": "one", "new": "two"}),
        Some(&t),
    );
    t = tag(&r);

    // A new engine (a restart) sees the same history.
    let e2 = Env {
        _dir: tempfile::tempdir().unwrap(),
        root: e.root.clone(),
        home: e.home.clone(),
        engine: e.fresh_engine(),
    };
    let u = e2.call("undo", Value::Null, Some(&t));
    assert_eq!(
        u["data"]["undone"],
        json!({"seq": 3, "command": "str-replace", "file": "a.txt"})
    );
    t = tag(&u);
    assert_eq!(e.read("a.txt"), "one\n");
    let u = e2.call("undo", Value::Null, Some(&t));
    t = tag(&u);
    assert!(
        !e.root.join("a.txt").exists(),
        "a created file is missing again after undo"
    );
    let u = e2.call("undo", Value::Null, Some(&t));
    t = tag(&u);
    assert!(
        !e.root.join("empty.txt").exists(),
        "an empty file is not a missing one: undo removes it"
    );
    let n = e2.call("undo", Value::Null, Some(&t));
    assert_eq!(n["error"], "nothing to undo");
    let r = e2.call("redo", Value::Null, Some(&t));
    t = tag(&r);
    assert_eq!(e.read("empty.txt"), "", "redo brings back an empty file");
    // A new edit drops the redo tail.
    let r = e2.call("create", json!({"path": "b.txt", "content": "b"}), Some(&t));
    t = tag(&r);
    let nr = e2.call("redo", Value::Null, Some(&t));
    assert_eq!(nr["error"], "nothing to redo");

    // Undo refuses when the file changed outside the engine.
    std::fs::write(e.root.join("b.txt"), "changed elsewhere").unwrap();
    let refused = e2.call("undo", Value::Null, Some(&t));
    assert_eq!(
        refused["error"],
        "cannot undo create (b.txt) [seq:4]: the file changed since"
    );
}

#[test]
fn history_keeps_what_changed_and_its_depth_is_configurable() {
    let e = env_with(EngineConfig {
        history_depth: 3,
        ..EngineConfig::default()
    });
    let big: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(e.root.join("big.txt"), &big).unwrap();
    let r = e.call(
        "str-replace",
        json!({"path": "big.txt", "old": "line 50000\n", "new": "LINE\n"}),
        None,
    );
    let mut t = tag(&r);
    let history: u64 = std::fs::read_dir(
        e.home
            .read_dir()
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
            .join("history"),
    )
    .unwrap()
    .map(|f| f.unwrap().metadata().unwrap().len())
    .sum();
    assert!(
        history < 1000,
        "a one-line change of a {} byte file took {history} bytes of history",
        big.len()
    );
    for i in 0..5 {
        let r = e.call(
            "insert",
            json!({"path": "big.txt", "line": 0, "text": format!("head {i}")}),
            Some(&t),
        );
        t = tag(&r);
    }
    for _ in 0..3 {
        let r = e.call("undo", Value::Null, Some(&t));
        assert_eq!(r["ok"], true, "{r}");
        t = tag(&r);
    }
    let r = e.call("undo", Value::Null, Some(&t));
    assert_eq!(
        r["error"],
        "nothing more to undo: older operations are no longer kept (the history keeps the last 3 steps)",
        "only 3 steps are kept"
    );
}

#[test]
fn a_rewind_that_cannot_finish_says_so() {
    let e = env();
    let r = e.call("create", json!({"path": "a.txt", "content": "1\n"}), None);
    let t1 = tag(&r);
    let r = e.call(
        "create",
        json!({"path": "b.txt", "content": "2\n"}),
        Some(&t1),
    );
    let t2 = tag(&r);
    let r = e.call(
        "create",
        json!({"path": "c.txt", "content": "3\n"}),
        Some(&t2),
    );
    let _t3 = tag(&r);
    // Someone edits b.txt outside the engine: the rewind to t1 undoes c.txt, then stops.
    std::fs::write(e.root.join("b.txt"), "edited by hand\n").unwrap();
    let v = e.call("view", json!({"path": "."}), Some(&t1));
    let w: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(
        w[0],
        "conversation rewind detected. Undoing 2 operation(s)."
    );
    assert_eq!(w[1], "  undone: create (c.txt) [seq:3]");
    assert!(
        w[2].starts_with(
            "partial rewind: cannot undo create (b.txt) [seq:2]: the file changed since; 1 operation(s) of this conversation stay applied"
        ),
        "{w:?}"
    );
    assert!(!e.root.join("c.txt").exists());
    assert_eq!(e.read("b.txt"), "edited by hand\n");
}
