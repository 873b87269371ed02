//! The user's own MCP servers: `mcp.toml`, the servers an ACP session passes
//! to its agent beside radium's own (`rad mcp`).
//!
//! They are listed in `.radium/mcp.toml` (the workspace's, read only when the
//! workspace is trusted; it wins on the same name) and `$RADIUM_HOME/mcp.toml`:
//!
//! ```toml
//! [[servers]]
//! name = "notes"
//! command = ["node", "tools/notes.mjs", "--verbose"]  # program first; no shell
//! [servers.env]
//! NOTES_DIR = "/home/me/notes"
//!
//! [[servers]]
//! name = "docs"
//! type = "http"                # or "sse"; only to an agent that says it can
//! url = "https://example.com/mcp"
//! [servers.headers]
//! Authorization = "Bearer ..."
//! ```
//!
//! A relative program path with a `/` resolves against the folder of the
//! `mcp.toml` that names it; the arguments and environment values are passed
//! as given. The name `radium` is radium's own server's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};

/// How a configured MCP server is reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A program the agent starts, spoken to on its stdio (every agent).
    #[default]
    Stdio,
    /// Streamable HTTP (only an agent whose `mcpCapabilities.http` is true).
    Http,
    /// Server-sent events (only an agent whose `mcpCapabilities.sse` is true).
    Sse,
}

impl McpTransport {
    /// Its name in `mcp.toml` and in ACP (`stdio`, `http`, `sse`).
    pub fn as_str(self) -> &'static str {
        match self {
            McpTransport::Stdio => "stdio",
            McpTransport::Http => "http",
            McpTransport::Sse => "sse",
        }
    }
}

/// One MCP server of an `mcp.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpServerConfig {
    /// Its name (the agent names its tools after it, e.g. `mcp__<name>__<tool>`).
    pub name: String,
    /// How it is reached.
    #[serde(rename = "type")]
    pub transport: McpTransport,
    /// A stdio server's program and arguments (empty for http/sse).
    pub command: Vec<String>,
    /// A stdio server's extra environment variables.
    pub env: BTreeMap<String, String>,
    /// An http/sse server's address (empty for stdio).
    pub url: String,
    /// An http/sse server's headers.
    pub headers: BTreeMap<String, String>,
    /// The file that configured it.
    pub source: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    servers: Vec<toml::Spanned<RawServer>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    name: String,
    #[serde(default, rename = "type")]
    transport: McpTransport,
    #[serde(default)]
    command: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Parses one `mcp.toml` at `path`.
pub fn parse_mcp_servers(text: &str, path: &Path) -> Result<Vec<McpServerConfig>> {
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
    let mut servers: Vec<McpServerConfig> = Vec::new();
    for spanned in raw.servers {
        let line = line_of(text, spanned.span().start);
        let raw = spanned.into_inner();
        let name = raw.name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(err(
                line,
                format!(
                    "field `name`: `{}` is not a valid server name (letters, digits, `-`, `_`)",
                    raw.name
                ),
            ));
        }
        if name == "radium" {
            return Err(err(
                line,
                "field `name`: `radium` is radium's own server's name".to_owned(),
            ));
        }
        if servers.iter().any(|s| s.name == name) {
            return Err(err(
                line,
                format!("field `name`: server `{name}` is configured twice"),
            ));
        }
        let mut command = raw.command;
        let url = raw.url.unwrap_or_default();
        match raw.transport {
            McpTransport::Stdio => {
                let Some(program) = command.first() else {
                    return Err(err(
                        line,
                        format!("server `{name}`: field `command` must name a program (a list, program first)"),
                    ));
                };
                if !url.is_empty() || !raw.headers.is_empty() {
                    return Err(err(
                        line,
                        format!("server `{name}`: `url` and `headers` are for `type = \"http\"` or `\"sse\"`"),
                    ));
                }
                if program.contains('/') && !Path::new(program).is_absolute() {
                    command[0] = folder.join(program).to_string_lossy().into_owned();
                }
            }
            McpTransport::Http | McpTransport::Sse => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(err(
                        line,
                        format!(
                            "server `{name}`: field `url` must be an http:// or https:// address"
                        ),
                    ));
                }
                if !command.is_empty() || !raw.env.is_empty() {
                    return Err(err(
                        line,
                        format!("server `{name}`: `command` and `env` are for a stdio server"),
                    ));
                }
            }
        }
        servers.push(McpServerConfig {
            name: name.to_owned(),
            transport: raw.transport,
            command,
            env: raw.env,
            url,
            headers: raw.headers,
            source: path.to_owned(),
        });
    }
    Ok(servers)
}

/// The user's MCP servers for a workspace, and the files that could not be read.
#[derive(Debug, Default)]
pub struct McpServers {
    /// The usable servers: a trusted workspace's first (it wins on the same
    /// name), then the user's.
    pub servers: Vec<McpServerConfig>,
    /// The error of each `mcp.toml` that could not be read or parsed: none
    /// of its servers is in `servers`, the other file's are.
    pub broken: Vec<Error>,
}

/// The MCP servers configured for `workspace` and the user. An untrusted
/// workspace's `mcp.toml` is not read at all (its servers would be programs
/// the agent runs).
pub fn configured_mcp_servers(
    workspace: Option<&Path>,
    radium_home: &Path,
    trusted: bool,
) -> McpServers {
    let files = super::config::layered_files(workspace, radium_home, trusted, "mcp.toml");
    let (servers, broken) =
        super::config::read_layered(&files, parse_mcp_servers, |s| s.name.clone());
    McpServers { servers, broken }
}

fn pairs(map: &BTreeMap<String, String>) -> Value {
    map.iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect()
}

impl McpServerConfig {
    /// The server as ACP's `session/new` gives it (`McpServer`).
    pub fn to_acp(&self) -> Value {
        match self.transport {
            McpTransport::Stdio => json!({
                "name": self.name,
                "command": self.command[0],
                "args": self.command[1..],
                "env": pairs(&self.env),
            }),
            McpTransport::Http | McpTransport::Sse => json!({
                "type": self.transport.as_str(),
                "name": self.name,
                "url": self.url,
                "headers": pairs(&self.headers),
            }),
        }
    }

    /// Whether an agent whose `initialize` answer is `init` can take it:
    /// stdio always, http/sse when its `mcpCapabilities` says so.
    pub fn offered_to(&self, init: &Value) -> bool {
        let cap = |name: &str| {
            init.pointer(&format!("/agentCapabilities/mcpCapabilities/{name}"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        match self.transport {
            McpTransport::Stdio => true,
            McpTransport::Http => cap("http"),
            McpTransport::Sse => cap("sse"),
        }
    }
}
