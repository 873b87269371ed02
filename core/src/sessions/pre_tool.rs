//! Claude Code's quiet tool calls under the `before_tool` hooks.
//!
//! Claude Code runs the calls it deems safe (`ls`, `echo`, reads...) without
//! a permission request, so the hooks that decide permission requests never
//! see them. For a Claude Code session radium adds a `PreToolUse` command
//! hook to the agent's settings for that session only (`session/new`'s
//! `_meta.claudeCode.options.settings`, handed to Claude Code as
//! `--settings`; the user's and the workspace's own settings files are not
//! touched). The hook runs `rad hook-relay <socket>`, which passes its
//! input to this session's engine through a Unix socket in a private
//! folder (mode 0700, removed when the session ends) and prints the
//! engine's answer: the `before_tool` chain decides (a stop denies, with
//! the hook's reason for the model; `permission: "allow"` allows; else
//! Claude Code's own flow goes on, which may ask radium for permission,
//! where the chain runs again with the call's diff: a decision the first
//! time ends the call there, so the two runs never contradict each other).
//! A relay that cannot get an answer (no engine, a time limit, too much
//! input) refuses the call: it fails closed.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixListener;

use super::client::{refused_path, tool_hooks, Verdict};
use super::session::{lock, AgentSession};
use crate::support::log::Level;
use crate::support::text::floor_char_boundary;

/// The most bytes of hook input the relay passes on (a `Write` of a file
/// larger than this is refused).
pub const MAX_RELAY_INPUT: usize = 16 * 1024 * 1024;

/// How long `rad hook-relay` waits for the engine's answer before it
/// refuses the call (the hooks' own limits are shorter).
pub const RELAY_TIMEOUT: Duration = Duration::from_secs(100);

/// The time limit radium gives Claude Code for the hook, longer than
/// [`RELAY_TIMEOUT`] so the relay's own refusal is what Claude sees.
const CLAUDE_HOOK_TIMEOUT_SECS: u64 = 120;

/// At most this many relayed calls are answered at once; more are refused.
const MAX_CONCURRENT: usize = 64;

/// How long the engine waits for a connection's whole input.
const READ_LIMIT: Duration = Duration::from_secs(30);

/// The longest reason sent back to the agent, in bytes.
const MAX_REASON: usize = 4000;

/// The relay of one session: its private folder and socket, and the task
/// that answers on it. Dropping it stops the task and removes the folder.
pub(crate) struct Relay {
    dir: tempfile::TempDir,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(self.socket());
    }
}

impl Relay {
    /// The socket's path.
    pub(crate) fn socket(&self) -> PathBuf {
        self.dir.path().join("hook.sock")
    }

    /// Starts answering on a new socket for `session`. Must run on the
    /// engine's runtime.
    pub(crate) fn start(session: Weak<AgentSession>) -> std::io::Result<Relay> {
        // tempfile makes the folder with mode 0700: only this user reaches the socket.
        let dir = tempfile::Builder::new().prefix("radium-hook-").tempdir()?;
        let listener = UnixListener::bind(dir.path().join("hook.sock"))?;
        let permits = Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT));
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let Some(session) = session.upgrade() else {
                    return;
                };
                let permit = Arc::clone(&permits).try_acquire_owned().ok();
                tokio::spawn(async move {
                    answer(&session, stream, permit.is_some()).await;
                    drop(permit);
                });
            }
        });
        Ok(Relay { dir, task })
    }

    /// `_meta.claudeCode.options` for `session/new`: the settings that add
    /// the `PreToolUse` hook running `rad hook-relay <socket>`.
    pub(crate) fn claude_options(&self, rad: &Path) -> Value {
        let command = format!(
            "{} hook-relay {}",
            shell_quote(&rad.to_string_lossy()),
            shell_quote(&self.socket().to_string_lossy())
        );
        json!({"settings": {"hooks": {"PreToolUse": [{
            "matcher": "*",
            "hooks": [{"type": "command", "command": command, "timeout": CLAUDE_HOOK_TIMEOUT_SECS}],
        }]}}})
    }
}

/// `text` as one word for a POSIX shell (Claude Code runs hook commands
/// through one).
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Whether the agent's `initialize` answer is Claude Code's adapter's.
pub(crate) fn is_claude_code(init: &Value) -> bool {
    init.pointer("/agentCapabilities/_meta/claudeCode")
        .is_some_and(Value::is_object)
}

/// Claude Code's hook output for a decision.
fn decision(decision: &str, reason: &str) -> Value {
    let cut = floor_char_boundary(reason, MAX_REASON);
    json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": &reason[..cut],
    }})
}

/// Reads one relayed call, decides it and writes the answer.
async fn answer(session: &AgentSession, mut stream: tokio::net::UnixStream, admitted: bool) {
    let reply = if admitted {
        let mut input = Vec::new();
        let limit = u64::try_from(MAX_RELAY_INPUT).unwrap_or(u64::MAX) + 1;
        let mut reader = (&mut stream).take(limit);
        let read = tokio::time::timeout(READ_LIMIT, reader.read_to_end(&mut input)).await;
        match read {
            Ok(Ok(_)) if input.len() > MAX_RELAY_INPUT => decision(
                "deny",
                &format!("radium: the tool call's input is over {MAX_RELAY_INPUT} bytes; refused"),
            ),
            Ok(Ok(_)) => decide(session, &input).await,
            Ok(Err(e)) => decision(
                "deny",
                &format!("radium: cannot read the hook's input: {e}"),
            ),
            Err(_) => decision("deny", "radium: the hook's input did not arrive in time"),
        }
    } else {
        decision(
            "deny",
            "radium: too many tool calls waiting for the hooks; refused",
        )
    };
    let _ = stream.write_all(reply.to_string().as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// The `before_tool` chain's answer for Claude Code's hook input
/// (`{tool_name, tool_input, tool_use_id, ...}`).
async fn decide(session: &AgentSession, input: &[u8]) -> Value {
    let input: Value = match serde_json::from_slice(input) {
        Ok(Value::Object(map)) => Value::Object(map),
        Ok(_) => return decision("deny", "radium: the hook's input is not a JSON object"),
        Err(e) => {
            return decision(
                "deny",
                &format!("radium: the hook's input is not JSON: {e}"),
            )
        }
    };
    let Some(tool) = input.get("tool_name").and_then(Value::as_str) else {
        return decision("deny", "radium: the hook's input has no `tool_name`");
    };
    let id = input
        .get("tool_use_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // The call as radium saw it announced (the same title and arguments a
    // permission request shows the hooks), else as the hook describes it.
    let (title, raw_input) = {
        let state = lock(&session.state);
        match state.watched.get(id) {
            Some(w) if !w.title.is_empty() => (w.title.clone(), w.raw_input.clone()),
            _ => (tool.to_owned(), Value::Null),
        }
    };
    let tool_input = input.get("tool_input").cloned().unwrap_or(Value::Null);
    let call = json!({
        "toolCallId": id,
        "title": title,
        "rawInput": if raw_input.is_null() { tool_input.clone() } else { raw_input },
        "_meta": {"claudeCode": {"toolName": tool, "toolInput": tool_input}},
    });
    let decided = |allowed: bool, by: &str, reason: &str| {
        if allowed {
            session.watch(&call, true);
        }
        session.emit(json!({
            "type": "permission_decided", "id": id, "allowed": allowed,
            "by": by, "reason": reason, "via": "pre_tool_use",
        }));
    };
    match tool_hooks(session, &call, "pre_tool_use").await {
        Verdict::Stop { by, reason } => {
            decided(false, &by, &reason);
            let name = by.strip_prefix("hook:").unwrap_or(&by);
            decision(
                "deny",
                &format!("radium: the before_tool hook `{name}` refused it: {reason}"),
            )
        }
        Verdict::Allow { by } => {
            // A hook's allow never passes radium's own rule: Claude Code
            // then asks, and the permission request is rejected by it.
            if refused_path(session, &call).is_some() {
                return json!({});
            }
            decided(true, &by, "a before_tool hook allowed it");
            decision("allow", "radium: a before_tool hook allowed it")
        }
        Verdict::NoOpinion => json!({}),
    }
}

/// What `rad hook-relay` prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayOutcome {
    /// Printed on stdout (the engine's answer, Claude Code's hook output).
    pub stdout: String,
    /// Printed on stderr (why the call is refused, when the relay failed).
    pub stderr: String,
    /// The exit code: 0, or 2 (Claude Code refuses the call and shows the
    /// model the stderr).
    pub code: u8,
}

fn refused(why: &str) -> RelayOutcome {
    RelayOutcome {
        stdout: String::new(),
        stderr: format!("radium: {why}; the tool call is refused"),
        code: 2,
    }
}

/// The client side of `rad hook-relay`: passes `input` (Claude Code's hook
/// input, at most [`MAX_RELAY_INPUT`] bytes) to the engine listening on
/// `socket` and gives back its answer, within `limit`. Fails closed: an
/// engine that cannot be reached or does not answer in time, too much
/// input, or an answer that is not JSON refuses the call (exit code 2).
pub fn relay(socket: &Path, input: impl Read, limit: Duration) -> RelayOutcome {
    let mut bytes = Vec::new();
    let cap = u64::try_from(MAX_RELAY_INPUT).unwrap_or(u64::MAX) + 1;
    if let Err(e) = input.take(cap).read_to_end(&mut bytes) {
        return refused(&format!("cannot read the hook's input: {e}"));
    }
    if bytes.len() > MAX_RELAY_INPUT {
        return refused(&format!(
            "the tool call's input is over {MAX_RELAY_INPUT} bytes"
        ));
    }
    let mut stream = match UnixStream::connect(socket) {
        Ok(s) => s,
        Err(e) => {
            return refused(&format!(
                "cannot reach the engine of this session at {}: {e}",
                socket.display()
            ))
        }
    };
    let _ = stream.set_write_timeout(Some(limit));
    let _ = stream.set_read_timeout(Some(limit));
    if let Err(e) = stream
        .write_all(&bytes)
        .and_then(|()| stream.shutdown(std::net::Shutdown::Write))
    {
        return refused(&format!("cannot send the call to the engine: {e}"));
    }
    let mut answer = Vec::new();
    if let Err(e) = stream.take(1024 * 1024).read_to_end(&mut answer) {
        return refused(&format!(
            "the engine did not answer within {} s: {e}",
            limit.as_secs()
        ));
    }
    match serde_json::from_slice::<Value>(&answer) {
        Ok(value) if value.is_object() => RelayOutcome {
            stdout: value.to_string(),
            stderr: String::new(),
            code: 0,
        },
        _ => refused("the engine's answer is not a JSON object"),
    }
}

impl AgentSession {
    /// For Claude Code with `rad` known: starts the session's `PreToolUse`
    /// relay and gives the options that add the hook (see `pre_tool`). A
    /// relay that cannot start is logged: the quiet calls then pass no hook.
    pub(crate) fn claude_hooks(
        self: &Arc<Self>,
        init: &Value,
        rad: Option<&Path>,
    ) -> Option<Value> {
        let rad = rad.filter(|_| super::pre_tool::is_claude_code(init))?;
        match super::pre_tool::Relay::start(Arc::downgrade(self)) {
            Ok(relay) => {
                let options = relay.claude_options(rad);
                *lock(&self.relay) = Some(relay);
                Some(options)
            }
            Err(e) => {
                self.log.write(
                    Level::Warn,
                    "session",
                    format!("{}: the PreToolUse relay did not start: {e}", self.id),
                );
                None
            }
        }
    }
}
