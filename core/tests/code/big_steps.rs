//! A rename across many files is one step: the history keeps it whole,
//! however many files it changed, so `undo` takes every file back.

use serde_json::json;

use super::fallback::NO_SERVERS;
use super::Env;

fn importer(i: usize, module: &str) -> String {
    format!("import {{ total }} from '{module}';\nexport const v{i} = total + {i};\n")
}

#[test]
fn undoing_a_rename_across_301_files_takes_every_file_back() {
    let mut files: Vec<(String, String)> = (0..300)
        .map(|i| (format!("src/f{i}.ts"), importer(i, "./lib")))
        .collect();
    files.push(("src/lib.ts".into(), "export const total = 1;\n".into()));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let env = Env::new(&borrowed, NO_SERVERS);
    let r = env.ok(
        "modify-var",
        json!({"file": "src/lib.ts", "from": "total", "to": "grand"}),
    );
    assert_eq!(r["data"]["engine"], "syntax", "{r:#}");
    for (path, _) in &files {
        assert!(
            env.read(path).unwrap().contains("grand"),
            "{path} is renamed"
        );
    }
    let undo = env.ok("undo", json!({}));
    assert_eq!(
        undo["data"]["undone"]["files"].as_array().unwrap().len(),
        301
    );
    for (path, text) in &files {
        assert_eq!(env.read(path).as_deref(), Some(text.as_str()), "{path}");
    }
    // And it comes back whole.
    env.ok("redo", json!({}));
    for (path, _) in &files {
        assert!(env.read(path).unwrap().contains("grand"), "{path}");
    }
}

#[test]
fn undoing_a_move_imported_by_150_files_takes_every_import_back() {
    // More files than the history's depth (100 steps) in one step.
    let mut files: Vec<(String, String)> = (0..150)
        .map(|i| (format!("src/f{i}.ts"), importer(i, "./lib")))
        .collect();
    files.push(("src/lib.ts".into(), "export const total = 1;\n".into()));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let env = Env::new(&borrowed, NO_SERVERS);
    env.ok(
        "rename-file",
        json!({"from": "src/lib.ts", "to": "src/util/calc.ts"}),
    );
    for i in 0..150 {
        assert_eq!(
            env.read(&format!("src/f{i}.ts")).unwrap(),
            importer(i, "./util/calc")
        );
    }
    env.ok("undo", json!({}));
    for (path, text) in &files {
        assert_eq!(env.read(path).as_deref(), Some(text.as_str()), "{path}");
    }
    assert_eq!(env.read("src/util/calc.ts"), None);
}
