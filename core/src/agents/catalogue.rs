//! The built-in catalogue of agents: the ACP agents people use (Claude
//! Code's adapter, Gemini CLI, Codex's adapter, OpenCode) and radium's own
//! `example` agent, so an installed agent works with no `agents.toml`.
//!
//! The data is `catalogue.toml`, compiled in. Each entry says how to find an
//! installed copy (radium's cache first, then `PATH`, where npm's global
//! programs are, then `$NPM_CONFIG_PREFIX/bin`), how to install it (an npm
//! package pinned to a version, into
//! `${XDG_CACHE_HOME:-~/.cache}/radium/agents/<name>@<version>`, only when
//! the user asks: see [`super::install`]), how to sign in and what is known
//! to go wrong. An `agents.toml` agent with the same id replaces the entry.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::config::{
    AgentConfig, AgentProtocol, DEFAULT_AGENT_TIMEOUT, DEFAULT_PERMISSION_TIMEOUT,
    DEFAULT_SILENCE_TIMEOUT, DEFAULT_START_TIMEOUT,
};

/// The catalogue's data, compiled in.
const CATALOGUE: &str = include_str!("catalogue.toml");

/// The example agent's script (`examples/agents/example-agent.sh`), run with
/// `sh -c`, so it exists wherever radium does.
const EXAMPLE_AGENT: &str = include_str!("../../../examples/agents/example-agent.sh");

/// The `source` of an agent that comes from the catalogue (not a file).
pub const CATALOGUE_SOURCE: &str = "(radium's catalogue)";

/// The marker of a finished install in its cache folder.
pub const COMPLETE_MARKER: &str = ".complete";

/// One agent of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueEntry {
    /// The agent's id (`rad chat <id>`).
    pub id: String,
    /// What it is.
    pub name: String,
    /// How radium speaks to it.
    pub protocol: AgentProtocol,
    /// Its npm package (none for a built-in agent).
    #[serde(default)]
    pub package: Option<String>,
    /// The package's pinned version.
    #[serde(default)]
    pub version: Option<String>,
    /// The program the package installs (also looked for on `PATH`).
    #[serde(default)]
    pub bin: Option<String>,
    /// The arguments it needs to speak ACP.
    #[serde(default)]
    pub args: Vec<String>,
    /// A built-in agent shipped with radium (`example`).
    #[serde(default)]
    pub builtin: Option<String>,
    /// How to sign in.
    pub sign_in: String,
    /// The variables that sign it in (any one of them).
    #[serde(default)]
    pub sign_in_vars: Vec<String>,
    /// What is known to go wrong.
    #[serde(default)]
    pub pitfalls: Vec<String>,
    /// Where it is documented.
    #[serde(default)]
    pub url: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalogue {
    agents: Vec<CatalogueEntry>,
}

/// The catalogue's entries, in their order.
pub fn catalogue() -> &'static [CatalogueEntry] {
    static ENTRIES: OnceLock<Vec<CatalogueEntry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        // The data is compiled in and checked by the tests: it parses.
        toml::from_str::<RawCatalogue>(CATALOGUE)
            .map(|c| c.agents)
            .unwrap_or_default()
    })
}

/// The catalogue entry `id`.
pub fn entry(id: &str) -> Option<&'static CatalogueEntry> {
    catalogue().iter().find(|e| e.id == id)
}

/// Where installed copies are looked for: radium's cache of agents and the
/// program search path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    /// `${XDG_CACHE_HOME:-~/.cache}/radium/agents`.
    pub cache: PathBuf,
    /// The folders of `PATH`, then `$NPM_CONFIG_PREFIX/bin`.
    pub path: Vec<PathBuf>,
}

impl Places {
    /// The places of this process's environment.
    pub fn from_env() -> Self {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(|| PathBuf::from(".cache"))
            .join("radium/agents");
        let mut path: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        for var in ["NPM_CONFIG_PREFIX", "npm_config_prefix"] {
            if let Some(prefix) = std::env::var_os(var) {
                path.push(PathBuf::from(prefix).join("bin"));
            }
        }
        Self { cache, path }
    }
}

/// Where an installed copy was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Found {
    /// Shipped inside radium.
    Builtin,
    /// In radium's cache (`rad agents install`).
    Cache,
    /// On `PATH` (or npm's global prefix).
    Path,
}

impl CatalogueEntry {
    /// The cache folder of this entry's pinned package: `<cache>/<name>@<version>`
    /// (the package's name without its scope).
    pub fn cache_dir(&self, cache: &Path) -> Option<PathBuf> {
        let (package, version) = (self.package.as_deref()?, self.version.as_deref()?);
        let name = package.rsplit('/').next().unwrap_or(package);
        Some(cache.join(format!("{name}@{version}")))
    }

    /// The command that runs an installed copy, and where it was found;
    /// `None` when it is not installed.
    pub fn locate(&self, places: &Places) -> Option<(Vec<String>, Found)> {
        if self.builtin.as_deref() == Some("example") {
            let command = ["sh", "-c", EXAMPLE_AGENT, "radium-example-agent"];
            return Some((command.map(str::to_owned).to_vec(), Found::Builtin));
        }
        let bin = self.bin.as_deref()?;
        let with_args = |program: PathBuf| {
            let mut command = vec![program.to_string_lossy().into_owned()];
            command.extend(self.args.iter().cloned());
            command
        };
        if let Some(dir) = self.cache_dir(&places.cache) {
            let program = dir.join("node_modules/.bin").join(bin);
            if dir.join(COMPLETE_MARKER).is_file() && program.is_file() {
                return Some((with_args(program), Found::Cache));
            }
        }
        places
            .path
            .iter()
            .map(|folder| folder.join(bin))
            .find(|p| is_executable(p))
            .map(|program| (with_args(program), Found::Path))
    }

    /// This entry as an agent of `workspace` (or of `home` when there is
    /// none), run with `command`.
    pub fn agent(
        &self,
        command: Vec<String>,
        workspace: Option<&Path>,
        home: &Path,
    ) -> AgentConfig {
        AgentConfig {
            id: self.id.clone(),
            command,
            timeout: DEFAULT_AGENT_TIMEOUT,
            env: std::collections::BTreeMap::new(),
            protocol: self.protocol,
            start_timeout: DEFAULT_START_TIMEOUT,
            silence_timeout: DEFAULT_SILENCE_TIMEOUT,
            permission_timeout: DEFAULT_PERMISSION_TIMEOUT,
            cwd: workspace.unwrap_or(home).to_owned(),
            source: PathBuf::from(CATALOGUE_SOURCE),
            radium_mcp: true,
            options: std::collections::BTreeMap::new(),
        }
    }

    /// Whether one of its sign-in variables is set in this process's
    /// environment (`None` when it has none).
    pub fn signed_in_by_env(&self) -> Option<bool> {
        (!self.sign_in_vars.is_empty()).then(|| {
            self.sign_in_vars
                .iter()
                .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
        })
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The catalogue's installed agents whose ids `taken` does not hold, as
/// agents of `workspace`.
pub fn installed_agents(
    places: &Places,
    workspace: Option<&Path>,
    home: &Path,
    taken: &dyn Fn(&str) -> bool,
) -> Vec<AgentConfig> {
    catalogue()
        .iter()
        .filter(|e| !taken(&e.id))
        .filter_map(|e| {
            e.locate(places)
                .map(|(command, _)| e.agent(command, workspace, home))
        })
        .collect()
}
