//! The engine's log at the protocol: each request that did something a user
//! may look for later (an edit, a session, a rename...) or that failed is an
//! entry; the `log` request reads the entries back.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::reply::Reply;
use crate::error::{Error, Result};
use crate::support::json::json_kind;
use crate::support::log::{Level, Log};
use crate::support::names::COMMANDS;
use crate::support::text::floor_char_boundary;

/// Requests that succeed too often to be worth a line each (hook chains,
/// context building, polling): only their failures are logged.
const QUIET: &[&str] = &[
    "ping",
    "version",
    "hooks-list",
    "hooks-execute",
    "context",
    "extract",
    "apply",
    "agents",
    "agents-list",
    "mcp-servers",
    "session-events",
    "session-list",
    "session-info",
    "ext-list",
    "lsp-list",
    "view",
    "log",
];

/// The most of an unknown command's name the log keeps, in bytes.
const MAX_UNKNOWN_NAME: usize = 64;

/// The name of `command` for the log: the protocol's own (no copy on every
/// request), or the first [`MAX_UNKNOWN_NAME`] bytes of an unknown one.
pub(super) fn name(command: &str) -> Cow<'static, str> {
    COMMANDS.iter().find(|c| **c == command).map_or_else(
        || {
            if command.len() <= MAX_UNKNOWN_NAME {
                return Cow::Owned(command.to_owned());
            }
            let end = floor_char_boundary(command, MAX_UNKNOWN_NAME);
            Cow::Owned(format!("{}… ({} bytes)", &command[..end], command.len()))
        },
        |c| Cow::Borrowed(*c),
    )
}

/// `work` (the answer to `command`), writing a log entry when it ends: the
/// failure with its code, or for the commands that act, how long it took.
pub(super) fn logged(
    log: &Arc<Log>,
    command: Cow<'static, str>,
    work: impl Future<Output = Reply> + Send + 'static,
) -> impl Future<Output = Reply> + Send + 'static {
    let log = Arc::clone(log);
    let started = Instant::now();
    async move {
        let reply = work.await;
        // A chain's outcome is a success of a quiet command.
        let Some(response) = reply.response() else {
            return reply;
        };
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        if !response.ok {
            let code = response.code.as_deref().unwrap_or("?");
            let error = response.error.as_deref().unwrap_or("");
            log.write(
                Level::Warn,
                "request",
                format!("{command} failed after {ms:.1} ms ({code}): {error}"),
            );
        } else if !QUIET.contains(&command.as_ref()) {
            let tag = response
                .tag
                .as_deref()
                .map(|t| format!(", tag {t}"))
                .unwrap_or_default();
            log.write(
                Level::Info,
                "request",
                format!("{command} done in {ms:.1} ms{tag}"),
            );
        }
        reply
    }
}

/// `log {since?, level?}`: the entries from number `since` (default 0) at
/// `level` (default `debug`) or above, and `next`, the `since` of the next call.
pub(super) fn read(log: &Log, args: &Map<String, Value>) -> Result<Value> {
    let since = match args.get("since") {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_u64().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "`log`: argument `since` must be a non-negative integer, got {}",
                json_kind(v)
            ))
        })?,
    };
    let level = match args.get("level") {
        None | Some(Value::Null) => Level::Debug,
        Some(Value::String(name)) => Level::parse(name).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "`log`: argument `level` must be `debug`, `info` or `warn`, got `{name}`"
            ))
        })?,
        Some(v) => {
            return Err(Error::InvalidArgument(format!(
                "`log`: argument `level` must be `debug`, `info` or `warn`, got {}",
                json_kind(v)
            )))
        }
    };
    let (entries, next) = log.since(since, level);
    Ok(json!({
        "entries": entries.iter().map(crate::support::log::Entry::to_json).collect::<Vec<_>>(),
        "next": next,
    }))
}
