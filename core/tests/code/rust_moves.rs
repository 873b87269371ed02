//! `rename-file` of a Rust module to another folder without a server: the
//! crate still compiles (`cargo check` before and after), the `mod` items
//! and the paths are the ones a person would write, and undo takes it back.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use super::Env;

const NO_SERVERS: &str = "[rust]\ndisabled = true\n";

const LIB: &str = "//! A demo crate.\npub mod a;\npub mod util;\npub mod x;\n\nuse crate::{a::run, util::VERSION};\n\n/// Everything.\npub fn top() -> u32 {\n    run() + VERSION + util::twice(1)\n}\n";
const A: &str = "mod b;\npub mod d;\n\npub use self::b::parse;\npub use b::LIMIT;\nuse crate::a::b::{helper, Token};\n\n/// Runs.\npub fn run() -> u32 {\n    b::parse(\"2\") + helper() + Token::default().0\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn runs() {\n        assert_eq!(super::b::LIMIT, 10);\n    }\n}\n";
const B: &str = "//! Parsing.\nuse super::d::Tokenizer;\n\n/// A token.\n#[derive(Default)]\npub struct Token(pub u32);\n/// The limit.\npub const LIMIT: u32 = 10;\n\n/// Parses.\npub fn parse(s: &str) -> u32 {\n    s.len() as u32 + Tokenizer::count() + self::helper() - helper()\n}\n\n/// Helps.\npub fn helper() -> u32 {\n    crate::a::b::LIMIT - LIMIT\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn parses() {\n        assert_eq!(parse(\"\"), helper());\n    }\n}\n";
const D: &str = "use crate::a::{b::Token, run};\n\n/// Counts.\npub struct Tokenizer;\n\nimpl Tokenizer {\n    /// Zero.\n    pub fn count() -> u32 {\n        super::b::LIMIT - 10\n    }\n}\n\n/// Twice.\npub fn twice() -> u32 {\n    assert!(super::b::parse(\"x\") > 0);\n    crate::a::b::parse(\"y\") * 2 + Token(0).0 + run() * 0\n}\n";
const X: &str = "//! Where things go.\n\n/// One.\npub fn here() -> u32 {\n    1\n}\n";
const UTIL: &str = "/// The version.\npub const VERSION: u32 = 3;\n\n/// Twice.\npub fn twice(n: u32) -> u32 {\n    n * 2\n}\n";
const TEST: &str = "use demo_lib::util;\n\n#[test]\nfn works() {\n    assert_eq!(util::twice(2), demo_lib::util::VERSION + 1);\n    assert!(demo_lib::top() > 0);\n}\n";

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("Cargo.toml", "[package]\nname = \"demo-lib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", LIB),
        ("src/a.rs", A),
        ("src/a/b.rs", B),
        ("src/a/d.rs", D),
        ("src/x.rs", X),
        ("src/util.rs", UTIL),
        ("tests/api.rs", TEST),
    ]
}

/// `cargo check` of the crate with its tests: its errors, or None.
fn check(root: &Path, target: &Path) -> Option<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--all-targets"])
        .env("CARGO_TARGET_DIR", target)
        // The fixture is checked by rustc alone, whatever compiler wrapper
        // the build running this test uses (the test command lints with
        // clippy-driver as RUSTC_WORKSPACE_WRAPPER).
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .current_dir(root)
        .output()
        .expect("cargo runs");
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_rust_module_moved_to_another_folder_keeps_the_crate_compiling() {
    let env = Env::new(&files(), NO_SERVERS);
    let target = env.dir.path().join("target");
    assert_eq!(check(&env.root, &target), None, "the fixture compiles");

    let moved = env.ok(
        "rename-file",
        json!({"from": "src/a/b.rs", "to": "src/x/c.rs"}),
    );
    assert_eq!(moved["data"]["engine"], "syntax", "{moved:#}");
    assert_eq!(check(&env.root, &target), None, "after a::b → x::c");
    assert_eq!(env.read("src/a/b.rs"), None);
    // The private module becomes `pub(crate)`: `a` and `a::d` name it.
    assert_eq!(
        env.read("src/x.rs").unwrap(),
        format!("//! Where things go.\npub(crate) mod c;\n{}", &X[21..])
    );
    assert_eq!(
        env.read("src/a.rs").unwrap(),
        "pub mod d;\n\npub use crate::x::c::parse;\npub use crate::x::c::LIMIT;\nuse crate::x::c::{helper, Token};\n\n/// Runs.\npub fn run() -> u32 {\n    crate::x::c::parse(\"2\") + helper() + Token::default().0\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn runs() {\n        assert_eq!(crate::x::c::LIMIT, 10);\n    }\n}\n"
    );
    // A `use` list item that named it leaves the list for a line of its
    // own; `super::b` in a sibling and in a macro call are rewritten.
    assert_eq!(
        env.read("src/a/d.rs").unwrap(),
        D.replace(
            "use crate::a::{b::Token, run};",
            "use crate::a::{run};\nuse crate::x::c::Token;"
        )
        .replace("super::b::", "crate::x::c::")
        .replace("crate::a::b::", "crate::x::c::")
    );
    // Its own `super::` is written from the crate; `self::` stays, and so
    // does `super::*` in its inline test module (that `super` moves along).
    assert_eq!(
        env.read("src/x/c.rs").unwrap(),
        B.replace("use super::d::", "use crate::a::d::")
            .replace("crate::a::b::LIMIT", "crate::x::c::LIMIT")
    );

    // A public module moved down a level, named by the crate's tests by
    // the crate's name and through a `use` of the module.
    env.ok(
        "rename-file",
        json!({"from": "src/util.rs", "to": "src/x/tools.rs"}),
    );
    assert_eq!(check(&env.root, &target), None, "after util → x::tools");
    assert_eq!(
        env.read("tests/api.rs").unwrap(),
        "use demo_lib::x::tools;\n\n#[test]\nfn works() {\n    assert_eq!(tools::twice(2), demo_lib::x::tools::VERSION + 1);\n    assert!(demo_lib::top() > 0);\n}\n"
    );
    assert!(env
        .read("src/x.rs")
        .unwrap()
        .contains("pub(crate) mod c;\npub mod tools;\n"));
    assert!(env
        .read("src/lib.rs")
        .unwrap()
        .contains("pub mod a;\npub mod x;\n\nuse crate::{a::run, x::tools::VERSION};\n"));

    env.ok("undo", json!({}));
    env.ok("undo", json!({}));
    for (path, text) in files() {
        assert_eq!(env.read(path).as_deref(), Some(text), "{path} after undo");
    }
    assert_eq!(env.read("src/x/c.rs"), None);
    assert_eq!(check(&env.root, &target), None, "after undo");
}

#[test]
fn a_rust_module_renamed_in_its_folder_follows_its_imports() {
    let env = Env::new(&files(), NO_SERVERS);
    env.ok(
        "rename-file",
        json!({"from": "src/a/b.rs", "to": "src/a/parser.rs"}),
    );
    // Renamed in place: relative paths stay relative.
    assert_eq!(
        env.read("src/a.rs").unwrap(),
        A.replace("mod b;", "mod parser;")
            .replace("b::", "parser::")
    );
    assert!(env
        .read("src/a/d.rs")
        .unwrap()
        .contains("use crate::a::{parser::Token, run};"));
    assert!(env
        .read("src/a/d.rs")
        .unwrap()
        .contains("assert!(super::parser::parse(\"x\") > 0);"));
    let target = env.dir.path().join("target");
    assert_eq!(check(&env.root, &target), None, "after a::b → a::parser");
}

#[test]
fn rust_moves_that_cannot_be_followed_say_so() {
    let env = Env::new(&files(), NO_SERVERS);
    let moved = env.ok(
        "rename-file",
        json!({"from": "src/util.rs", "to": "src/fresh/util.rs"}),
    );
    let warnings = moved["warnings"].to_string();
    assert!(
        warnings.contains("no file holds the module `fresh`: declare `pub mod util;` in it"),
        "{warnings}"
    );
    std::fs::write(env.root.join("src/x.rs"), "pub(super) fn near() {}\n").unwrap();
    let moved = env.ok(
        "rename-file",
        json!({"from": "src/x.rs", "to": "src/a/x.rs"}),
    );
    assert!(
        moved["warnings"]
            .to_string()
            .contains("now visible to its new parent"),
        "{moved:#}"
    );
    let moved = env.ok("rename-file", json!({"from": "src/a.rs", "to": "src/e.rs"}));
    assert!(
        moved["warnings"].to_string().contains("submodules in"),
        "{moved:#}"
    );
    assert!(env
        .read("src/lib.rs")
        .unwrap()
        .starts_with("//! A demo crate.\npub mod e;\n"));
}
