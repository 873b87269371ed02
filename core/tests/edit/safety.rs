//! Confinement to the project, the project lock, and async doors kept free.

use super::*;

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
