//! What radium does for the agent (ACP's client side): permission requests
//! (decided by radium's own rules, then the tool hooks, then the door), and
//! reading and writing files (writes become radium edits: confined, atomic,
//! recorded with dog tags so `undo` and a rewind take them back).

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::events::tool_call;
use super::hunks::{number_hunks, Proposed, Review};
use super::rpc::RpcError;
use super::session::{lock, method_not_found, AgentSession, PermissionAnswer, Waiting};
use super::snapshot::MAX_SNAPSHOT_FILE;
use super::tools::paths_of;
use crate::edit::commands::around;
use crate::error::Error;
use crate::hooks::context::HookContext;
use crate::hooks::hook_type::HookType;
use crate::hooks::outcome::HookRunStatus;
use crate::hooks::registry::ExecuteOptions;

type Answer = std::result::Result<Value, RpcError>;

fn rpc_error(e: &Error) -> RpcError {
    RpcError {
        code: -32000,
        message: e.to_string(),
        data: None,
    }
}

/// Serves one request of the agent.
pub(crate) async fn serve(session: &AgentSession, method: &str, params: Value) -> Answer {
    match method {
        "session/request_permission" => {
            let call_id = params.pointer("/toolCall/toolCallId");
            if !call_id.is_some_and(Value::is_string) {
                return Err(RpcError {
                    code: -32602,
                    message:
                        "`session/request_permission`: `toolCall.toolCallId` (a string) is missing"
                            .into(),
                    data: None,
                });
            }
            let limit = session.agent.permission_timeout;
            Ok(permission(session, &params, limit).await)
        }
        "fs/read_text_file" => match session.read_from_owner(&params).await {
            Some(answer) => answer,
            None => read(session, &params),
        },
        "fs/write_text_file" => write(session, &params).await,
        other => match session.unserved(other, params).await {
            Some(answer) => answer,
            None => Err(method_not_found(other)),
        },
    }
}

async fn permission(session: &AgentSession, params: &Value, limit: Duration) -> Value {
    let call = params.get("toolCall").cloned().unwrap_or(Value::Null);
    let options: Vec<Value> = params
        .get("options")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let pick = |kinds: &[&str]| {
        kinds.iter().find_map(|kind| {
            options
                .iter()
                .find(|o| o.get("kind").and_then(Value::as_str) == Some(kind))
                .and_then(|o| o.get("optionId").cloned())
        })
    };
    let allow = pick(&["allow_once", "allow_always"]);
    let reject = pick(&["reject_once", "reject_always"]);
    let call_id = call.get("toolCallId").cloned().unwrap_or(Value::Null);
    let decide = |allowed: bool, by: &str, reason: &str| {
        if allowed {
            session.watch(&call, true);
        }
        session.emit(json!({
            "type": "permission_decided", "id": call_id, "allowed": allowed,
            "by": by, "reason": reason,
        }));
        let option = if allowed { &allow } else { &reject };
        match option {
            Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
            None => json!({"outcome": {"outcome": "cancelled"}}),
        }
    };
    // 1. radium's own rule: nothing outside the workspace or in .radium/.git,
    // for every path the call named (here, in its `tool_call`, its updates).
    if let Some(reason) = refused_path(session, &call) {
        return decide(false, "radium", &reason);
    }
    // and no edit while the agent is in plan mode, whoever would allow it.
    if let Some(reason) = session.plan_mode_refusal(&call) {
        return decide(false, "radium", &reason);
    }
    // 2. the tool hooks: a stop denies; `permission: "allow"` allows.
    match tool_hooks(session, &call, "permission").await {
        Verdict::Stop { by, reason } => return decide(false, &by, &reason),
        Verdict::Allow { by } => return decide(true, &by, "a before_tool hook allowed it"),
        Verdict::NoOpinion => {}
    }
    // 3. the door (the editor asks the user).
    let shown: Vec<Value> = options
        .iter()
        .map(|o| json!({"id": o.get("optionId"), "name": o.get("name"), "kind": o.get("kind")}))
        .collect();
    let mut shown_call = tool_call("tool_call", &call);
    fill_old_texts(session, &mut shown_call);
    let proposed = number_hunks(&mut shown_call);
    let allowing: Vec<String> = options
        .iter()
        .filter(|o| {
            o.get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with("allow"))
        })
        .filter_map(|o| o.get("optionId").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let (tx, rx) = oneshot::channel();
    let id = {
        let mut state = lock(&session.state);
        if state.sink.is_none() {
            drop(state);
            return decide(false, "radium", "no turn is running");
        }
        state.next_permission += 1;
        let id = format!("p{}", state.next_permission);
        let waiting = Waiting {
            tx,
            allowing,
            proposed,
        };
        state.permissions.insert(id.clone(), waiting);
        id
    };
    session.emit(json!({
        "type": "permission", "id": id,
        "tool_call": shown_call, "options": shown,
    }));
    match tokio::time::timeout(limit, rx).await {
        Ok(Ok(Some((answer, reviewed)))) => {
            let chosen = match answer {
                PermissionAnswer::Allow => allow.clone().map(|a| (true, a)),
                PermissionAnswer::Reject => reject.clone().map(|r| (false, r)),
                PermissionAnswer::Option(o) => options
                    .iter()
                    .find(|opt| opt.get("optionId").and_then(Value::as_str) == Some(&o))
                    .map(|opt| {
                        let kind = opt.get("kind").and_then(Value::as_str).unwrap_or("");
                        (kind.starts_with("allow"), Value::String(o.clone()))
                    }),
            };
            match chosen {
                Some((allowed, option)) => {
                    if allowed {
                        session.watch(&call, true);
                    }
                    let mut decided = json!({
                        "type": "permission_decided", "id": call_id, "allowed": allowed,
                        "by": "door", "reason": "",
                    });
                    if allowed && !reviewed.is_empty() {
                        let call = call_id.as_str().unwrap_or_default();
                        decided["hunks_rejected"] = keep_reviews(session, call, reviewed);
                    }
                    session.emit(decided);
                    json!({"outcome": {"outcome": "selected", "optionId": option}})
                }
                None => decide(false, "radium", "the answer matched none of the options"),
            }
        }
        Ok(Ok(None)) => {
            session.emit(json!({
                "type": "permission_decided", "id": call_id, "allowed": false,
                "by": "cancel", "reason": "the turn was cancelled",
            }));
            json!({"outcome": {"outcome": "cancelled"}})
        }
        Ok(Err(_)) | Err(_) => {
            lock(&session.state).permissions.remove(&id);
            decide(
                false,
                "timeout",
                &format!("nobody answered within {} s", limit.as_secs()),
            )
        }
    }
}

/// Keeps the reviewed changes of an allowed call until the agent writes
/// them (those with every hunk kept need nothing); answers the rejected
/// hunks, `{path: [index, ...]}`.
fn keep_reviews(session: &AgentSession, call: &str, reviewed: Vec<(Proposed, Vec<bool>)>) -> Value {
    let project = session.project().ok();
    let mut rejected = Map::new();
    let mut state = lock(&session.state);
    for (change, kept) in reviewed {
        let review = Review {
            call: call.to_owned(),
            change,
            kept,
        };
        let out = review.rejected();
        if out.is_empty() {
            continue;
        }
        let file = project
            .as_ref()
            .and_then(|p| p.confine_write(&review.change.path).ok());
        if let Some(file) = file {
            rejected.insert(review.change.path.clone(), json!(out));
            state.reviews.insert(file, review);
        }
    }
    Value::Object(rejected)
}

/// radium's own rule for a tool call: why it may not run (a path outside
/// the workspace, or inside `.radium/` or `.git/`), for every path it named
/// (in `call`, and in its `tool_call` and updates as announced).
pub(crate) fn refused_path(session: &AgentSession, call: &Value) -> Option<String> {
    let project = session.project();
    let mut paths = paths_of(call);
    if let Some(id) = call.get("toolCallId").and_then(Value::as_str) {
        for path in session.announced(id) {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths.into_iter().find_map(|path| match &project {
        Ok(p) => p.confine_write(&path).err().map(|e| e.to_string()),
        Err(e) => Some(e.to_string()),
    })
}

/// What the `before_tool` chain said of a tool call.
pub(crate) enum Verdict {
    /// A hook stopped it (or the hook configuration is broken).
    Stop {
        /// `hook:<name>`.
        by: String,
        /// The hook's reason.
        reason: String,
    },
    /// A hook set `permission: "allow"`.
    Allow {
        /// `hook:<name>` of the last hook that changed the data, else `hook`.
        by: String,
    },
    /// Neither: the agent's own flow (a permission request, the door) goes on.
    NoOpinion,
}

/// Runs the `before_tool` chain for a tool call the agent announced or
/// asks about: `{tool_name: <its title>, arguments: <its rawInput>,
/// tool_call, session, via}` (`via`: `permission` for a permission request,
/// `pre_tool_use` for Claude Code's hook). Runs on the engine's runtime;
/// hooks of the doors (Lua, JS) are sent to the editor's main loop.
pub(crate) async fn tool_hooks(session: &AgentSession, call: &Value, via: &str) -> Verdict {
    let title = call.get("title").and_then(Value::as_str).unwrap_or("tool");
    let outcome = session
        .registry
        .execute_async(
            HookContext::new(
                HookType::BeforeTool,
                json!({
                    "tool_name": title,
                    "arguments": call.get("rawInput").cloned().unwrap_or(Value::Null),
                    "tool_call": call,
                    "session": session.id,
                    "via": via,
                }),
            ),
            ExecuteOptions::default(),
        )
        .await;
    if let Some(stop) = outcome.stopped_by {
        return Verdict::Stop {
            by: format!("hook:{}", stop.hook),
            reason: stop.reason,
        };
    }
    if outcome.data.get("permission").and_then(Value::as_str) == Some("allow") {
        let by = outcome
            .hooks
            .iter()
            .rev()
            .find(|run| run.status == HookRunStatus::Modified)
            .map_or_else(|| "hook".to_owned(), |run| format!("hook:{}", run.name));
        return Verdict::Allow { by };
    }
    Verdict::NoOpinion
}

/// A diff whose `old_text` is null for a file that exists (some agents send
/// a whole-file write that way) gets the file's text, so the door shows
/// what the write replaces rather than a new file. A file past
/// [`MAX_SNAPSHOT_FILE`] is left as the agent sent it.
pub(super) fn fill_old_texts(session: &AgentSession, call: &mut Value) {
    let Some(diffs) = call.get_mut("diffs").and_then(Value::as_array_mut) else {
        return;
    };
    let Ok(project) = session.project() else {
        return;
    };
    for diff in diffs {
        if !diff["old_text"].is_null() {
            continue;
        }
        let Some(path) = diff["path"].as_str() else {
            continue;
        };
        let text = project
            .confine(path)
            .ok()
            .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() <= MAX_SNAPSHOT_FILE))
            .and_then(|f| crate::support::atomic::read_text_file(&f).ok());
        if let Some(text) = text {
            diff["old_text"] = Value::String(text);
        }
    }
}

fn str_param<'a>(params: &'a Value, name: &str) -> std::result::Result<&'a str, RpcError> {
    params.get(name).and_then(Value::as_str).ok_or(RpcError {
        code: -32602,
        message: format!("missing string parameter `{name}`"),
        data: None,
    })
}

fn read(session: &AgentSession, params: &Value) -> Answer {
    let path = str_param(params, "path")?;
    let project = session.project().map_err(|e| rpc_error(&e))?;
    let file = project.confine(path).map_err(|e| rpc_error(&e))?;
    let buffered = lock(&session.state).buffers.get(&file).cloned();
    let text = match buffered {
        Some(text) => text,
        None => crate::support::atomic::read_text_file(&file).map_err(|e| RpcError {
            code: -32002,
            message: format!("cannot read `{path}`: {e}"),
            data: None,
        })?,
    };
    let line = params
        .get("line")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1);
    let limit = params.get("limit").and_then(Value::as_u64);
    let content = if line == 1 && limit.is_none() {
        text
    } else {
        let skip = usize::try_from(line - 1).unwrap_or(usize::MAX);
        let take = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        text.split_inclusive('\n').skip(skip).take(take).collect()
    };
    Ok(json!({"content": content}))
}

/// The agent's `fs/write_text_file`: the `create` edit (`{path, content,
/// overwrite: true}`, whether the file exists or not) between the
/// `before_tool` and `after_tool` chains, as an editor's `create` runs, in
/// the session's conversation. A stop is the agent's error and a
/// `write_refused` event.
async fn write(session: &AgentSession, params: &Value) -> Answer {
    let path = str_param(params, "path")?.to_owned();
    let mut content = str_param(params, "content")?.to_owned();
    // The hunks the user rejected at the permission prompt are left out.
    let mut extra = json!({});
    let file = session.project().and_then(|p| p.confine_write(&path)).ok();
    let review = file.and_then(|f| lock(&session.state).reviews.remove(&f));
    if let Some(review) = review {
        let (text, done, left) = review.take_back(&content);
        content = text;
        extra["hunks_taken_back"] = json!(done);
        if !left.is_empty() {
            extra["hunks_not_taken_back"] = json!(left);
            session.emit(json!({
                "type": "notice",
                "message": format!(
                    "the agent's write of `{path}` is not the change you reviewed: hunks {left:?} you rejected could not be found in it and were written"
                ),
            }));
        }
    }
    let mut args = Map::new();
    args.insert("path".into(), Value::String(path.clone()));
    args.insert("content".into(), Value::String(content));
    args.insert("overwrite".into(), Value::Bool(true));
    let shown = path.clone();
    let work = around(
        &session.registry,
        "create".into(),
        args,
        |args| async move {
            // The hooks may have changed the arguments: what is written is theirs.
            let target = args
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or(&shown)
                .to_owned();
            let written = args
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let outcome = session
                .edit(&target, extra, move |edit, tag| {
                    edit.run("create", &args, tag).map(Some)
                })
                .await?
                .ok_or_else(|| Error::Runtime("the write made no edit".into()))?;
            if let Ok(file) = session.project().and_then(|p| p.confine(&target)) {
                session.written_through_radium(&file, &written);
            }
            Ok(outcome)
        },
    )
    .await;
    match work {
        Ok(_) => Ok(json!({})),
        Err(e) => {
            session.emit(json!({
                "type": "write_refused", "path": path, "code": e.code(), "error": e.to_string(),
            }));
            Err(rpc_error(&e))
        }
    }
}
