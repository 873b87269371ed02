//! Without a server: the syntax-tree fallback, the import rewrites of
//! `rename-file`, the tool hooks around the commands, and bad input.

use radium_core::{FnHook, HookResult, HookType};
use serde_json::json;

use super::{places, Env};

/// No server for any language radium knows.
pub(crate) const NO_SERVERS: &str = "[python]\ndisabled = true\n[typescript]\ndisabled = true\n[rust]\ndisabled = true\n[lua]\ndisabled = true\n";

#[test]
fn a_name_in_a_comment_or_a_string_is_not_renamed() {
    let app = "# count the total\ntotal = 0\nprint(\"total\", total)  # total\n";
    let env = Env::new(
        &[
            ("app.py", app),
            ("b.py", "from app import total\n'''total'''\n"),
        ],
        NO_SERVERS,
    );
    let r = env.ok("read-var", json!({"file": "app.py", "var": "total"}));
    assert_eq!(r["data"]["engine"], "syntax");
    assert!(
        r["warnings"].to_string().contains("not type-aware"),
        "{r:#}"
    );
    assert_eq!(
        places(&r["data"]),
        [
            ("app.py".into(), 2, 1),
            ("app.py".into(), 3, 16),
            ("b.py".into(), 1, 17)
        ]
    );
    assert_eq!(r["data"]["definition"]["line"], 2);
    let r = env.ok(
        "modify-var",
        json!({"file": "app.py", "from": "total", "to": "sum_"}),
    );
    assert_eq!(r["data"]["engine"], "syntax");
    assert_eq!(
        env.read("app.py").unwrap(),
        "# count the total\nsum_ = 0\nprint(\"total\", sum_)  # total\n"
    );
    assert_eq!(
        env.read("b.py").unwrap(),
        "from app import sum_\n'''total'''\n"
    );
    env.ok("undo", json!({}));
    assert_eq!(env.read("app.py").unwrap(), app);
}

#[test]
fn the_fallback_keeps_a_rename_to_the_name_s_scope() {
    let app = "total = 0\n\n\ndef add(total, n):\n    return total + n\n\n\ndef show():\n    return total\n";
    let env = Env::new(
        &[
            ("app.py", app),
            (
                "b.py",
                "from app import total\n\n\ndef f(total):\n    return total\n",
            ),
        ],
        NO_SERVERS,
    );
    // The module's name: not the parameters that shadow it, here or in b.py.
    let r = env.ok(
        "modify-var",
        json!({"file": "app.py", "from": "total", "to": "grand", "line": 1}),
    );
    assert_eq!(r["data"]["engine"], "syntax", "{r:#}");
    assert_eq!(
        env.read("app.py").unwrap(),
        "grand = 0\n\n\ndef add(total, n):\n    return total + n\n\n\ndef show():\n    return grand\n"
    );
    assert_eq!(
        env.read("b.py").unwrap(),
        "from app import grand\n\n\ndef f(total):\n    return total\n"
    );
    env.ok("undo", json!({}));
    // The parameter: its function only.
    let r = env.ok(
        "read-var",
        json!({"file": "app.py", "var": "total", "line": 5}),
    );
    assert_eq!(
        places(&r["data"]),
        [("app.py".into(), 4, 9), ("app.py".into(), 5, 12)],
        "{r:#}"
    );
    assert_eq!(r["data"]["definition"]["line"], 4);
}

#[test]
fn a_column_picks_which_of_two_names_on_a_line_is_renamed() {
    let text = "let a = 1; function g(a) { return a; }\nconsole.log(a);\n";
    let env = Env::new(&[("m.js", text)], NO_SERVERS);
    let rename = |column: u64| {
        env.ok(
            "modify-var",
            json!({"file": "m.js", "from": "a", "to": "b", "line": 1, "column": column}),
        );
        let after = env.read("m.js").unwrap();
        env.ok("undo", json!({}));
        after
    };
    // The parameter (its first character, and just after its last).
    assert_eq!(
        rename(23),
        "let a = 1; function g(b) { return b; }\nconsole.log(a);\n"
    );
    assert_eq!(
        rename(24),
        "let a = 1; function g(b) { return b; }\nconsole.log(a);\n"
    );
    assert_eq!(
        rename(5),
        "let b = 1; function g(a) { return a; }\nconsole.log(b);\n"
    );
    assert_eq!(env.read("m.js").unwrap(), text);
}

#[test]
fn a_language_without_a_grammar_is_searched_as_words_and_says_so() {
    let env = Env::new(
        &[
            ("a.go", "package a\n// total\nvar total = 1\n"),
            ("b.go", "package a\nvar x = total\n"),
        ],
        "",
    );
    let r = env.ok(
        "read-var",
        json!({"file": "a.go", "var": "total", "engine": "syntax"}),
    );
    assert_eq!(r["data"]["engine"], "text");
    assert!(r["warnings"].to_string().contains("plain words"), "{r:#}");
    assert_eq!(places(&r["data"]).len(), 3);
}

#[test]
fn moving_a_ts_module_updates_every_import_form_and_its_own_imports() {
    let files = [
        ("src/lib/math.ts", "import { helper } from \"../helper\";\nexport const count = helper(1);\n"),
        ("src/helper.ts", "export function helper(n: number) { return n; }\n"),
        ("src/index.ts", "import { count } from './lib/math';\nexport * from \"./lib/math\";\nexport { count as c } from './lib/math.js';\nconst m = require('./lib/math');\nconst d = import(\"./lib/math\");\n// './lib/math' in a comment\nconst s = './lib/math';\n"),
        ("src/lib/other.js", "const { count } = require(\"./math\");\n"),
    ];
    let env = Env::new(&files, NO_SERVERS);
    let r = env.ok(
        "rename-file",
        json!({"from": "src/lib/math.ts", "to": "src/util/calc.ts"}),
    );
    assert_eq!(r["data"]["engine"], "syntax", "{r:#}");
    assert_eq!(
        env.read("src/index.ts").unwrap(),
        "import { count } from './util/calc';\nexport * from \"./util/calc\";\nexport { count as c } from './util/calc.js';\nconst m = require('./util/calc');\nconst d = import(\"./util/calc\");\n// './lib/math' in a comment\nconst s = './lib/math';\n"
    );
    assert_eq!(
        env.read("src/lib/other.js").unwrap(),
        "const { count } = require(\"../util/calc\");\n"
    );
    assert_eq!(
        env.read("src/util/calc.ts").unwrap(),
        "import { helper } from \"../helper\";\nexport const count = helper(1);\n"
    );
    assert_eq!(env.read("src/lib/math.ts"), None);
    env.ok("undo", json!({}));
    for (path, text) in files {
        assert_eq!(env.read(path).as_deref(), Some(text), "{path}");
    }
    assert_eq!(env.read("src/util/calc.ts"), None);
}

#[test]
fn moving_a_python_module_updates_imports_relative_imports_and_dotted_uses() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/util.py", "from .base import B\nVALUE = B\n"),
        ("pkg/base.py", "B = 1\n"),
        ("pkg/sibling.py", "from .util import VALUE\nfrom . import util\n"),
        ("main.py", "import pkg.util\nfrom pkg.util import VALUE\nfrom pkg import util\nprint(pkg.util.VALUE)\n"),
    ];
    let env = Env::new(&files, NO_SERVERS);
    env.ok(
        "rename-file",
        json!({"from": "pkg/util.py", "to": "core/tools.py"}),
    );
    assert_eq!(
        env.read("main.py").unwrap(),
        "import core.tools\nfrom core.tools import VALUE\nfrom core import tools\nprint(core.tools.VALUE)\n"
    );
    assert_eq!(
        env.read("pkg/sibling.py").unwrap(),
        "from core.tools import VALUE\nfrom core import tools\n"
    );
    // Its own relative import, from another package now.
    assert_eq!(
        env.read("core/tools.py").unwrap(),
        "from pkg.base import B\nVALUE = B\n"
    );
    env.ok("undo", json!({}));
    for (path, text) in files {
        assert_eq!(env.read(path).as_deref(), Some(text), "{path}");
    }
}

#[test]
fn moving_lua_and_rust_modules_updates_require_mod_and_paths() {
    let files = [
        ("lua/plug/util.lua", "return {}\n"),
        ("lua/plug/init.lua", "local util = require(\"plug.util\")\nlocal u2 = require 'plug.util'\nlocal other = require(\"plug.utility\")\n"),
        ("src/main.rs", "mod parse;\nuse crate::parse::run;\nfn main() { parse::run(); crate::parse::run(); }\n"),
        ("src/parse.rs", "pub fn run() {}\n"),
    ];
    let env = Env::new(&files, NO_SERVERS);
    env.ok(
        "rename-file",
        json!({"from": "lua/plug/util.lua", "to": "lua/plug/helpers.lua"}),
    );
    assert_eq!(
        env.read("lua/plug/init.lua").unwrap(),
        "local util = require(\"plug.helpers\")\nlocal u2 = require 'plug.helpers'\nlocal other = require(\"plug.utility\")\n"
    );
    env.ok(
        "rename-file",
        json!({"from": "src/parse.rs", "to": "src/parser.rs"}),
    );
    assert_eq!(
        env.read("src/main.rs").unwrap(),
        "mod parser;\nuse crate::parser::run;\nfn main() { parser::run(); crate::parser::run(); }\n"
    );
}

#[test]
fn the_tool_hooks_run_around_each_code_command() {
    let env = Env::new(&[("app.py", "total = 1\n")], NO_SERVERS);
    env.engine
        .registry()
        .register(FnHook::new("no-renames", HookType::BeforeTool, |ctx| {
            if ctx.data["tool_name"] == "modify-var" {
                Ok(HookResult::stop("renames are reviewed by hand"))
            } else {
                Ok(HookResult::success())
            }
        }))
        .unwrap();
    let r = env.call(
        "modify-var",
        json!({"file": "app.py", "from": "total", "to": "t"}),
    );
    assert_eq!(r["code"], "refused", "{r:#}");
    assert!(r["error"]
        .as_str()
        .unwrap()
        .contains("renames are reviewed by hand"));
    assert_eq!(env.read("app.py").unwrap(), "total = 1\n");
    env.ok("read-var", json!({"file": "app.py", "var": "total"}));
}

#[test]
fn bad_input_is_refused_with_a_clear_error_and_nothing_written() {
    let env = Env::new(
        &[("app.py", "total = 1\n"), ("b.py", "x = 1\n")],
        NO_SERVERS,
    );
    let outside = env.dir.path().join("outside.py");
    std::fs::write(&outside, "total = 2\n").unwrap();
    let cases = [
        (
            "read-var",
            json!({"file": "nope.py", "var": "total"}),
            "not_found",
            "nope.py",
        ),
        (
            "read-var",
            json!({"file": "app.py", "var": "missing"}),
            "not_found",
            "does not occur",
        ),
        (
            "read-var",
            json!({"file": "app.py", "var": "total", "line": 9}),
            "invalid_argument",
            "line",
        ),
        (
            "read-var",
            json!({"file": "app.py", "var": "total", "column": 1}),
            "invalid_argument",
            "give both",
        ),
        (
            "read-var",
            json!({"file": "app.py", "var": "total", "line": 1, "column": 0}),
            "invalid_argument",
            "from 1",
        ),
        (
            "modify-var",
            json!({"file": "app.py", "from": "total", "to": "t", "line": 1, "column": 9}),
            "not_found",
            "column 9",
        ),
        (
            "read-var",
            json!({"file": "app.py", "var": "total", "line": 1, "column": "2"}),
            "invalid_argument",
            "column",
        ),
        (
            "read-var",
            json!({"file": outside, "var": "total"}),
            "outside_project",
            "outside",
        ),
        (
            "read-var",
            json!({"file": "app.py"}),
            "invalid_argument",
            "var",
        ),
        (
            "read-var",
            json!({"file": "app.py", "var": "total", "engine": "magic"}),
            "invalid_argument",
            "engine",
        ),
        (
            "modify-var",
            json!({"file": "app.py", "from": "total", "to": ""}),
            "invalid_argument",
            "to",
        ),
        (
            "modify-var",
            json!({"file": "app.py", "from": "total", "to": "total"}),
            "invalid_argument",
            "already",
        ),
        (
            "rename-file",
            json!({"from": "app.py", "to": "b.py"}),
            "edit",
            "already exists",
        ),
        (
            "rename-file",
            json!({"from": "gone.py", "to": "c.py"}),
            "not_found",
            "gone.py",
        ),
        (
            "rename-file",
            json!({"from": "app.py", "to": "../escape.py"}),
            "outside_project",
            "outside",
        ),
        ("lsp-list", json!([1]), "invalid_argument", "lsp-list"),
    ];
    for (command, args, code, text) in cases {
        let r = env.call(command, args.clone());
        assert_eq!(r["ok"], false, "{command} {args}: {r:#}");
        assert_eq!(r["code"], code, "{command} {args}: {r:#}");
        assert!(
            r["error"].as_str().unwrap().contains(text),
            "{command} {args}: {r:#}"
        );
    }
    assert_eq!(env.read("app.py").unwrap(), "total = 1\n");
    assert_eq!(env.read("b.py").unwrap(), "x = 1\n");
}

#[test]
fn a_broken_lsp_toml_is_an_error_with_its_line() {
    let env = Env::new(&[("app.py", "total = 1\n")], "[python]\ncommand = 3\n");
    let r = env.call("lsp-list", json!({}));
    assert_eq!(r["code"], "config", "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("lsp.toml:2"), "{r:#}");
}
