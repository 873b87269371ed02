//! Why an agent did not start, said so the user can act on it: the agent's
//! JSON-RPC error with its `data` (Claude Code's adapter puts the reason in
//! `data.details`), the last lines of its stderr, and a hint for a cause
//! radium knows. Every part is bounded, so a chatty agent cannot make the
//! message large.

use std::time::Duration;

use serde_json::Value;

use super::rpc::RpcError;
use super::session::{last_lines, lock, AgentSession};

/// The most of an error's `data` the message carries, in characters.
pub const MAX_ERROR_DATA: usize = 600;

/// How many lines of the agent's stderr a start error carries.
pub const START_STDERR_LINES: usize = 5;

/// At most `n` characters of `text`, with `…` when cut.
fn capped(text: &str, n: usize) -> String {
    let mut out: String = text.chars().take(n).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The error's `data`, readably: its `details` or `message` when it has
/// one, else the JSON itself.
pub(crate) fn data_text(data: &Value) -> String {
    let shown = match data {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o
            .get("details")
            .or_else(|| o.get("message"))
            .and_then(Value::as_str)
        {
            Some(text) => text.to_owned(),
            None => data.to_string(),
        },
        other => other.to_string(),
    };
    capped(shown.trim(), MAX_ERROR_DATA)
}

/// Whether the agent runs Claude Code through Zed's ACP adapter.
fn is_claude_adapter(command: &[String]) -> bool {
    command
        .iter()
        .any(|part| part.contains("claude-agent-acp") || part.contains("claude-code-acp"))
}

impl AgentSession {
    /// Whether `IS_SANDBOX` is set, to anything but `1`, in the agent's
    /// environment (its `env`, else the one it inherits).
    fn sandbox_set(&self) -> bool {
        let value = match self.agent.env.get("IS_SANDBOX") {
            Some(v) => Some(v.clone()),
            None => std::env::var("IS_SANDBOX").ok(),
        };
        value.is_some_and(|v| !v.is_empty() && v != "1")
    }

    /// Waits for what the agent writes on stderr around its error (it comes
    /// on another pipe than the error): until it wrote something and has
    /// been quiet for 50 ms since, at most half a second.
    pub(crate) async fn settle_stderr(&self) {
        let mut seen = self.conn.stderr_tail().len();
        let mut quiet = 0;
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(25)).await;
            let now = self.conn.stderr_tail().len();
            quiet = if now == seen { quiet + 1 } else { 0 };
            seen = now;
            if quiet >= 2 && seen > 0 {
                break;
            }
        }
    }

    /// What to add to a start error: the last lines of the agent's stderr
    /// and a hint, each on its own line (empty when there is neither).
    pub(crate) fn start_context(&self) -> String {
        let mut out = String::new();
        let tail = self.conn.stderr_tail();
        if !tail.is_empty() {
            let lines = last_lines(&tail, START_STDERR_LINES);
            out.push_str("\nits stderr ended with:\n");
            out.push_str(&capped(&lines, 4 * MAX_ERROR_DATA));
        }
        if self.sandbox_set() && is_claude_adapter(&self.agent.command) {
            out.push_str(
                "\nhint: IS_SANDBOX is set in the agent's environment (not to 1): run as root, \
                 Claude Code's adapter then asks Claude Code for --dangerously-skip-permissions, \
                 which it refuses, and its query closes before answering (\"Query closed before \
                 response received\"); start the editor or `rad` without it (`env -u IS_SANDBOX ...`)",
            );
        }
        out
    }

    /// The message for the agent's error answer to `method` during start.
    pub(crate) fn refused(&self, method: &str, e: &RpcError) -> String {
        let data = e
            .data
            .as_ref()
            .map(|d| format!(": {}", data_text(d)))
            .unwrap_or_default();
        let sign_in = if method == "session/new" && e.code == super::sign_in::AUTH_REQUIRED {
            lock(&self.state).tap.auth_refused = true;
            self.sign_in_help()
        } else {
            String::new()
        };
        format!(
            "agent `{}` refused `{method}`: {} (code {}){data}{sign_in}{}",
            self.agent.id,
            e.message,
            e.code,
            self.start_context()
        )
    }
}
