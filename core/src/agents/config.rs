//! Agent configuration: `agents.toml`, the agents a workspace may run.
//!
//! An agent is a configured command: it reads the enriched request as JSON on
//! stdin and answers on stdout, so any command-line model tool can be plugged
//! in. Agents are listed in `.radium/agents.toml` (the workspace's, which
//! wins) and `$RADIUM_HOME/agents.toml`:
//!
//! ```toml
//! [[agents]]
//! id = "example"
//! command = ["python3", "agents/example.py"]   # program first; no shell
//! timeout = "60s"                              # default 120s
//! protocol = "command"                         # or "acp" (see below)
//! [agents.env]
//! MODEL = "small"
//! ```
//!
//! A relative program path with a `/` resolves against the folder of the
//! `agents.toml` that names it; the agent runs in the workspace (or that
//! folder when there is none).
//!
//! `protocol = "acp"` names a coding agent spoken to in the Agent Client
//! Protocol (one long-lived process per session: Claude Code, Gemini CLI,
//! Codex, OpenCode); `start_timeout` (default 30s) bounds its start and
//! `silence_timeout` (default 300s) a turn in which it sends nothing;
//! `permission_timeout` (default 300s) is how long a permission request
//! waits for the door's answer before it is rejected. `mode = "plan"`,
//! `model = "..."` and `[agents.options]` (`thought_level = "high"`: an
//! option's id or category, and a value) are set on the agent right after
//! `session/new`; one the agent does not offer is a warning of the session.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::hooks::config::parse_duration;

/// The default time limit of an agent: 120 seconds.
pub const DEFAULT_AGENT_TIMEOUT: Duration = Duration::from_secs(120);

/// The default time an ACP agent has to start (answer `initialize` and `session/new`).
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);

/// The default time a turn may go without a message from the agent.
pub const DEFAULT_SILENCE_TIMEOUT: Duration = Duration::from_secs(300);

/// How long an ACP agent's permission request waits for the door by default.
pub const DEFAULT_PERMISSION_TIMEOUT: Duration = Duration::from_secs(300);

/// How radium speaks to an agent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentProtocol {
    /// A command run once per turn: JSON on stdin, the answer on stdout.
    #[default]
    Command,
    /// The Agent Client Protocol v1: JSON-RPC over the agent's stdio.
    Acp,
}

/// The most an agent may print: 4 MiB.
pub const DEFAULT_AGENT_OUTPUT: usize = 4 << 20;

/// One configured agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentConfig {
    /// The agent's id (`rad step <id>`).
    pub id: String,
    /// The program and its arguments (program resolved to a path when relative).
    pub command: Vec<String>,
    /// The time limit of one run.
    #[serde(rename = "timeout_ms", serialize_with = "ser_ms")]
    pub timeout: Duration,
    /// Extra environment variables for the agent's process.
    pub env: BTreeMap<String, String>,
    /// How radium speaks to it.
    pub protocol: AgentProtocol,
    /// The time an ACP agent has to start.
    #[serde(rename = "start_timeout_ms", serialize_with = "ser_ms")]
    pub start_timeout: Duration,
    /// The time a turn may go without a message from the agent.
    #[serde(rename = "silence_timeout_ms", serialize_with = "ser_ms")]
    pub silence_timeout: Duration,
    /// How long a permission request waits for the door before it is rejected.
    #[serde(rename = "permission_timeout_ms", serialize_with = "ser_ms")]
    pub permission_timeout: Duration,
    /// Where the agent runs.
    pub cwd: PathBuf,
    /// The file that configured it.
    pub source: PathBuf,
    /// An ACP session offers the agent radium's edit tools as an MCP
    /// server (`rad mcp`) in `session/new` (`radium_mcp = false` to not).
    pub radium_mcp: bool,
    /// The agent's options set at the start of a session (its `mode`,
    /// `model` and `[agents.options]`), by option id or category.
    pub options: BTreeMap<String, String>,
}

fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    agents: Vec<toml::Spanned<RawAgent>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    id: String,
    command: Vec<String>,
    timeout: Option<toml::Value>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    protocol: AgentProtocol,
    start_timeout: Option<toml::Value>,
    silence_timeout: Option<toml::Value>,
    permission_timeout: Option<toml::Value>,
    radium_mcp: Option<bool>,
    mode: Option<String>,
    model: Option<String>,
    #[serde(default)]
    options: BTreeMap<String, String>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Parses one `agents.toml`; `workspace` is where its agents run.
pub fn parse_agents(text: &str, path: &Path, workspace: Option<&Path>) -> Result<Vec<AgentConfig>> {
    let err = |line: usize, message: String| Error::Config {
        path: path.to_owned(),
        line,
        column: usize::from(line != 0),
        message,
    };
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        err(
            e.span().map_or(0, |s| line_of(text, s.start)),
            e.message().trim().to_owned(),
        )
    })?;
    let folder = path.parent().unwrap_or(Path::new("/"));
    let mut agents: Vec<AgentConfig> = Vec::new();
    for spanned in raw.agents {
        let line = line_of(text, spanned.span().start);
        let agent = spanned.into_inner();
        if agent.id.trim().is_empty() || agent.id.contains(char::is_whitespace) {
            return Err(err(
                line,
                format!(
                    "field `id`: `{}` is not a valid agent id (no spaces, not empty)",
                    agent.id
                ),
            ));
        }
        if agents.iter().any(|a| a.id == agent.id) {
            return Err(err(
                line,
                format!("field `id`: agent `{}` is configured twice", agent.id),
            ));
        }
        let Some(program) = agent.command.first() else {
            return Err(err(
                line,
                "field `command`: must name a program (a list, program first)".to_owned(),
            ));
        };
        let mut command = agent.command.clone();
        if program.contains('/') && !Path::new(program).is_absolute() {
            command[0] = folder.join(program).to_string_lossy().into_owned();
        }
        let limit = |value: Option<toml::Value>, field: &str, default: Duration| match value {
            None => Ok(default),
            Some(toml::Value::Integer(ms)) => u64::try_from(ms)
                .map(Duration::from_millis)
                .map_err(|_| err(line, format!("field `{field}`: cannot be negative"))),
            Some(toml::Value::String(s)) => {
                parse_duration(&s).map_err(|e| err(line, format!("field `{field}`: {e}")))
            }
            Some(other) => Err(err(
                line,
                format!("field `{field}`: expected \"30s\" or milliseconds, got {other}"),
            )),
        };
        let timeout = limit(agent.timeout, "timeout", DEFAULT_AGENT_TIMEOUT)?;
        let start_timeout = limit(agent.start_timeout, "start_timeout", DEFAULT_START_TIMEOUT)?;
        let silence_timeout = limit(
            agent.silence_timeout,
            "silence_timeout",
            DEFAULT_SILENCE_TIMEOUT,
        )?;
        let permission_timeout = limit(
            agent.permission_timeout,
            "permission_timeout",
            DEFAULT_PERMISSION_TIMEOUT,
        )?;
        let mut options = agent.options;
        for (key, value) in [("mode", agent.mode), ("model", agent.model)] {
            let Some(value) = value else { continue };
            if options.contains_key(key) {
                return Err(err(
                    line,
                    format!("field `{key}`: given twice (also in `[agents.options]`)"),
                ));
            }
            options.insert(key.to_owned(), value);
        }
        agents.push(AgentConfig {
            id: agent.id,
            command,
            timeout,
            env: agent.env,
            protocol: agent.protocol,
            start_timeout,
            silence_timeout,
            permission_timeout,
            radium_mcp: agent.radium_mcp.unwrap_or(true),
            options,
            cwd: workspace.unwrap_or(folder).to_owned(),
            source: path.to_owned(),
        });
    }
    Ok(agents)
}

/// The agents of a workspace and of the user, the workspace's first (it wins on the same id).
pub fn load_agents(workspace: Option<&Path>, radium_home: &Path) -> Result<Vec<AgentConfig>> {
    let mut all: Vec<AgentConfig> = Vec::new();
    let mut files = Vec::new();
    if let Some(ws) = workspace {
        files.push(ws.join(".radium/agents.toml"));
    }
    files.push(radium_home.join("agents.toml"));
    for file in files {
        if !file.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&file).map_err(|source| Error::Io {
            path: file.clone(),
            source,
        })?;
        for agent in parse_agents(&text, &file, workspace)? {
            if !all.iter().any(|a| a.id == agent.id) {
                all.push(agent);
            }
        }
    }
    Ok(all)
}

/// The default `$RADIUM_HOME`: the variable if set, else `~/.radium`.
pub fn default_radium_home() -> PathBuf {
    std::env::var_os("RADIUM_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".radium")))
        .unwrap_or_else(|| PathBuf::from(".radium"))
}

/// The agents a workspace may run, and the agent files that could not be read.
#[derive(Debug, Default)]
pub(crate) struct Available {
    /// The usable agents: a trusted workspace's first (it wins on the same
    /// id), then the user's.
    pub agents: Vec<AgentConfig>,
    /// The error of each `agents.toml` that could not be read or parsed:
    /// none of its agents is in `agents`, the other file's are.
    pub broken: Vec<Error>,
}

/// The agents configured for `workspace` and the user, then the installed
/// agents of radium's catalogue no file overrides. An untrusted
/// workspace's `agents.toml` is not read at all, so its junk or its reuse of
/// a user agent's id changes nothing; a broken file (of a trusted workspace,
/// or the user's) leaves the other file's agents usable.
pub(crate) fn available_agents(
    workspace: Option<&Path>,
    radium_home: &Path,
    trusted: bool,
) -> Available {
    let files = layered_files(workspace, radium_home, trusted, "agents.toml");
    let (mut agents, broken) = read_layered(
        &files,
        |text, file| parse_agents(text, file, workspace),
        |a: &AgentConfig| a.id.clone(),
    );
    // The catalogue's installed agents follow, unless a file names their id.
    let configured: Vec<String> = agents.iter().map(|a| a.id.clone()).collect();
    agents.extend(super::catalogue::installed_agents(
        &super::catalogue::Places::from_env(),
        workspace,
        radium_home,
        &|id| configured.iter().any(|c| c == id),
    ));
    Available { agents, broken }
}

/// A configuration file of radium's, `name`, where it is looked for: the
/// workspace's `.radium/` (only when it is `trusted`: an untrusted one's
/// file is not read at all), then `radium_home`.
pub(crate) fn layered_files(
    workspace: Option<&Path>,
    radium_home: &Path,
    trusted: bool,
    name: &str,
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(ws) = workspace.filter(|_| trusted) {
        files.push(ws.join(".radium").join(name));
    }
    files.push(radium_home.join(name));
    files
}

/// The items of `files` (those that exist), each parsed by `parse`, the
/// first item of each `key` kept (an earlier file wins); a file that cannot
/// be read or parsed is one error, and the other files' items are kept.
pub(crate) fn read_layered<T, K: PartialEq>(
    files: &[PathBuf],
    parse: impl Fn(&str, &Path) -> Result<Vec<T>>,
    key: impl Fn(&T) -> K,
) -> (Vec<T>, Vec<Error>) {
    let (mut items, mut broken) = (Vec::<T>::new(), Vec::new());
    for file in files.iter().filter(|f| f.is_file()) {
        let parsed = std::fs::read_to_string(file)
            .map_err(|source| Error::Io {
                path: file.clone(),
                source,
            })
            .and_then(|text| parse(&text, file));
        match parsed {
            Ok(found) => {
                for item in found {
                    if !items.iter().any(|i| key(i) == key(&item)) {
                        items.push(item);
                    }
                }
            }
            Err(e) => broken.push(e),
        }
    }
    (items, broken)
}

/// A clear error for agent `id` when it is defined in the untrusted
/// `workspace` (and not by the user); `None` when it is not. Only called
/// for an id no usable agent has.
pub(crate) fn untrusted_agent(id: &str, workspace: &Path) -> Option<Error> {
    let file = workspace.join(".radium/agents.toml");
    let text = std::fs::read_to_string(&file).ok()?;
    let all = parse_agents(&text, &file, Some(workspace)).ok()?;
    all.iter().find(|a| a.id == id).map(|a| {
            Error::Untrusted(format!(
                "agent `{id}` is defined in {}, but the workspace {} is not trusted; trust it first (`rad trust`, or the `trust` command)",
                a.source.display(),
                workspace.display()
            ))
        })
}
