//! Language servers in an untrusted workspace: only what cannot run the
//! workspace's own code starts.
//!
//! Some servers run code a cloned repository ships: typescript-language-server
//! prefers the workspace's `node_modules/typescript` (its `tsserver.js` is
//! run), rust-analyzer runs build scripts, proc macros and the cargo
//! configuration's programs, Python servers run the workspace's interpreter
//! (a `.venv`, a `pyrightconfig.json` or `.jedi/project.json` naming one),
//! lua-language-server loads the plugin a `.luarc.json` names, gopls runs
//! the go command (a `go.mod` toolchain line, cgo's `pkg-config`). In an
//! untrusted workspace typescript-language-server is pinned to the
//! TypeScript installed next to it (`initializationOptions.tsserver.path`),
//! and the others are not started: the syntax fallback answers, and says
//! why. A server whose program lies inside the workspace is never started
//! there. Servers the user's own `lsp.toml` names under another program run
//! as configured.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::servers::ServerSpec;

/// The servers (by program name) that run a workspace's code, and how.
const RUNS_WORKSPACE_CODE: &[(&str, &str)] = &[
    (
        "rust-analyzer",
        "it runs the workspace's build scripts, proc macros and cargo configuration",
    ),
    (
        "basedpyright-langserver",
        "it runs the workspace's Python interpreter",
    ),
    (
        "pyright-langserver",
        "it runs the workspace's Python interpreter",
    ),
    (
        "jedi-language-server",
        "it runs the workspace's Python interpreter",
    ),
    ("pylsp", "it runs the workspace's Python interpreter"),
    (
        "lua-language-server",
        "it loads the plugin the workspace's `.luarc.json` names",
    ),
    (
        "gopls",
        "it runs the go command, which follows the workspace's `go.mod` toolchain line and cgo directives",
    ),
];

/// The program name of typescript-language-server.
const TYPESCRIPT_SERVER: &str = "typescript-language-server";

/// Makes `specs` safe for the untrusted `workspace`: each server that would
/// run the workspace's code gets the reason it is not started
/// ([`ServerSpec::blocked`]); typescript-language-server is pinned to its
/// own TypeScript, or blocked when that cannot be found.
pub(super) fn confine(specs: &mut [ServerSpec], workspace: &Path) {
    let real_workspace = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_owned());
    let not_trusted = format!(
        "the workspace {} is not trusted (`rad trust` in it allows it)",
        workspace.display()
    );
    for spec in specs.iter_mut().filter(|s| !s.command.is_empty()) {
        let name = spec.name();
        let real_program = spec.program.as_deref().and_then(|p| p.canonicalize().ok());
        if real_program
            .as_deref()
            .is_some_and(|p| p.starts_with(&real_workspace))
        {
            spec.blocked = Some(format!(
                "`{name}` is not started: its program is inside the workspace, and {not_trusted}"
            ));
        } else if let Some((_, how)) = RUNS_WORKSPACE_CODE.iter().find(|(n, _)| *n == name) {
            spec.blocked = Some(format!("`{name}` is not started: {how}, and {not_trusted}"));
        } else if name == TYPESCRIPT_SERVER {
            let own = real_program
                .as_deref()
                .and_then(own_typescript)
                .filter(|lib| !lib.starts_with(&real_workspace));
            match own {
                Some(lib) => pin_tsserver(&mut spec.init_options, &lib),
                None => {
                    spec.blocked = Some(format!(
                        "`{name}` is not started: no TypeScript was found next to it, so it would run the workspace's `node_modules/typescript`, and {not_trusted}"
                    ));
                }
            }
        }
    }
}

/// The `lib` folder of the TypeScript installed next to the server whose
/// program really is `program`: the first `node_modules/typescript/lib`
/// holding `tsserver.js` in a folder above it (Node's own search order).
fn own_typescript(program: &Path) -> Option<PathBuf> {
    program
        .ancestors()
        .skip(1)
        .map(|dir| dir.join("node_modules/typescript/lib"))
        .find(|lib| lib.join("tsserver.js").is_file())
}

/// Sets `tsserver.path` of `initializationOptions` to `lib`, keeping the
/// other options.
fn pin_tsserver(options: &mut Value, lib: &Path) {
    if !options.is_object() {
        *options = json!({});
    }
    let tsserver = &mut options["tsserver"];
    if !tsserver.is_object() {
        *tsserver = json!({});
    }
    tsserver["path"] = json!(lib.join("tsserver.js"));
}

#[cfg(test)]
mod tests {
    use super::{own_typescript, pin_tsserver};
    use serde_json::json;

    #[test]
    fn the_typescript_next_to_the_server_is_found_and_pinned() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ts = dir.path().join("ts");
        let cli = ts.join("node_modules/typescript-language-server/lib/cli.mjs");
        std::fs::create_dir_all(cli.parent().expect("parent")).expect("dirs");
        std::fs::write(&cli, "").expect("cli");
        assert_eq!(own_typescript(&cli), None, "no TypeScript yet");
        let lib = ts.join("node_modules/typescript/lib");
        std::fs::create_dir_all(&lib).expect("lib");
        std::fs::write(lib.join("tsserver.js"), "").expect("tsserver");
        assert_eq!(own_typescript(&cli), Some(lib.clone()));
        let mut options = json!({"preferences": {"quotePreference": "single"}});
        pin_tsserver(&mut options, &lib);
        assert_eq!(options["tsserver"]["path"], json!(lib.join("tsserver.js")));
        assert_eq!(options["preferences"]["quotePreference"], "single");
        let mut none = serde_json::Value::Null;
        pin_tsserver(&mut none, &lib);
        assert!(none["tsserver"]["path"].is_string());
    }
}
