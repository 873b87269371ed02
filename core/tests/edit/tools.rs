//! view, create, str-replace, insert and solve-conflict, and the tool hooks around them.

use super::*;

#[test]
fn view_create_replace_insert_and_their_errors() {
    let e = env();
    let r = e.call(
        "create",
        json!({"path": "src/lib.rs", "content": "a\nb\nc\n"}),
        None,
    );
    assert_eq!(
        r["data"],
        json!({"path": "src/lib.rs", "created": true, "seq": 1})
    );
    let t = tag(&r);
    let v = e.call(
        "view",
        json!({"path": "src/lib.rs", "start_line": 2, "end_line": 3}),
        Some(&t),
    );
    assert_eq!(v["data"]["text"], "     2\tb\n     3\tc\n");
    assert_eq!(v["data"]["lines"], 3);
    let d = e.call("view", json!({"path": "."}), Some(&t));
    assert_eq!(d["data"]["entries"], json!(["src/"]));

    let dup = e.call(
        "create",
        json!({"path": "src/lib.rs", "content": "x"}),
        Some(&t),
    );
    assert_eq!(
        dup["error"],
        "`src/lib.rs` already exists (pass overwrite to replace it)"
    );
    let missing = e.call("view", json!({"path": "nope.rs"}), Some(&t));
    assert_eq!(missing["error"], "`nope.rs` does not exist");
    let past = e.call(
        "view",
        json!({"path": "src/lib.rs", "start_line": 9}),
        Some(&t),
    );
    assert!(past["error"]
        .as_str()
        .unwrap()
        .contains("start_line 9 is past the end"));

    let none = e.call(
        "str-replace",
        json!({"path": "src/lib.rs", "old": "zzz", "new": "y"}),
        Some(&t),
    );
    assert_eq!(none["error"], "no match for `old` in `src/lib.rs`");
    std::fs::write(e.root.join("dup.txt"), "x\ny\nx\nx\n").unwrap();
    let many = e.call(
        "str-replace",
        json!({"path": "dup.txt", "old": "x", "new": "y"}),
        Some(&t),
    );
    assert_eq!(
        many["error"],
        "`old` occurs 3 times in `dup.txt` (lines 1, 3, 4); include more text to make it unique"
    );
    let empty = e.call(
        "str-replace",
        json!({"path": "dup.txt", "old": "", "new": "y"}),
        Some(&t),
    );
    assert_eq!(empty["code"], "invalid_argument");

    let r = e.call(
        "insert",
        json!({"path": "src/lib.rs", "line": 0, "text": "top"}),
        Some(&t),
    );
    let t = tag(&r);
    let r = e.call(
        "insert",
        json!({"path": "src/lib.rs", "line": 4, "text": "end\n"}),
        Some(&t),
    );
    let t = tag(&r);
    assert_eq!(e.read("src/lib.rs"), "top\na\nb\nc\nend\n");
    let far = e.call(
        "insert",
        json!({"path": "src/lib.rs", "line": 99, "text": "x"}),
        Some(&t),
    );
    assert_eq!(
        far["error"],
        "`src/lib.rs` has 5 lines; cannot insert after line 99"
    );
    let bad = e.call(
        "insert",
        json!({"path": "src/lib.rs", "text": "x"}),
        Some(&t),
    );
    assert!(bad["error"]
        .as_str()
        .unwrap()
        .contains("missing argument `line`"));
    let nocwd = Engine::new(EngineConfig::default())
        .unwrap()
        .handle(&Request::new("view", json!({"path": "x"})))
        .to_json();
    assert!(nocwd["error"]
        .as_str()
        .unwrap()
        .contains("give the project root as `cwd`"));
}

#[test]
fn tool_hooks_can_refuse_or_rewrite_edits() {
    let e = env();
    e.engine
        .registry()
        .register(FnHook::new("no-env-files", HookType::BeforeTool, |ctx| {
            let path = ctx.data["arguments"]["path"].as_str().unwrap_or_default();
            if path.ends_with(".env") {
                return Ok(HookResult::stop("secrets stay untouched"));
            }
            let mut d = ctx.data.clone();
            if ctx.tool_name() == Some("create") {
                d["arguments"]["content"] = json!(format!(
                    "// generated\n{}",
                    ctx.data["arguments"]["content"]
                        .as_str()
                        .unwrap_or_default()
                ));
            }
            Ok(HookResult::with_data(d))
        }))
        .unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Value::Null));
    let s2 = seen.clone();
    e.engine
        .registry()
        .register(FnHook::new("audit", HookType::AfterTool, move |ctx| {
            *s2.lock().unwrap() = ctx.data.clone();
            Ok(HookResult::success())
        }))
        .unwrap();
    let r = e.call("create", json!({"path": ".env", "content": "KEY=1"}), None);
    assert_eq!(r["code"], "refused");
    assert_eq!(
        r["error"],
        "refused by hook `no-env-files` (before_tool): secrets stay untouched"
    );
    assert!(!e.root.join(".env").exists());
    let r = e.call("create", json!({"path": "a.js", "content": "x()"}), None);
    assert_eq!(r["ok"], true);
    assert_eq!(e.read("a.js"), "// generated\nx()");
    let audit = seen.lock().unwrap().clone();
    assert_eq!(audit["tool_name"], "create");
    assert_eq!(audit["result"]["path"], "a.js");
}

#[test]
fn conflicts_are_listed_and_resolved_two_way_and_diff3() {
    let e = env();
    let text = "start\n<<<<<<< HEAD\nours 1\n=======\ntheirs 1\n>>>>>>> branch\nmiddle\n<<<<<<< HEAD\nours 2\n||||||| base\nbase 2\n=======\ntheirs 2\n>>>>>>> branch\nend\n";
    std::fs::write(e.root.join("c.txt"), text).unwrap();
    let list = e.call("solve-conflict", json!({"path": "c.txt"}), None);
    let conflicts = &list["data"]["conflicts"];
    assert_eq!(
        conflicts[0],
        json!({"id": 1, "line": 2, "ours": "ours 1\n", "theirs": "theirs 1\n"})
    );
    assert_eq!(
        conflicts[1],
        json!({"id": 2, "line": 8, "ours": "ours 2\n", "base": "base 2\n", "theirs": "theirs 2\n"})
    );
    let t = tag(&list);
    let r = e.call(
        "solve-conflict",
        json!({"path": "c.txt", "id": 2, "resolution": "both"}),
        Some(&t),
    );
    assert_eq!(r["data"]["remaining"], 1);
    let t = tag(&r);
    let r = e.call(
        "solve-conflict",
        json!({"path": "c.txt", "id": 1, "resolution": "text", "text": "mine\n"}),
        Some(&t),
    );
    let t = tag(&r);
    assert_eq!(
        e.read("c.txt"),
        "start\nmine\nmiddle\nours 2\ntheirs 2\nend\n"
    );
    let bad = e.call(
        "solve-conflict",
        json!({"path": "c.txt", "id": 7, "resolution": "ours"}),
        Some(&t),
    );
    assert_eq!(bad["error"], "`c.txt` has no conflict 7 (0 conflicts)");
    std::fs::write(e.root.join("open.txt"), "<<<<<<< HEAD\nx\n").unwrap();
    let open = e.call("solve-conflict", json!({"path": "open.txt"}), Some(&t));
    assert_eq!(
        open["error"],
        "the conflict starting at line 1 has no end marker (>>>>>>>)"
    );
    std::fs::write(
        e.root.join("d.txt"),
        "<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n",
    )
    .unwrap();
    let r = e.call(
        "solve-conflict",
        json!({"path": "d.txt", "id": 1, "resolution": "mine"}),
        Some(&t),
    );
    assert!(r["error"]
        .as_str()
        .unwrap()
        .contains("must be ours, theirs, both or text"));
}
