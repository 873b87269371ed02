//! `merge`: a buffer's unsaved text merged with what an agent wrote (and
//! with an undo of it), the base found from the `write` event's `seq`.

use super::*;

const FILE: &str = "def price(x):\n    return x\n\n\ndef tax(x):\n    return x * 0.2\n";

/// The project holds `pricing.py`, the agent changes `tax`'s rate: the
/// write's seq.
fn agent_write(env: &Env) -> u64 {
    std::fs::write(env.root.join("pricing.py"), FILE).unwrap();
    let w = env.call(
        "str-replace",
        json!({"path": "pricing.py", "old": "x * 0.2", "new": "x * 0.25"}),
        None,
    );
    assert_eq!(w["ok"], true, "{w}");
    w["data"]["seq"].as_u64().unwrap()
}

/// The buffer: the file as it was before the agent's write, with a line
/// the user typed and did not save.
fn unsaved() -> String {
    FILE.replace("    return x\n\n", "    return x  # user's line\n\n")
}

#[test]
fn an_unsaved_line_and_the_agents_change_both_survive_and_an_undo_merges_again() {
    let env = env();
    let seq = agent_write(&env);
    let m = env.call(
        "merge",
        json!({"path": "pricing.py", "ours": unsaved(), "seq": seq}),
        None,
    );
    assert_eq!(m["ok"], true, "{m}");
    let text = m["data"]["text"].as_str().unwrap();
    assert!(text.contains("# user's line"), "{text}");
    assert!(text.contains("x * 0.25"), "{text}");
    assert_eq!(m["data"]["clean"], true);
    assert_eq!(m["data"]["changed"], true);
    assert_eq!(m["data"]["conflicts"], json!([]));
    // The disk is not touched: the merged text is the buffer's, unsaved.
    assert_eq!(env.read("pricing.py"), FILE.replace("0.2", "0.25"));

    // Undo takes the agent's change back on disk; the same seq finds the
    // base (the text the agent wrote), so the buffer keeps the user's line.
    let u = env.call("undo", json!({}), None);
    assert_eq!(u["data"]["undone"]["seq"], seq, "{u}");
    let again = env.call(
        "merge",
        json!({"path": "pricing.py", "ours": text, "seq": seq}),
        None,
    );
    assert_eq!(again["ok"], true, "{again}");
    assert_eq!(again["data"]["text"], unsaved());
    assert_eq!(again["data"]["clean"], true);
}

#[test]
fn both_sides_changing_one_line_is_a_conflict_solve_conflict_reads() {
    let env = env();
    let seq = agent_write(&env);
    let ours = FILE.replace("x * 0.2", "x * 0.3");
    let m = env.call(
        "merge",
        json!({"path": "pricing.py", "ours": ours, "seq": seq}),
        None,
    );
    assert_eq!(m["ok"], true, "{m}");
    assert_eq!(m["data"]["clean"], false);
    let conflicts = m["data"]["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{m}");
    assert_eq!(conflicts[0]["ours"], "    return x * 0.3\n");
    assert_eq!(conflicts[0]["base"], "    return x * 0.2\n");
    assert_eq!(conflicts[0]["theirs"], "    return x * 0.25\n");
    assert_eq!(conflicts[0]["line"], 6);
    // Saved, the merged text is what radium's conflict tools solve.
    std::fs::write(
        env.root.join("pricing.py"),
        m["data"]["text"].as_str().unwrap(),
    )
    .unwrap();
    let listed = env.call("solve-conflict", json!({"path": "pricing.py"}), None);
    assert_eq!(
        listed["data"]["conflicts"], m["data"]["conflicts"],
        "{listed}"
    );
    let solved = env.call(
        "solve-conflict",
        json!({"path": "pricing.py", "id": 1, "resolution": "theirs"}),
        None,
    );
    assert_eq!(solved["data"]["remaining"], 0, "{solved}");
    assert_eq!(env.read("pricing.py"), FILE.replace("0.2", "0.25"));
}

#[test]
fn a_base_and_theirs_given_as_text_need_no_file_or_history() {
    let env = env();
    let m = env.call(
        "merge",
        json!({"path": "new.txt", "base": "a\nb\nc\n", "ours": "a\nB\nc\n", "theirs": "a\nb\nc\nd\n"}),
        None,
    );
    assert_eq!(m["data"]["text"], "a\nB\nc\nd\n", "{m}");
    assert_eq!(m["data"]["path"], "new.txt");
    // A last line without a newline: markers still start lines.
    let m = env.call(
        "merge",
        json!({"path": "x", "base": "a", "ours": "b", "theirs": "c"}),
        None,
    );
    assert_eq!(m["data"]["clean"], false);
    assert_eq!(m["data"]["conflicts"][0]["ours"], "b\n", "{m}");
    assert_eq!(m["data"]["conflicts"][0]["theirs"], "c\n");
}

#[test]
fn bad_merge_requests_are_refused_with_what_to_give() {
    let env = env();
    let seq = agent_write(&env);
    std::fs::write(env.root.join("other.py"), "x\n").unwrap();
    let cases = [
        (
            json!("pricing.py"),
            "`merge`: args must be an object, got a string",
        ),
        (
            json!({"path": "pricing.py", "seq": seq}),
            "`merge`: missing argument `ours`",
        ),
        (
            json!({"ours": "x", "seq": seq}),
            "`merge`: missing argument `path`",
        ),
        (
            json!({"path": "pricing.py", "ours": 3, "seq": seq}),
            "`merge`: argument `ours` must be a string, got a number",
        ),
        (
            json!({"path": "pricing.py", "ours": "x"}),
            "`merge`: missing the base",
        ),
        (
            json!({"path": "pricing.py", "ours": "x", "seq": seq, "base": ""}),
            "not both",
        ),
        (
            json!({"path": "pricing.py", "ours": "x", "seq": "1"}),
            "argument `seq` must be a number",
        ),
        (
            json!({"path": "pricing.py", "ours": "x", "seq": -1}),
            "argument `seq` must be a number",
        ),
        (
            json!({"path": "other.py", "ours": "x", "seq": seq}),
            "changed `pricing.py`, not `other.py`",
        ),
        (
            json!({"path": "pricing.py", "ours": "x", "seq": 999}),
            "[seq:999] is no longer kept",
        ),
        (
            json!({"path": "pricing.py", "ours": "x", "seq": seq, "theirs": "changed since\n"}),
            "shows neither side of operation",
        ),
        (
            json!({"path": "gone.py", "ours": "x", "base": ""}),
            "`gone.py` does not exist",
        ),
        (
            json!({"path": "../out.py", "ours": "x", "base": ""}),
            "outside the project",
        ),
        (
            json!({"path": "pricing.py", "ours": "x".repeat((8 << 20) + 1), "base": ""}),
            "at most 8 MiB",
        ),
    ];
    for (args, error) in cases {
        let r = env.call("merge", args.clone(), None);
        assert_eq!(r["ok"], false, "{args}: {r}");
        let message = r["error"].as_str().unwrap();
        assert!(
            message.contains(error),
            "{args}: `{message}` lacks `{error}`"
        );
    }
    // Nothing was written by a refused (or any) merge.
    assert_eq!(env.read("pricing.py"), FILE.replace("0.2", "0.25"));
}

#[test]
fn a_step_of_two_files_and_an_amended_step_find_each_files_base_from_one_seq() {
    let env = env();
    let (a, b) = ("a = 1\n\nmid\n\nz = 0\n", "b = 1\n\nmid\n\nz = 0\n");
    std::fs::write(env.root.join("a.py"), a).unwrap();
    std::fs::write(env.root.join("b.py"), b).unwrap();
    let start = env.call("view", json!({"path": "a.py"}), None);
    // An editor's change to two files, recorded as one step.
    std::fs::write(env.root.join("a.py"), a.replace("a = 1", "a = 2")).unwrap();
    std::fs::write(env.root.join("b.py"), b.replace("b = 1", "b = 2")).unwrap();
    let r = env.call(
        "record",
        json!({"files": [
            {"path": "a.py", "old_text": a},
            {"path": "b.py", "old_text": b},
        ]}),
        Some(&tag(&start)),
    );
    assert_eq!(r["ok"], true, "{r}");
    let t1 = tag(&r);
    // Then one changeset more on a.py joined to that step (hunks taken back).
    let now = env.read("a.py");
    std::fs::write(env.root.join("a.py"), now.replace("z = 0", "z = 9")).unwrap();
    let amended = env.call(
        "record",
        json!({"files": [{"path": "a.py", "old_text": now}], "amend": r["data"]["seq"]}),
        Some(&t1),
    );
    assert_eq!(amended["data"]["amended"], true, "{amended}");
    let undo = env.call("undo", json!({}), Some(&tag(&amended)));
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(env.read("a.py"), a);
    assert_eq!(env.read("b.py"), b);
    let seq = &undo["data"]["undone"]["seq"];
    // Each buffer had an unsaved change; the undo's one seq finds each
    // file's base (a.py: both of its changesets, composed).
    for (file, wrote, disk) in [
        ("a.py", "a = 2\n\nmid\n\nz = 9\n", a),
        ("b.py", "b = 2\n\nmid\n\nz = 0\n", b),
    ] {
        let ours = wrote.replace("mid", "mid, mine");
        let m = env.call(
            "merge",
            json!({"path": file, "ours": ours, "seq": seq}),
            None,
        );
        assert_eq!(m["ok"], true, "{file}: {m}");
        assert_eq!(
            m["data"]["text"],
            disk.replace("mid", "mid, mine"),
            "{file}"
        );
        assert_eq!(m["data"]["clean"], true, "{file}");
    }
    // Redone, the same seq works the other way.
    let redo = env.call("redo", json!({}), Some(&tag(&undo)));
    assert_eq!(redo["ok"], true, "{redo}");
    let m = env.call(
        "merge",
        json!({"path": "a.py", "ours": a.replace("mid", "mid, mine"), "seq": seq}),
        None,
    );
    assert_eq!(m["data"]["text"], "a = 2\n\nmid, mine\n\nz = 9\n", "{m}");
    // A file the step did not change is refused.
    std::fs::write(env.root.join("c.py"), "c\n").unwrap();
    let m = env.call(
        "merge",
        json!({"path": "c.py", "ours": "x\n", "seq": seq}),
        None,
    );
    assert!(m["error"].as_str().unwrap().contains("changed `"), "{m}");
}

#[test]
fn merge3_takes_each_sides_regions_and_marks_only_what_both_changed() {
    use radium_core::edit::merge3;
    let base = "a\nb\nc\nd\ne\nf\ng\n";
    // Apart: both go in.
    let m = merge3(base, "A\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nG\n");
    assert_eq!((m.text.as_str(), m.clean), ("A\nb\nc\nd\ne\nf\nG\n", true));
    // The same change on both sides: once.
    let m = merge3(base, "a\nb\nX\nd\ne\nf\ng\n", "a\nb\nX\nd\ne\nf\nG\n");
    assert_eq!((m.text.as_str(), m.clean), ("a\nb\nX\nd\ne\nf\nG\n", true));
    // A line removed by one side, another added by the other.
    let m = merge3(base, "a\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\ng\nh\n");
    assert_eq!((m.text.as_str(), m.clean), ("a\nc\nd\ne\nf\ng\nh\n", true));
    // Touching changes are a conflict (as in git), the rest merged.
    let m = merge3(base, "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nC\nd\ne\nf\nG\n");
    assert!(!m.clean);
    assert_eq!(
        m.text,
        "a\n<<<<<<< ours\nB\nc\n||||||| original\nb\nc\n=======\nb\nC\n>>>>>>> theirs\nd\ne\nf\nG\n"
    );
    assert_eq!(m.conflicts.len(), 1);
    assert_eq!(m.conflicts[0].line, 2);
    // Two insertions at one place, different: a conflict with an empty base.
    let m = merge3("x\n", "x\nours\n", "x\ntheirs\n");
    assert_eq!(
        m.text,
        "x\n<<<<<<< ours\nours\n||||||| original\n=======\ntheirs\n>>>>>>> theirs\n"
    );
    assert_eq!(m.conflicts[0].base.as_deref(), Some(""));
}

#[test]
fn a_merge_of_two_large_texts_that_differ_everywhere_ends_with_one_conflict() {
    // A deadline bounds the line diffs: the merge of 60,000 lines changed
    // on both sides (a quadratic search without it) ends, one conflict.
    let n = 60_000;
    let lines = |prefix: &str| -> String { (0..n).map(|i| format!("{prefix} {i}\n")).collect() };
    let m = radium_core::edit::merge3(&lines("line"), &lines("ours"), &lines("theirs"));
    assert!(!m.clean);
    assert_eq!(m.conflicts.len(), 1, "{} conflicts", m.conflicts.len());
    assert_eq!(m.conflicts[0].ours, lines("ours"));
    assert_eq!(m.conflicts[0].theirs, lines("theirs"));
}
