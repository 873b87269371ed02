//! The protocol cases, against the scripted server.

use serde_json::json;

use super::{alive, eventually, places, scripted_toml, server_log, Env};

const APP: &str =
    "from util import total\n\nlabel = \"é😀\"; total2 = total + total\nprint(total)\n";
const UTIL: &str = "# total is the sum\ntotal = 1\n";

fn env(modes: &str, encoding: &str, extra: &str) -> (Env, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.keep().join("server.log");
    let toml = scripted_toml(modes, encoding, &log, extra);
    (Env::new(&[("app.py", APP), ("util.py", UTIL)], &toml), log)
}

#[test]
fn columns_on_a_non_ascii_line_are_right_in_every_encoding() {
    for encoding in ["utf-8", "utf-16", "utf-32"] {
        let (env, _) = env("stray", encoding, "");
        let r = env.ok(
            "read-var",
            json!({"file": "app.py", "var": "total", "line": 3}),
        );
        let data = &r["data"];
        assert_eq!(data["engine"], "lsp", "{encoding}: {r:#}");
        assert_eq!(data["server"], "python3");
        let got = places(data);
        // `label = "é😀"; total2 = total + total`: the two on line 3 are at
        // characters 24 and 32 (1-based), whatever the server counts in.
        assert!(
            got.contains(&("app.py".into(), 3, 24)),
            "{encoding}: {got:?}"
        );
        assert!(
            got.contains(&("app.py".into(), 3, 32)),
            "{encoding}: {got:?}"
        );
        assert!(
            got.contains(&("util.py".into(), 2, 1)),
            "{encoding}: {got:?}"
        );
        assert_eq!(got.len(), 6, "{encoding}: {got:?}");
        let def = &data["definition"];
        assert_eq!(
            (def["file"].as_str(), def["line"].as_u64()),
            (Some("util.py"), Some(2))
        );
        assert_eq!(def["context"][0]["text"], "# total is the sum");
    }
}

#[test]
fn server_requests_are_answered_and_queries_wait_for_its_progress() {
    let settings = "[python.settings.scripted]\ncheck = \"strict\"\n";
    let (env, log) = env("requests,progress", "utf-16", settings);
    let r = env.ok("read-var", json!({"file": "util.py", "var": "total"}));
    // The server answers [] while it indexes: radium waited for the end.
    assert_eq!(places(&r["data"]).len(), 6, "{r:#}");
    let entries = server_log(&log);
    let answer = |id: u64| {
        entries
            .iter()
            .find(|e| {
                e["kind"] == "got" && e["payload"]["id"] == id && e["payload"]["method"].is_null()
            })
            .map(|e| e["payload"].clone())
            .unwrap_or_else(|| panic!("no answer to {id}: {entries:#?}"))
    };
    assert_eq!(answer(1001)["result"], json!(["strict", null]));
    assert_eq!(answer(1002)["result"], json!(null));
    assert_eq!(answer(1003)["result"], json!(null));
    assert!(answer(1001).get("error").is_none());
}

#[test]
fn a_rename_with_two_edits_on_one_line_is_one_step_undone_at_once() {
    let (env, _) = env("", "utf-16", "");
    let r = env.ok(
        "modify-var",
        json!({"file": "app.py", "from": "total", "to": "grand_total", "line": 1}),
    );
    assert_eq!(r["data"]["applied"], true, "{r:#}");
    // The scripted server renames words, the comment's too.
    assert_eq!(r["data"]["edits"], 6);
    assert_eq!(
        env.read("app.py").unwrap(),
        "from util import grand_total\n\nlabel = \"é😀\"; total2 = grand_total + grand_total\nprint(grand_total)\n"
    );
    assert_eq!(
        env.read("util.py").unwrap(),
        "# grand_total is the sum\ngrand_total = 1\n"
    );
    let tag = r["tag"].as_str().unwrap().to_owned();
    let undo = env.call_tagged("undo", json!({}), Some(&tag));
    assert_eq!(undo["ok"], true, "{undo:#}");
    assert_eq!(env.read("app.py").unwrap(), APP);
    assert_eq!(env.read("util.py").unwrap(), UTIL);
}

#[test]
fn an_edit_for_a_version_radium_never_sent_is_refused() {
    let (env, _) = env("stale", "utf-16", "");
    let r = env.call(
        "modify-var",
        json!({"file": "app.py", "from": "total", "to": "x", "line": 1}),
    );
    assert_eq!(r["ok"], false, "{r:#}");
    assert_eq!(r["code"], "edit");
    assert!(r["error"].as_str().unwrap().contains("version"), "{r:#}");
    assert_eq!(env.read("app.py").unwrap(), APP);
}

#[test]
fn a_server_that_crashes_gives_the_fallback_and_is_started_again() {
    let (env, log) = env("crash", "utf-16", "");
    let r = env.ok(
        "read-var",
        json!({"file": "app.py", "var": "total", "line": 1}),
    );
    assert_eq!(r["data"]["engine"], "syntax", "{r:#}");
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("failed") && warnings.contains("stopped"),
        "{warnings}"
    );
    // Comments aside: `# total is the sum` is not an occurrence.
    assert_eq!(places(&r["data"]).len(), 5);
    let r = env.ok(
        "read-var",
        json!({"file": "app.py", "var": "total", "line": 1}),
    );
    assert_eq!(r["data"]["engine"], "syntax");
    let starts = server_log(&log)
        .iter()
        .filter(|e| e["payload"]["method"] == "initialize")
        .count();
    assert_eq!(starts, 2, "the crashed server is started again on next use");
}

#[test]
fn a_server_that_never_answers_is_cancelled_at_the_time_limit() {
    let (env, log) = env("hang", "utf-16", "timeout_ms = 400\n");
    let r = env.ok(
        "read-var",
        json!({"file": "app.py", "var": "total", "line": 1}),
    );
    assert_eq!(r["data"]["engine"], "syntax", "{r:#}");
    assert!(
        r["warnings"]
            .to_string()
            .contains("did not answer within 400 ms"),
        "{r:#}"
    );
    assert!(eventually(5, || server_log(&log)
        .iter()
        .any(|e| e["payload"]["method"] == "$/cancelRequest")));
}

#[test]
fn a_server_that_cannot_start_says_why_and_lsp_only_is_an_error() {
    let (env, _) = env("badstart", "utf-16", "");
    let r = env.ok("read-var", json!({"file": "app.py", "var": "total"}));
    assert_eq!(r["data"]["engine"], "syntax");
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("did not start") && warnings.contains("badstart mode"),
        "{warnings}"
    );
    let r = env.call(
        "read-var",
        json!({"file": "app.py", "var": "total", "engine": "lsp"}),
    );
    assert_eq!(
        (r["ok"].clone(), r["code"].clone()),
        (json!(false), json!("not_found")),
        "{r:#}"
    );
    assert!(r["error"].as_str().unwrap().contains("no language server"));
}

#[test]
fn lsp_list_shows_the_source_and_the_running_server_which_stops_with_the_engine() {
    let (env, log) = env("", "utf-16", "");
    let list = env.ok("lsp-list", json!({}));
    let python = |l: &serde_json::Value| {
        l["data"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["language"] == "python")
            .unwrap()
            .clone()
    };
    assert_eq!(python(&list)["running"], false);
    assert!(python(&list)["source"]
        .as_str()
        .unwrap()
        .ends_with("lsp.toml"));
    assert_eq!(python(&list)["installed"], true);
    env.ok("read-var", json!({"file": "app.py", "var": "total"}));
    let list = env.ok("lsp-list", json!({}));
    assert_eq!(python(&list)["running"], true, "{list:#}");
    let pid = python(&list)["pid"].as_u64().unwrap();
    assert!(alive(pid));
    drop(env);
    assert!(
        eventually(5, || !alive(pid)),
        "the server outlived its engine"
    );
    let methods: Vec<_> = server_log(&log)
        .iter()
        .map(|e| e["payload"]["method"].clone())
        .collect();
    assert!(
        methods.contains(&json!("shutdown")) && methods.contains(&json!("exit")),
        "{methods:?}"
    );
}

#[test]
fn an_unused_server_is_stopped_after_its_idle_time() {
    let (env, _) = env("", "utf-16", "idle_seconds = 1\n");
    env.ok("read-var", json!({"file": "app.py", "var": "total"}));
    let running = || {
        env.ok("lsp-list", json!({}))["data"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["running"] == true)
    };
    assert!(running());
    assert!(
        eventually(6, || !running()),
        "still running after its idle time"
    );
    // The engine's log says both, for the editor's output panel.
    let log = env.ok("log", json!({"level": "info"}));
    let lines: Vec<&str> = log["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"] == "lsp")
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].contains("started for") && lines[0].contains(" ms"),
        "{lines:?}"
    );
    assert!(lines[1].contains("stopped: unused for 1 s"), "{lines:?}");
}

#[test]
fn a_file_rename_takes_the_servers_edits_and_tells_it_after() {
    let (env, log) = env("", "utf-16", "");
    let r = env.ok(
        "rename-file",
        json!({"from": "util.py", "to": "helpers.py"}),
    );
    assert_eq!(r["data"]["engine"], "lsp", "{r:#}");
    assert_eq!(env.read("util.py"), None);
    assert_eq!(env.read("helpers.py").unwrap(), UTIL);
    assert!(env
        .read("app.py")
        .unwrap()
        .starts_with("from helpers import total\n"));
    assert!(eventually(5, || server_log(&log)
        .iter()
        .any(|e| e["payload"]["method"] == "workspace/didRenameFiles")));
    let undo = env.call_tagged("undo", json!({}), r["tag"].as_str());
    assert_eq!(undo["ok"], true, "{undo:#}");
    assert_eq!(env.read("util.py").unwrap(), UTIL);
    assert_eq!(env.read("helpers.py"), None);
    assert_eq!(env.read("app.py").unwrap(), APP);
}

#[test]
fn references_in_a_fifo_a_device_or_outside_are_dropped_unread() {
    let (env, _) = env("badrefs", "utf-16", "");
    // A FIFO in the workspace (an open would block), and a file outside.
    let fifo = std::ffi::CString::new(env.root.join("pipe.fifo").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::fs::write(env.root.parent().unwrap().join("outside.py"), "total = 2\n").unwrap();
    // The server also answers /dev/zero, which would be read until memory
    // runs out: the answer comes, with the real references only.
    let r = env.ok("read-var", json!({"file": "util.py", "var": "total"}));
    let found = places(&r["data"]);
    assert_eq!(found.len(), 6, "{r:#}");
    assert!(
        found
            .iter()
            .all(|(file, ..)| file == "app.py" || file == "util.py"),
        "{found:?}"
    );
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("2 references outside the workspace are left out"),
        "{warnings}"
    );
}
