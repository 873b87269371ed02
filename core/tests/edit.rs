//! Edit tools, undo/redo, dog-tag sessions and path confinement, through the
//! JSON request door.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use radium_core::{Engine, EngineConfig, FnHook, HookResult, HookType, Request};
use serde_json::{json, Value};

mod common;

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    engine: Engine,
}

fn env() -> Env {
    env_with(EngineConfig::default())
}

fn env_with(mut config: EngineConfig) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    config.radium_home = Some(home.clone());
    config.workspace = Some(root.clone());
    let engine = Engine::new(config).unwrap();
    Env {
        _dir: dir,
        root,
        home,
        engine,
    }
}

impl Env {
    fn call(&self, command: &str, args: Value, tag: Option<&str>) -> Value {
        let mut request = Request::new(command, args);
        request.tag = tag.map(str::to_owned);
        self.engine.handle(&request).to_json()
    }
    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.root.join(file)).unwrap()
    }
    fn fresh_engine(&self) -> Engine {
        Engine::new(EngineConfig {
            workspace: Some(self.root.clone()),
            radium_home: Some(self.home.clone()),
            ..EngineConfig::default()
        })
        .unwrap()
    }
}

fn tag(v: &Value) -> String {
    v["tag"]
        .as_str()
        .unwrap_or_else(|| panic!("no tag in {v}"))
        .to_owned()
}

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
    // A write without a tag once the session has started is an error.
    let untagged = e.call(
        "insert",
        json!({"path": "file.ts", "line": 0, "text": "// x"}),
        None,
    );
    assert_eq!(untagged["code"], "edit");
    assert!(
        untagged["error"]
            .as_str()
            .unwrap()
            .contains("pass the latest tag with every write"),
        "{untagged}"
    );
}

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
        "cannot undo create (b.txt) [seq:2]: the file changed since"
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
    assert_eq!(r["error"], "nothing to undo", "only 3 changesets are kept");
}

#[test]
fn paths_are_confined_to_the_project() {
    let e = env();
    let outside = e.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "s").unwrap();
    std::os::unix::fs::symlink(&outside, e.root.join("link")).unwrap();
    for path in [
        "../outside/secret.txt",
        "link/secret.txt",
        "a/../../outside/x",
        outside.join("secret.txt").to_str().unwrap(),
    ] {
        let r = e.call("view", json!({"path": path}), None);
        assert_eq!(r["code"], "outside_project", "{path}: {r}");
        assert!(
            r["error"]
                .as_str()
                .unwrap()
                .contains("is outside the project"),
            "{r}"
        );
        let w = e.call("create", json!({"path": path, "content": "x"}), None);
        assert_eq!(w["code"], "outside_project", "{path}");
    }
    let nul = e.call("view", json!({"path": "a\u{0}b"}), None);
    assert_eq!(
        nul["error"],
        "invalid argument: path: contains a NUL character"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        "s"
    );
    // Inside through an absolute path is fine.
    let ok = e.call(
        "create",
        json!({"path": e.root.join("in.txt"), "content": "x"}),
        None,
    );
    assert_eq!(ok["ok"], true, "{ok}");
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

#[test]
fn writers_are_serialised_by_the_project_lock() {
    let e = env();
    e.call("view", json!({"path": "."}), None);
    let project = radium_core::edit::Project::open(&e.root, &e.home).unwrap();
    let lock = project.lock().unwrap();
    let engine = e.engine.clone();
    let root = e.root.clone();
    let t = Instant::now();
    let writer = std::thread::spawn(move || {
        let mut r = Request::new("create", json!({"path": "w.txt", "content": "w"}));
        r.cwd = Some(root.to_string_lossy().into_owned());
        let out = engine.handle(&r);
        (out.ok, Instant::now())
    });
    std::thread::sleep(Duration::from_millis(300));
    let released = Instant::now();
    drop(lock);
    let (ok, finished) = writer.join().unwrap();
    assert!(ok);
    assert!(finished >= released, "the write waited for the lock");
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert!(Path::new(&e.root.join("w.txt")).exists());
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
            "partial rewind: stopped at operation 2: cannot undo create (b.txt) [seq:2]"
        ),
        "{w:?}"
    );
    assert!(!e.root.join("c.txt").exists());
    assert_eq!(e.read("b.txt"), "edited by hand\n");
}

#[test]
fn an_edit_with_a_slow_script_hook_does_not_block_an_async_door() {
    let e = env();
    // A before_tool script hook that takes 300 ms, as a linter might.
    e.engine
        .registry()
        .register(
            radium_core::ScriptHook::new("slow-lint", HookType::BeforeTool, "/bin/sh")
                .with_args(["-c", "sleep 0.3"]),
        )
        .unwrap();
    let (response, ticks) = common::while_ticking(e.engine.handle_async(&Request::new(
        "create",
        json!({"path": "a.txt", "content": "hello\n"}),
    )));
    assert!(response.ok, "{:?}", response.error);
    assert_eq!(
        std::fs::read_to_string(e.root.join("a.txt")).unwrap(),
        "hello\n"
    );
    assert!(
        ticks >= 15,
        "the executor ran only {ticks} ticks during the edit"
    );
}
