//! Real language servers: jedi-language-server (PyPI) and
//! typescript-language-server 5.3.0 with TypeScript 5.9 (npm), installed by
//! scripts/ensure-lsp.sh and run by scripts/test-lsp.sh, which gives their
//! folder in `RADIUM_LSP_BIN`. Run without it, these tests fail: they are
//! never skipped in silence.

use serde_json::json;

use super::{places, Env};

fn bin(name: &str) -> String {
    let dir = std::env::var("RADIUM_LSP_BIN")
        .expect("RADIUM_LSP_BIN must name the folder of the real servers (scripts/test-lsp.sh)");
    let path = std::path::Path::new(&dir).join(name);
    assert!(path.exists(), "{} is missing", path.display());
    path.display().to_string()
}

const PY: [(&str, &str); 4] = [
    ("shop/__init__.py", ""),
    ("shop/prices.py", "# total: the sum of prices\ntotal = 10\n\n\ndef add(n):\n    return total + n\n"),
    ("shop/cart.py", "from shop.prices import total, add\n\n\ndef checkout():\n    print(\"total\", total)\n    return add(total)\n"),
    ("report.py", "import shop.prices\n\nprint(shop.prices.total * 2)\n"),
];

fn python() -> Env {
    let toml = format!("[python]\ncommand = [{:?}]\n", bin("jedi-language-server"));
    let env = Env::new(&PY, &toml);
    // Python servers run the workspace's interpreter: trusted workspaces only.
    env.trust();
    env
}

#[test]
#[ignore = "run by scripts/test-lsp.sh with real servers"]
fn jedi_references_across_files() {
    let env = python();
    let r = env.ok(
        "read-var",
        json!({"file": "shop/cart.py", "var": "total", "line": 5}),
    );
    assert_eq!(r["data"]["engine"], "lsp", "{r:#}");
    assert_eq!(r["data"]["server"], "jedi-language-server");
    let got = places(&r["data"]);
    for want in [
        ("shop/prices.py", 2, 1),
        ("shop/prices.py", 6, 12),
        ("shop/cart.py", 5, 20),
        ("report.py", 3, 19),
    ] {
        assert!(
            got.contains(&(want.0.into(), want.1, want.2)),
            "{want:?} in {got:?}"
        );
    }
    assert_eq!(r["data"]["definition"]["file"], "shop/prices.py");
    assert_eq!(r["data"]["definition"]["line"], 2);
}

#[test]
#[ignore = "run by scripts/test-lsp.sh with real servers"]
fn jedi_renames_across_three_files_then_undo() {
    let env = python();
    let r = env.ok(
        "modify-var",
        json!({"file": "shop/prices.py", "from": "total", "to": "grand_total"}),
    );
    assert_eq!(r["data"]["engine"], "lsp", "{r:#}");
    assert_eq!(r["data"]["files"].as_array().unwrap().len(), 3, "{r:#}");
    let prices = env.read("shop/prices.py").unwrap();
    assert_eq!(prices, "# total: the sum of prices\ngrand_total = 10\n\n\ndef add(n):\n    return grand_total + n\n");
    assert!(env
        .read("shop/cart.py")
        .unwrap()
        .contains("print(\"total\", grand_total)"));
    assert!(env
        .read("report.py")
        .unwrap()
        .contains("shop.prices.grand_total"));
    let undo = env.call_tagged("undo", json!({}), r["tag"].as_str());
    assert_eq!(undo["ok"], true, "{undo:#}");
    for (path, text) in PY {
        assert_eq!(env.read(path).as_deref(), Some(text), "{path}");
    }
}

#[test]
#[ignore = "run by scripts/test-lsp.sh with real servers"]
fn a_python_file_rename_updates_its_importers_then_undo() {
    let env = python();
    let r = env.ok(
        "rename-file",
        json!({"from": "shop/prices.py", "to": "shop/pricing.py"}),
    );
    assert!(
        env.read("shop/cart.py")
            .unwrap()
            .starts_with("from shop.pricing import total, add\n"),
        "{r:#}"
    );
    assert_eq!(
        env.read("report.py").unwrap(),
        "import shop.pricing\n\nprint(shop.pricing.total * 2)\n"
    );
    // The server follows the move: a query on the new path works.
    let q = env.ok(
        "read-var",
        json!({"file": "shop/cart.py", "var": "total", "line": 5}),
    );
    assert!(
        places(&q["data"]).contains(&("shop/pricing.py".into(), 2, 1)),
        "{q:#}"
    );
    env.ok("undo", json!({}));
    for (path, text) in PY {
        assert_eq!(env.read(path).as_deref(), Some(text), "{path}");
    }
}

const TS: [(&str, &str); 5] = [
    ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"module\": \"commonjs\"}, \"include\": [\"src\"]}\n"),
    ("src/lib/math.ts", "import { clamp } from \"../clamp\";\n// count: how many\nexport const count = clamp(1);\nexport function bump(n: number): number {\n  return count + n;\n}\n"),
    ("src/clamp.ts", "export function clamp(n: number): number {\n  return Math.max(0, n);\n}\n"),
    ("src/index.ts", "import { count, bump } from \"./lib/math\";\nexport * from \"./lib/math\";\nconsole.log(\"count\", count, bump(count));\n"),
    ("src/view.ts", "import { count } from \"./lib/math\";\nexport const label = `n=${count}`;\n"),
];

fn typescript() -> Env {
    let toml = format!(
        "[typescript]\ncommand = [{:?}, \"--stdio\"]\n",
        bin("typescript-language-server")
    );
    Env::new(&TS, &toml)
}

#[test]
#[ignore = "run by scripts/test-lsp.sh with real servers"]
fn typescript_references_and_a_rename_across_three_files_then_undo() {
    let env = typescript();
    let r = env.ok("read-var", json!({"file": "src/index.ts", "var": "count"}));
    assert_eq!(r["data"]["engine"], "lsp", "{r:#}");
    let got = places(&r["data"]);
    for want in [
        ("src/lib/math.ts", 3, 14),
        ("src/lib/math.ts", 5, 10),
        ("src/view.ts", 2, 27),
        ("src/index.ts", 3, 22),
    ] {
        assert!(
            got.contains(&(want.0.into(), want.1, want.2)),
            "{want:?} in {got:?}"
        );
    }
    assert_eq!(r["data"]["definition"]["file"], "src/lib/math.ts");
    let r = env.ok(
        "modify-var",
        json!({"file": "src/lib/math.ts", "from": "count", "to": "total"}),
    );
    assert_eq!(r["data"]["files"].as_array().unwrap().len(), 3, "{r:#}");
    let math = env.read("src/lib/math.ts").unwrap();
    assert!(
        math.contains("// count: how many\nexport const total = clamp(1);")
            && math.contains("return total + n;"),
        "{math}"
    );
    assert!(env.read("src/view.ts").unwrap().contains("${total}"));
    assert!(env
        .read("src/index.ts")
        .unwrap()
        .contains("console.log(\"count\", total, bump(total));"));
    env.ok("undo", json!({}));
    for (path, text) in TS {
        assert_eq!(env.read(path).as_deref(), Some(text), "{path}");
    }
}

#[test]
#[ignore = "run by scripts/test-lsp.sh with real servers"]
fn a_typescript_file_rename_updates_re_exports_and_its_own_imports_then_undo() {
    let env = typescript();
    let r = env.ok(
        "rename-file",
        json!({"from": "src/lib/math.ts", "to": "src/util/calc.ts"}),
    );
    assert_eq!(r["data"]["engine"], "lsp", "{r:#}");
    let index = env.read("src/index.ts").unwrap();
    assert!(
        index.starts_with(
            "import { count, bump } from \"./util/calc\";\nexport * from \"./util/calc\";"
        ),
        "{index}"
    );
    assert!(env
        .read("src/view.ts")
        .unwrap()
        .starts_with("import { count } from \"./util/calc\";"));
    assert!(env
        .read("src/util/calc.ts")
        .unwrap()
        .starts_with("import { clamp } from \"../clamp\";"));
    assert_eq!(env.read("src/lib/math.ts"), None);
    env.ok("undo", json!({}));
    for (path, text) in TS {
        assert_eq!(env.read(path).as_deref(), Some(text), "{path}");
    }
}

/// A workspace that ships its own `node_modules/typescript` whose
/// `tsserver.js` writes `marker` when it is run.
fn typescript_shipping_its_own_tsserver(marker: &std::path::Path) -> Env {
    let tsserver = format!(
        "require('fs').writeFileSync({:?}, 'ran');\nprocess.exit(1);\n",
        marker.display().to_string()
    );
    let files = [
        ("a.ts", "export const total = 1;\nconsole.log(total);\n"),
        (
            "node_modules/typescript/package.json",
            "{\"name\": \"typescript\", \"version\": \"5.9.2\"}\n",
        ),
        ("node_modules/typescript/lib/tsserver.js", tsserver.as_str()),
    ];
    let toml = format!(
        "[typescript]\ncommand = [{:?}, \"--stdio\"]\n",
        bin("typescript-language-server")
    );
    Env::new(&files, &toml)
}

#[test]
#[ignore = "run by scripts/test-lsp.sh with real servers"]
fn an_untrusted_workspaces_own_tsserver_is_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("tsserver-ran");
    let env = typescript_shipping_its_own_tsserver(&marker);
    let r = env.ok("read-var", json!({"file": "a.ts", "var": "total"}));
    // radium's own TypeScript answers, and the workspace's never ran.
    assert_eq!(r["data"]["engine"], "lsp", "{r:#}");
    assert!(
        places(&r["data"]).contains(&("a.ts".into(), 2, 13)),
        "{r:#}"
    );
    assert!(!marker.exists(), "the workspace's tsserver.js ran");
    let list = env.ok("lsp-list", json!({}));
    let ts = list["data"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["language"] == "typescript")
        .unwrap()
        .clone();
    assert!(ts["blocked"].is_null(), "{ts:#}");

    // Trusted, the server may use the workspace's TypeScript (it restarts
    // with the workspace's choice).
    env.trust();
    let _ = env.call("read-var", json!({"file": "a.ts", "var": "total"}));
    assert!(
        super::eventually(60, || marker.exists()),
        "a trusted workspace's TypeScript is the server's choice"
    );
}
