//! Which language server serves which files: the default table, overridden
//! by `$RADIUM_HOME/lsp.toml` and then by the workspace's `.radium/lsp.toml`
//! (a trusted workspace only: the file names programs to run). In an
//! untrusted workspace only servers that cannot run its code start (see
//! `untrusted.rs`).
//!
//! ```toml
//! [python]
//! command = ["jedi-language-server"]
//! extensions = ["py", "pyi"]       # optional: the default table's
//! timeout_ms = 10000               # one request's time limit
//! idle_seconds = 600               # stopped after this long unused
//! open_workspace = false           # open every file of the language first
//! settings = { python = { analysis = { typeCheckingMode = "off" } } }
//!
//! [go]
//! disabled = true                  # no server: the syntax fallback
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::support::process::find_on_path;

/// The file name of the server table, in `$RADIUM_HOME` and in `.radium/`.
pub const LSP_FILE: &str = "lsp.toml";

/// A request's default time limit (the server is also asked to cancel it).
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// How long an unused server is kept running by default.
pub const DEFAULT_IDLE_SECONDS: u64 = 600;

/// One language's server, as the table says.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// The language (`python`, `typescript`, `rust`...).
    pub language: String,
    /// The program and its arguments (empty: no server for this language).
    pub command: Vec<String>,
    /// The file extensions it serves (without the dot).
    pub extensions: Vec<String>,
    /// Where the entry came from: `default`, or the path of an `lsp.toml`.
    pub source: String,
    /// One request's time limit, in milliseconds.
    pub timeout_ms: u64,
    /// How long it may stay unused before it is stopped, in seconds.
    pub idle_seconds: u64,
    /// Open every workspace file of the language before a query (servers
    /// that only know the files they were shown, like tsserver without a
    /// `tsconfig.json`).
    pub open_workspace: bool,
    /// The settings answered to `workspace/configuration`, by section.
    pub settings: Value,
    /// The `initializationOptions` of `initialize`.
    pub init_options: Value,
    /// Where the program was found, when it is installed.
    pub program: Option<PathBuf>,
    /// Why the server is not started in this workspace (an untrusted
    /// workspace and a server that would run its code); the syntax fallback
    /// answers instead.
    pub blocked: Option<String>,
}

impl ServerSpec {
    /// The server's name for messages (its program's file name).
    pub fn name(&self) -> String {
        self.command
            .first()
            .map(|c| {
                Path::new(c)
                    .file_name()
                    .map_or_else(|| c.clone(), |n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_default()
    }
}

/// A language, its extensions, and the servers to try in order.
type Default = (
    &'static str,
    &'static [&'static str],
    &'static [&'static [&'static str]],
);

/// The built-in table (the first installed server of a language is used).
const DEFAULTS: &[Default] = &[
    ("rust", &["rs"], &[&["rust-analyzer"]]),
    (
        "python",
        &["py", "pyi"],
        &[
            &["basedpyright-langserver", "--stdio"],
            &["pyright-langserver", "--stdio"],
            &["jedi-language-server"],
            &["pylsp"],
        ],
    ),
    (
        "typescript",
        &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"],
        &[&["typescript-language-server", "--stdio"]],
    ),
    (
        "c",
        &["c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"],
        &[&["clangd"]],
    ),
    ("go", &["go"], &[&["gopls"]]),
    ("lua", &["lua"], &[&["lua-language-server"]]),
];

/// Where `program` (a name on `PATH`, or a path) is, if it is installed.
fn locate(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return path.is_file().then_some(path);
    }
    let path = find_on_path(program)?;
    let rustup_home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".rustup")));
    (!rustup_proxy_without(&path, program, rustup_home.as_deref())).then_some(path)
}

/// Whether `path` is a rustup proxy (`~/.cargo/bin/rust-analyzer`, a link
/// to `rustup`) for a `program` no toolchain under `rustup_home` has: such
/// a proxy fails at once ("Unknown binary"), so it is not installed.
fn rustup_proxy_without(path: &Path, program: &str, rustup_home: Option<&Path>) -> bool {
    let proxy = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy().starts_with("rustup"))
        })
        .unwrap_or(false);
    if !proxy || program.starts_with("rustup") {
        return false;
    }
    let Some(Ok(toolchains)) = rustup_home.map(|h| std::fs::read_dir(h.join("toolchains"))) else {
        return false;
    };
    !toolchains
        .flatten()
        .any(|t| t.path().join("bin").join(program).is_file())
}

fn default_specs() -> Vec<ServerSpec> {
    DEFAULTS
        .iter()
        .map(|(language, extensions, candidates)| {
            let chosen = candidates
                .iter()
                .find_map(|c| locate(c[0]).map(|p| (c, Some(p))))
                .unwrap_or((&candidates[0], None));
            ServerSpec {
                language: (*language).to_owned(),
                command: chosen.0.iter().map(|s| (*s).to_owned()).collect(),
                extensions: extensions.iter().map(|s| (*s).to_owned()).collect(),
                source: "default".into(),
                timeout_ms: DEFAULT_TIMEOUT_MS,
                idle_seconds: DEFAULT_IDLE_SECONDS,
                open_workspace: *language == "typescript",
                settings: json!({}),
                init_options: Value::Null,
                program: chosen.1,
                blocked: None,
            }
        })
        .collect()
}

/// One entry of an `lsp.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    command: Option<Vec<String>>,
    extensions: Option<Vec<String>>,
    timeout_ms: Option<u64>,
    idle_seconds: Option<u64>,
    open_workspace: Option<bool>,
    settings: Option<toml::Value>,
    initialization_options: Option<toml::Value>,
    #[serde(default)]
    disabled: bool,
}

fn toml_json(value: toml::Value) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Applies the `lsp.toml` at `path` (if there is one) to `specs`.
fn overlay(specs: &mut Vec<ServerSpec>, path: &Path) -> Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_owned(),
                source,
            })
        }
    };
    let table: std::collections::BTreeMap<String, Entry> = toml::from_str(&text).map_err(|e| {
        let (line, column) = e.span().map_or((0, 0), |span| {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = span.start - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            (line, column)
        });
        Error::Config {
            path: path.to_owned(),
            line,
            column,
            message: e.message().to_owned(),
        }
    })?;
    for (language, entry) in table {
        let at = if let Some(at) = specs.iter().position(|s| s.language == language) {
            at
        } else {
            {
                if entry.extensions.is_none() && !entry.disabled {
                    return Err(Error::Config {
                        path: path.to_owned(),
                        line: 0,
                        column: 0,
                        message: format!(
                            "`[{language}]` is not a language radium knows: give its `extensions`"
                        ),
                    });
                }
                specs.push(ServerSpec {
                    language: language.clone(),
                    command: Vec::new(),
                    extensions: Vec::new(),
                    source: String::new(),
                    timeout_ms: DEFAULT_TIMEOUT_MS,
                    idle_seconds: DEFAULT_IDLE_SECONDS,
                    open_workspace: false,
                    settings: json!({}),
                    init_options: Value::Null,
                    program: None,
                    blocked: None,
                });
                specs.len() - 1
            }
        };
        let spec = &mut specs[at];
        spec.source = path.display().to_string();
        if let Some(command) = entry.command {
            if command.is_empty() {
                return Err(Error::Config {
                    path: path.to_owned(),
                    line: 0,
                    column: 0,
                    message: format!("`[{language}]`: `command` is empty"),
                });
            }
            spec.program = locate(&command[0]);
            spec.command = command;
        }
        if entry.disabled {
            spec.command.clear();
            spec.program = None;
        }
        if let Some(extensions) = entry.extensions {
            spec.extensions = extensions
                .into_iter()
                .map(|e| e.trim_start_matches('.').to_owned())
                .collect();
        }
        if let Some(ms) = entry.timeout_ms {
            spec.timeout_ms = ms.max(1);
        }
        if let Some(seconds) = entry.idle_seconds {
            spec.idle_seconds = seconds;
        }
        if let Some(open) = entry.open_workspace {
            spec.open_workspace = open;
        }
        if let Some(settings) = entry.settings {
            spec.settings = toml_json(settings);
        }
        if let Some(options) = entry.initialization_options {
            spec.init_options = toml_json(options);
        }
    }
    Ok(())
}

/// The server table for `workspace`: the defaults, `$RADIUM_HOME/lsp.toml`,
/// then `.radium/lsp.toml` when the workspace is trusted. In an untrusted
/// workspace, servers that would run the workspace's code are pinned or
/// blocked (see `untrusted.rs`). The warnings say what was left out.
pub fn server_table(
    workspace: &Path,
    radium_home: &Path,
    trusted: bool,
) -> Result<(Vec<ServerSpec>, Vec<String>)> {
    let mut specs = default_specs();
    let mut warnings = Vec::new();
    overlay(&mut specs, &radium_home.join(LSP_FILE))?;
    let local = workspace.join(".radium").join(LSP_FILE);
    if trusted {
        overlay(&mut specs, &local)?;
    } else if local.is_file() {
        warnings.push(format!(
            "`{}` is not used: the workspace is not trusted (it names programs to run)",
            local.display()
        ));
    }
    if !trusted {
        super::untrusted::confine(&mut specs, workspace);
    }
    Ok((specs, warnings))
}

/// The extension of `path`, lower-cased.
pub fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The entry that serves `path`, by its extension.
pub fn spec_for<'a>(specs: &'a [ServerSpec], path: &Path) -> Option<&'a ServerSpec> {
    let ext = extension(path);
    specs.iter().find(|s| s.extensions.contains(&ext))
}

/// The LSP `languageId` of a file.
pub fn language_id(path: &Path) -> &'static str {
    match extension(path).as_str() {
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "py" | "pyi" => "python",
        "rs" => "rust",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        "go" => "go",
        "lua" => "lua",
        _ => "plaintext",
    }
}

#[cfg(test)]
mod rustup_tests {
    use super::rustup_proxy_without;

    #[test]
    fn a_rustup_proxy_counts_only_when_a_toolchain_has_the_program() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("cargo-bin");
        let home = dir.path().join("rustup-home");
        let toolchain = home.join("toolchains/stable/bin");
        std::fs::create_dir_all(&bin).expect("bin");
        std::fs::create_dir_all(&toolchain).expect("toolchain");
        std::fs::write(bin.join("rustup"), "").expect("rustup");
        std::os::unix::fs::symlink("rustup", bin.join("rust-analyzer")).expect("proxy");
        std::fs::write(bin.join("gopls"), "").expect("gopls");
        let proxy = bin.join("rust-analyzer");
        assert!(rustup_proxy_without(&proxy, "rust-analyzer", Some(&home)));
        std::fs::write(toolchain.join("rust-analyzer"), "").expect("component");
        assert!(!rustup_proxy_without(&proxy, "rust-analyzer", Some(&home)));
        assert!(!rustup_proxy_without(
            &bin.join("gopls"),
            "gopls",
            Some(&home)
        ));
        assert!(!rustup_proxy_without(&proxy, "rust-analyzer", None));
    }
}
