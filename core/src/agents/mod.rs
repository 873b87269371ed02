//! Agents: their configuration (`agents.toml`), the built-in catalogue of
//! the agents people use (and installing one with npm), and the one-shot agent step
//! that runs a configured agent between the tool and model hook chains.
//!
//! Owns: agent configuration, the catalogue and its installs, and the
//! agent processes it starts and stops.
//! Uses: `hooks`, `editor` (the context an agent gets and the code blocks of
//! its answer), `support` and the shared error type.

pub mod catalogue;
pub mod config;
pub mod install;
pub mod mcp;
pub(crate) mod step;

pub use config::{default_radium_home, load_agents, parse_agents, AgentConfig};
pub use step::StepRequest;
