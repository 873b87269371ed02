//! Signing in to an agent: the `authMethods` of its `initialize` answer,
//! said when `session/new` fails because the agent needs a sign-in (ACP's
//! `auth_required`, code -32000), and `authenticate` for a method the agent
//! runs itself (type `agent`, the default). A `terminal` method is run by the
//! user: the message gives the exact command; an `env_var` method names the
//! variable to set in the agent's `env`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use super::session::{lock, AgentSession};
use crate::error::{Error, Result};

/// ACP's error code for "authentication required".
pub const AUTH_REQUIRED: i64 = -32000;

/// The most sign-in methods a message lists.
const MAX_METHODS: usize = 8;

/// A method's type: `agent` when it has none.
fn kind(method: &Value) -> &str {
    method
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("agent")
}

fn text<'a>(method: &'a Value, key: &str) -> &'a str {
    method.get(key).and_then(Value::as_str).unwrap_or("")
}

impl AgentSession {
    /// Keeps the agent's sign-in methods from its `initialize` answer, and
    /// whether it takes images.
    pub(crate) fn keep_auth_methods(&self, init: &Value) {
        let methods = init.get("authMethods").cloned().unwrap_or(json!([]));
        let images =
            init.pointer("/agentCapabilities/promptCapabilities/image") == Some(&json!(true));
        let mut state = lock(&self.state);
        state.auth_methods = methods;
        state.takes_images = images;
    }

    /// How to sign in, one line a method, for a start the agent refused as
    /// needing it; empty when the agent offered no method.
    pub(crate) fn sign_in_help(&self) -> String {
        let methods = lock(&self.state).auth_methods.clone();
        let Some(list) = methods.as_array().filter(|l| !l.is_empty()) else {
            return String::new();
        };
        let id = &self.agent.id;
        let mut out = format!("\nagent `{id}` needs you to sign in; its methods:");
        for method in list.iter().take(MAX_METHODS) {
            let (mid, name) = (text(method, "id"), text(method, "name"));
            let about = match text(method, "description") {
                "" => String::new(),
                d => format!(" ({d})"),
            };
            let how = match kind(method) {
                "terminal" => {
                    let mut command = self.agent.command.clone();
                    let args = method.get("args").and_then(Value::as_array);
                    command.extend(
                        args.into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_owned),
                    );
                    let mut env = String::new();
                    for (k, v) in method
                        .get("env")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                    {
                        let _ = write!(env, "{k}={} ", v.as_str().unwrap_or(""));
                    }
                    format!("run in a terminal: {env}{}", command.join(" "))
                }
                "env_var" => format!(
                    "set {} in the agent's env (`[agents.env]` in {})",
                    text(method, "varName"),
                    self.agent.source.display()
                ),
                _ => format!("`rad agents login {id} {mid}`"),
            };
            let _ = write!(out, "\n  - {mid}: {name}{about}: {how}");
        }
        out
    }

    /// Signs in with method `wanted` (empty: the agent's only method of
    /// type `agent`): `authenticate`, under the start time limit.
    pub(crate) async fn authenticate(&self, wanted: &str) -> Result<()> {
        let methods = lock(&self.state).auth_methods.clone();
        let list = methods.as_array().cloned().unwrap_or_default();
        let runnable: Vec<&Value> = list.iter().filter(|m| kind(m) == "agent").collect();
        let ids = || {
            runnable
                .iter()
                .map(|m| text(m, "id"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let id = &self.agent.id;
        let method = if wanted.is_empty() {
            match runnable.as_slice() {
                [one] => text(one, "id").to_owned(),
                [] => {
                    self.close();
                    return Err(Error::InvalidArgument(format!(
                        "agent `{id}` offers no sign-in radium can run for it{}",
                        self.sign_in_help()
                    )));
                }
                _ => {
                    self.close();
                    return Err(Error::InvalidArgument(format!(
                        "agent `{id}` offers several sign-in methods: name one of {}",
                        ids()
                    )));
                }
            }
        } else if runnable.iter().any(|m| text(m, "id") == wanted) {
            wanted.to_owned()
        } else {
            self.close();
            return Err(Error::InvalidArgument(format!(
                "agent `{id}` has no sign-in method `{wanted}` radium can run (it has: {}){}",
                if ids().is_empty() {
                    "none".to_owned()
                } else {
                    ids()
                },
                self.sign_in_help()
            )));
        };
        self.call_within_start("authenticate", json!({"methodId": method}))
            .await
            .map(|_| ())
    }

    /// Keeps what `session/new` takes for later, when the agent refused it
    /// as needing a sign-in; answers whether it did.
    pub(crate) fn wait_for_sign_in(
        &self,
        init: &Value,
        rad: Option<PathBuf>,
        servers: Value,
    ) -> bool {
        let mut state = lock(&self.state);
        let refused = std::mem::take(&mut state.tap.auth_refused);
        if !(refused && state.tap.front.is_some()) {
            return false;
        }
        state.tap.awaiting_sign_in = Some((init.clone(), rad, servers));
        true
    }

    /// Whether the agent's last refusal was of `session/new` as needing a
    /// sign-in, in a session that then waits for it (the agent is not ended).
    pub(crate) fn waits_for_sign_in(&self) -> bool {
        let state = lock(&self.state);
        state.tap.auth_refused && state.tap.front.is_some()
    }

    /// Whether the agent refused `session/new` as needing a sign-in and the
    /// session waits for it (opened for an ACP editor, which signs in with
    /// `authenticate` and then asks [`start_after_sign_in`](Self::start_after_sign_in)).
    pub fn awaiting_sign_in(&self) -> bool {
        lock(&self.state).tap.awaiting_sign_in.is_some()
    }

    /// Asks the agent for its session again once signed in (nothing when
    /// the session does not wait). When the agent still needs a sign-in,
    /// the session goes on waiting and the error says so.
    pub async fn start_after_sign_in(self: &Arc<Self>) -> Result<()> {
        let Some((init, rad, servers)) = lock(&self.state).tap.awaiting_sign_in.take() else {
            return Ok(());
        };
        let started = self
            .start_conversation(&init, rad.clone(), servers.clone(), None)
            .await;
        if started.is_err() {
            self.wait_for_sign_in(&init, rad, servers);
        }
        started
    }
}
