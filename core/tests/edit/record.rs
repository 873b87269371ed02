//! `record`: edits an editor made and saved, recorded as one step across
//! files, taken back by one undo and by a rewind.

use super::*;

fn write(env: &Env, file: &str, text: &str) {
    let path = env.root.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn an_editors_change_to_three_files_is_one_step_for_undo_redo_and_rewind() {
    let env = env();
    write(&env, "a.rs", "fn a() {}\n");
    write(&env, "b.rs", "fn b() {}\n");
    let start = env.call("view", json!({"path": "a.rs"}), None);
    let t0 = tag(&start);
    // The editor applied a reviewed change: two files changed, one created.
    write(&env, "a.rs", "fn a() { b() }\n");
    write(&env, "b.rs", "pub fn b() {}\n");
    write(&env, "src/new.rs", "// new\n");
    let out = env.call(
        "record",
        json!({"files": [
            {"path": "a.rs", "old_text": "fn a() {}\n", "new_text": "fn a() { b() }\n"},
            {"path": "b.rs", "old_text": "fn b() {}\n"},
            {"path": "src/new.rs", "old_text": null},
        ]}),
        Some(&t0),
    );
    assert_eq!(out["ok"], true, "{out}");
    let files = out["data"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[2]["path"], "src/new.rs");
    assert_eq!(files[2]["created"], true);
    let t1 = tag(&out);
    // The files were not rewritten: the editor's text stays as it was.
    assert_eq!(env.read("a.rs"), "fn a() { b() }\n");

    // One undo takes back all three files.
    let undo = env.call("undo", Value::Null, Some(&t1));
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(
        undo["data"]["undone"]["files"],
        json!(["a.rs", "b.rs", "src/new.rs"]
            .iter()
            .rev()
            .collect::<Vec<_>>())
    );
    assert_eq!(env.read("a.rs"), "fn a() {}\n");
    assert_eq!(env.read("b.rs"), "fn b() {}\n");
    assert!(!env.root.join("src/new.rs").exists());
    // One redo brings them back.
    let redo = env.call("redo", Value::Null, Some(&tag(&undo)));
    assert_eq!(redo["ok"], true, "{redo}");
    assert_eq!(redo["data"]["redone"]["files"].as_array().unwrap().len(), 3);
    assert_eq!(env.read("b.rs"), "pub fn b() {}\n");
    assert_eq!(env.read("src/new.rs"), "// new\n");
    // A rewind to the tag before the change takes it back too.
    let rewound = env.call("view", json!({"path": "a.rs"}), Some(&t0));
    assert_eq!(rewound["ok"], true, "{rewound}");
    assert_eq!(env.read("a.rs"), "fn a() {}\n");
    assert!(!env.root.join("src/new.rs").exists());
    let warnings = rewound["warnings"].to_string();
    assert!(warnings.contains("record (b.rs)"), "{warnings}");
}

#[test]
fn a_step_with_one_file_changed_since_is_not_undone_at_all() {
    let env = env();
    write(&env, "a.txt", "one\n");
    write(&env, "b.txt", "two\n");
    write(&env, "a.txt", "ONE\n");
    write(&env, "b.txt", "TWO\n");
    let out = env.call(
        "record",
        json!({"files": [{"path": "a.txt", "old_text": "one\n"}, {"path": "b.txt", "old_text": "two\n"}]}),
        None,
    );
    let t1 = tag(&out);
    write(&env, "b.txt", "TWO, edited by hand\n");
    let undo = env.call("undo", Value::Null, Some(&t1));
    assert_eq!(undo["ok"], false, "{undo}");
    assert!(
        undo["error"]
            .as_str()
            .unwrap()
            .contains("the file changed since"),
        "{undo}"
    );
    // Neither file moved: the step is not half undone.
    assert_eq!(env.read("a.txt"), "ONE\n");
    assert_eq!(env.read("b.txt"), "TWO, edited by hand\n");
}

#[test]
fn an_undo_without_a_tag_takes_back_the_whole_step() {
    let env = env();
    write(&env, "a.txt", "1\n");
    write(&env, "b.txt", "2\n");
    let out = env.call(
        "record",
        json!({"files": [{"path": "a.txt", "old_text": "0\n"}, {"path": "b.txt", "old_text": "0\n"}]}),
        None,
    );
    assert_eq!(out["ok"], true, "{out}");
    let undo = env.call("undo", Value::Null, None);
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(
        (env.read("a.txt"), env.read("b.txt")),
        ("0\n".into(), "0\n".into())
    );
    let redo = env.call("redo", Value::Null, None);
    assert_eq!(redo["ok"], true, "{redo}");
    assert_eq!(
        (env.read("a.txt"), env.read("b.txt")),
        ("1\n".into(), "2\n".into())
    );
    // The history survives a restart as one step.
    let again = Engine::new(EngineConfig {
        workspace: Some(env.root.clone()),
        radium_home: Some(env.home.clone()),
        ..EngineConfig::default()
    })
    .unwrap();
    let undo = again.handle(&Request::new("undo", Value::Null)).to_json();
    assert_eq!(
        undo["data"]["undone"]["files"].as_array().unwrap().len(),
        2,
        "{undo}"
    );
}

#[test]
fn bad_record_requests_are_refused_with_what_is_wrong_and_record_nothing() {
    let env = env();
    write(&env, "a.txt", "new\n");
    let cases = [
        (json!({}), "missing argument `files`"),
        (json!({"files": []}), "`files` is empty"),
        (json!({"files": "a.txt"}), "`files` must be an array"),
        (json!({"files": [1]}), "`files[0]` must be an object"),
        (
            json!({"files": [{"old_text": "x"}]}),
            "`files[0].path` must be a string",
        ),
        (json!({"files": [{"path": "a.txt"}]}), "needs `old_text`"),
        (
            json!({"files": [{"path": "a.txt", "old_text": 3}]}),
            "must be a string or null",
        ),
        (
            json!({"files": [{"path": "a.txt", "old_text": "old\n"}, {"path": "./a.txt", "old_text": "old\n"}]}),
            "given twice",
        ),
        (
            json!({"files": [{"path": "a.txt", "old_text": "old\n", "new_text": "newer\n"}]}),
            "on disk is not the edited text",
        ),
        (
            json!({"files": [{"path": "gone.txt", "old_text": "x"}]}),
            "`gone.txt` does not exist",
        ),
        (
            json!({"files": [{"path": "../outside.txt", "old_text": "x"}]}),
            "outside",
        ),
    ];
    for (args, expected) in cases {
        let out = env.call("record", args.clone(), None);
        assert_eq!(out["ok"], false, "{args} → {out}");
        let error = out["error"].as_str().unwrap();
        assert!(
            error.contains(expected),
            "{args}: `{error}` lacks `{expected}`"
        );
    }
    let undo = env.call("undo", Value::Null, None);
    assert_eq!(undo["error"], "nothing to undo", "{undo}");
    // An unchanged file records nothing.
    let same = env.call(
        "record",
        json!({"files": [{"path": "a.txt", "old_text": "new\n"}]}),
        None,
    );
    assert_eq!(same["data"], json!({"files": [], "seq": null}), "{same}");
}

#[test]
fn a_take_back_amends_the_agents_step_so_one_undo_takes_the_tool_call_back() {
    let env = env();
    write(&env, "a.rs", "one\ntwo\nthree\n");
    write(&env, "b.rs", "b\n");
    let t0 = tag(&env.call("view", json!({"path": "a.rs"}), None));
    // The agent's write: two hunks.
    let agent = env.call(
        "str-replace",
        json!({"path": "a.rs", "old": "one\ntwo\nthree\n", "new": "ONE\ntwo\nTHREE\n"}),
        Some(&t0),
    );
    assert_eq!(agent["ok"], true, "{agent}");
    let seq = agent["data"]["seq"].as_u64().expect("the write's seq");
    // The user rejected the second hunk: the editor takes it back and
    // records it, joining the agent's step.
    write(&env, "a.rs", "ONE\ntwo\nthree\n");
    let back = env.call(
        "record",
        json!({"files": [{"path": "a.rs", "old_text": "ONE\ntwo\nTHREE\n"}], "amend": seq}),
        Some(&tag(&agent)),
    );
    assert_eq!(back["ok"], true, "{back}");
    assert_eq!(back["data"]["amended"], true, "{back}");
    // One undo: back to before the agent's write; one redo: as accepted.
    let undo = env.call("undo", Value::Null, Some(&tag(&back)));
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(env.read("a.rs"), "one\ntwo\nthree\n");
    let redo = env.call("redo", Value::Null, Some(&tag(&undo)));
    assert_eq!(redo["ok"], true, "{redo}");
    assert_eq!(env.read("a.rs"), "ONE\ntwo\nthree\n");
    // An undo with the tag the agent's write answered (the chat's Undo on
    // that write) takes back the whole step, and no more.
    let by_write = env.call("undo", Value::Null, Some(&tag(&agent)));
    assert_eq!(by_write["ok"], true, "{by_write}");
    assert_eq!(env.read("a.rs"), "one\ntwo\nthree\n");
    assert_eq!(
        by_write["data"]["undone"]["command"], "str-replace",
        "{by_write}"
    );
    assert_eq!(
        by_write["data"]["undone"]["files"],
        json!(["a.rs"]),
        "{by_write}"
    );
    let redo = env.call("redo", Value::Null, Some(&tag(&by_write)));
    assert_eq!(redo["ok"], true, "{redo}");
    assert_eq!(env.read("a.rs"), "ONE\ntwo\nthree\n");
    // An untagged undo (another client) takes the whole step too.
    let plain = env.call("undo", Value::Null, None);
    assert_eq!(plain["ok"], true, "{plain}");
    assert_eq!(env.read("a.rs"), "one\ntwo\nthree\n");
    let again = env.call("redo", Value::Null, None);
    assert_eq!(again["ok"], true, "{again}");
    assert_eq!(env.read("a.rs"), "ONE\ntwo\nthree\n");

    // The agent wrote again since: the take-back is a step of its own.
    let later = env.call(
        "str-replace",
        json!({"path": "b.rs", "old": "b\n", "new": "B\n"}),
        Some(&tag(&again)),
    );
    assert_eq!(later["ok"], true, "{later}");
    write(&env, "a.rs", "ONE\n");
    let own = env.call(
        "record",
        json!({"files": [{"path": "a.rs", "old_text": "ONE\ntwo\nthree\n"}], "amend": seq}),
        Some(&tag(&later)),
    );
    assert_eq!(own["ok"], true, "{own}");
    assert_eq!(own["data"]["amended"], false, "{own}");
    assert!(
        own["warnings"].to_string().contains("a step of its own"),
        "{own}"
    );
    let undo = env.call("undo", Value::Null, Some(&tag(&own)));
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(env.read("a.rs"), "ONE\ntwo\nthree\n");
    assert_eq!(env.read("b.rs"), "B\n", "the agent's later write stays");

    // A bad `amend` is refused, nothing recorded.
    for bad in [json!("7"), json!(0), json!(-1)] {
        let out = env.call(
            "record",
            json!({"files": [{"path": "a.rs", "old_text": "x"}], "amend": bad}),
            Some(&tag(&undo)),
        );
        assert_eq!(out["code"], "invalid_argument", "{out}");
        assert!(out["error"].as_str().unwrap().contains("`amend`"), "{out}");
    }
}

/// Records `files` (each now holding `after`, before holding `before`) as one step.
fn step(env: &Env, files: &[&str], before: &str, after: &str, t: Option<&str>) -> String {
    for f in files {
        write(env, f, after);
    }
    let list: Vec<Value> = files
        .iter()
        .map(|f| json!({"path": f, "old_text": before}))
        .collect();
    let out = env.call("record", json!({"files": list}), t);
    assert_eq!(out["ok"], true, "{out}");
    tag(&out)
}

fn history_dir(env: &Env) -> PathBuf {
    env.home
        .read_dir()
        .unwrap()
        .map(|d| d.unwrap().path())
        .find(|p| p.join("history").is_dir())
        .unwrap()
        .join("history")
}

#[test]
fn the_history_keeps_whole_steps_counted_as_steps() {
    let env = env_with(EngineConfig {
        history_depth: 2,
        ..EngineConfig::default()
    });
    let files = ["a.txt", "b.txt", "c.txt"];
    for f in files {
        write(&env, f, "0\n");
    }
    // Three steps of three files each: six changesets more than the depth,
    // yet only the oldest step goes, whole.
    let t = step(&env, &files, "0\n", "1\n", None);
    let t = step(&env, &files, "1\n", "2\n", Some(&t));
    let mut t = step(&env, &files, "2\n", "3\n", Some(&t));
    assert_eq!(history_dir(&env).read_dir().unwrap().count(), 6);
    for back in ["2\n", "1\n"] {
        let undo = env.call("undo", Value::Null, Some(&t));
        assert_eq!(undo["ok"], true, "{undo}");
        assert_eq!(undo["data"]["undone"]["files"].as_array().unwrap().len(), 3);
        for f in files {
            assert_eq!(env.read(f), back, "{f}");
        }
        t = tag(&undo);
    }
    let undo = env.call("undo", Value::Null, Some(&t));
    assert_eq!(
        undo["error"],
        "nothing more to undo: older operations are no longer kept (the history keeps the last 2 steps)"
    );
    for f in files {
        assert_eq!(env.read(f), "1\n", "{f} keeps the oldest step");
    }
}

#[test]
fn a_step_missing_its_first_changesets_is_refused_whole() {
    let env = env();
    let files = ["a.txt", "b.txt", "c.txt"];
    for f in files {
        write(&env, f, "0\n");
    }
    let t = step(&env, &files, "0\n", "1\n", None);
    // A history written by a release that pruned part of a step.
    std::fs::remove_file(history_dir(&env).join("00000001.json")).unwrap();
    let undo = env.call("undo", Value::Null, Some(&t));
    assert_eq!(undo["ok"], false, "{undo}");
    let error = undo["error"].as_str().unwrap();
    assert!(
        error.contains("part of its step (from [seq:1]) is no longer kept")
            && error.ends_with("nothing undone"),
        "{error}"
    );
    for f in files {
        assert_eq!(env.read(f), "1\n", "{f} is not undone");
    }
}
