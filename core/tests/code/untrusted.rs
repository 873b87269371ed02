//! Language servers in an untrusted workspace: a server that would run the
//! workspace's code (rust-analyzer, Python servers) is not started; the
//! syntax fallback answers and says why. (typescript-language-server pinned
//! to its own TypeScript is checked with the real server in `real.rs`.)

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::{eventually, Env};

const RS: [(&str, &str); 1] = [("src/lib.rs", "pub fn total() -> u32 {\n    1\n}\n")];

/// A program named `rust-analyzer` that writes `marker` when it runs (as
/// the real one would run the workspace's build scripts).
fn fake_rust_analyzer(dir: &std::path::Path, marker: &std::path::Path) -> String {
    let program = dir.join("rust-analyzer");
    std::fs::write(
        &program,
        format!("#!/bin/sh\necho ran > '{}'\nexit 1\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    program.display().to_string()
}

#[test]
fn a_server_that_runs_workspace_code_is_not_started_until_the_workspace_is_trusted() {
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("ran");
    let program = fake_rust_analyzer(bin.path(), &marker);
    let env = Env::new(&RS, &format!("[rust]\ncommand = [{program:?}]\n"));
    let r = env.ok("read-var", json!({"file": "src/lib.rs", "var": "total"}));
    assert_eq!(r["data"]["engine"], "syntax", "{r:#}");
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("`rust-analyzer` is not started: it runs the workspace's build scripts"),
        "{warnings}"
    );
    assert!(
        warnings.contains("is not trusted (`rad trust` in it allows it)"),
        "{warnings}"
    );
    assert!(
        warnings.contains("the syntax fallback answers"),
        "{warnings}"
    );
    // Asking for a server says why there is none.
    let r = env.call(
        "read-var",
        json!({"file": "src/lib.rs", "var": "total", "engine": "lsp"}),
    );
    assert_eq!(r["code"], "not_found", "{r:#}");
    assert!(
        r["error"].as_str().unwrap().contains("is not started"),
        "{r:#}"
    );
    // `lsp-list` shows it.
    let list = env.ok("lsp-list", json!({}));
    let rust = list["data"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["language"] == "rust")
        .unwrap()
        .clone();
    assert!(
        rust["blocked"].as_str().unwrap().contains("not trusted"),
        "{rust:#}"
    );
    assert!(!marker.exists(), "the server ran in an untrusted workspace");

    env.trust();
    let _ = env.call("read-var", json!({"file": "src/lib.rs", "var": "total"}));
    assert!(eventually(30, || marker.exists()), "trusted, it runs");
}

#[test]
fn a_server_program_inside_the_untrusted_workspace_is_not_started() {
    let env = Env::new(&RS, "");
    let marker = env.dir.path().join("ran");
    let program = fake_rust_analyzer(&env.root, &marker);
    let inside = env.root.join("tools/clangd");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::rename(&program, &inside).unwrap();
    std::fs::write(env.root.join("a.c"), "int total = 1;\n").unwrap();
    std::fs::write(
        env.home.join("lsp.toml"),
        format!("[c]\ncommand = [{:?}]\n", inside.display().to_string()),
    )
    .unwrap();
    let r = env.ok("read-var", json!({"file": "a.c", "var": "total"}));
    assert!(
        r["warnings"]
            .to_string()
            .contains("its program is inside the workspace"),
        "{r:#}"
    );
    assert!(!marker.exists());
}
