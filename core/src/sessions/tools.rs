//! What the agent's tool calls did. Some agents write files themselves after
//! a permission request (Claude Code's adapter does) instead of through
//! `fs/write_text_file`: radium reads the files a tool call names before it
//! runs (when the call is announced as an edit, and when it is allowed) and
//! records what changed once the call completes, as an edit of the session's
//! conversation, so `undo` and a rewind take it back like any other. Then the
//! `after_tool` hooks see the call's result and its diffs.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use super::hunks::{record_take_back, Review};
use super::session::{lock, AgentSession};
use super::snapshot::{snapshot_of, Before, Snapshot};
use crate::edit::{EditOutcome, EditSession, Project};
use crate::error::{Error, Result};
use crate::hooks::context::HookContext;
use crate::hooks::hook_type::HookType;
use crate::hooks::registry::ExecuteOptions;
use crate::support::atomic::read_text_file;

/// The most paths radium keeps of what one tool call announced.
const MAX_ANNOUNCED: usize = 1024;

/// A tool call radium keeps an eye on.
#[derive(Default)]
pub(crate) struct Watched {
    /// Its title (the tool's name for the hooks).
    pub title: String,
    /// Its arguments as the agent sent them.
    pub raw_input: Value,
    /// The files it names, with their text before it ran (None: missing).
    pub files: HashMap<PathBuf, Option<Arc<Snapshot>>>,
    /// Every path it announced (in its `tool_call` and its updates), as
    /// the agent wrote them: radium's rule checks them all.
    pub announced: Vec<String>,
}

/// The keys of a tool call's `rawInput` whose text values are paths: any
/// key with `path` in its name (`path`, `file_path`, `filePath`, `paths`,
/// `notebook_path`, ...), and `file`, `filename`, `files`.
fn is_path_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.contains("path") || matches!(key.as_str(), "file" | "filename" | "files")
}

/// The paths in a tool call's `rawInput` (see [`is_path_key`]), looked for
/// four levels deep.
fn raw_input_paths(value: &Value, depth: usize, paths: &mut Vec<String>) {
    if depth > 4 || paths.len() >= MAX_ANNOUNCED {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match v {
                    Value::String(p) if is_path_key(key) => paths.push(p.clone()),
                    Value::Array(items) if is_path_key(key) => paths.extend(
                        items
                            .iter()
                            .filter_map(Value::as_str)
                            .take(MAX_ANNOUNCED)
                            .map(str::to_owned),
                    ),
                    _ => raw_input_paths(v, depth + 1, paths),
                }
            }
        }
        Value::Array(items) => {
            for item in items.iter().take(MAX_ANNOUNCED) {
                raw_input_paths(item, depth + 1, paths);
            }
        }
        _ => {}
    }
}

/// The paths a tool call (or its update) names: its locations, its diffs
/// and the paths of its `rawInput`.
pub(crate) fn paths_of(call: &Value) -> Vec<String> {
    let mut paths = Vec::new();
    for list in ["locations", "content"] {
        if let Some(items) = call.get(list).and_then(Value::as_array) {
            paths.extend(
                items
                    .iter()
                    .filter_map(|i| i.get("path").and_then(Value::as_str))
                    .take(MAX_ANNOUNCED)
                    .map(str::to_owned),
            );
        }
    }
    if let Some(input) = call.get("rawInput") {
        raw_input_paths(input, 0, &mut paths);
    }
    paths.truncate(MAX_ANNOUNCED);
    paths
}

/// Whether a tool call (as announced) may change files.
fn writes_files(call: &Value) -> bool {
    matches!(
        call.get("kind").and_then(Value::as_str),
        Some("edit" | "delete" | "move")
    ) || call
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|c| c.iter().any(|i| i["type"] == "diff"))
}

impl AgentSession {
    /// Notes a tool call (from a `tool_call` update, an update of it, or a
    /// permission request): its title, arguments and the paths it names,
    /// and, when it may change files (or `allowed` says it is about to run)
    /// and has not ended, the text of each file it names inside the
    /// workspace that is not read yet (within [`super::MAX_SNAPSHOT_FILE`] and
    /// [`super::MAX_SNAPSHOTS`]).
    pub(crate) fn watch(&self, call: &Value, allowed: bool) {
        let Some(id) = call.get("toolCallId").and_then(Value::as_str) else {
            return;
        };
        let ended = matches!(
            call.get("status").and_then(Value::as_str),
            Some("completed" | "failed")
        );
        let paths = paths_of(call);
        let snapshot = (allowed || writes_files(call)) && !ended;
        let files: Vec<PathBuf> = if snapshot {
            match self.project() {
                Ok(project) => paths
                    .iter()
                    .filter_map(|p| project.confine_write(p).ok())
                    .collect(),
                Err(_) => Vec::new(),
            }
        } else {
            Vec::new()
        };
        let mut notices = Vec::new();
        {
            let mut state = lock(&self.state);
            let held = Arc::clone(&state.snapshot_bytes);
            let state = &mut *state;
            let watched = state.watched.entry(id.to_owned()).or_default();
            if let Some(title) = call.get("title").and_then(Value::as_str) {
                title.clone_into(&mut watched.title);
            }
            if let Some(input) = call.get("rawInput") {
                watched.raw_input = input.clone();
            }
            for path in paths {
                if watched.announced.len() < MAX_ANNOUNCED && !watched.announced.contains(&path) {
                    watched.announced.push(path);
                }
            }
            let new: Vec<PathBuf> = files
                .into_iter()
                .filter(|f| !watched.files.contains_key(f))
                .collect();
            let mut read = Vec::new();
            for file in new {
                let shared = state
                    .watched
                    .values()
                    .find_map(|w| w.files.get(&file).cloned());
                match snapshot_of(&file, shared.flatten(), &held, &mut notices, &state.skipped) {
                    Before::Skipped => {}
                    Before::Missing => read.push((file, None)),
                    Before::Text(text) => read.push((file, Some(text))),
                }
            }
            let watched = state.watched.entry(id.to_owned()).or_default();
            for (file, text) in read {
                watched.files.insert(file, text);
            }
            for notice in &notices {
                state.skipped.push(notice.0.clone());
            }
        }
        for (_, message) in notices {
            self.emit(json!({"type": "notice", "message": message}));
        }
    }

    /// The paths tool call `id` announced so far.
    pub(crate) fn announced(&self, id: &str) -> Vec<String> {
        lock(&self.state)
            .watched
            .get(id)
            .map(|w| w.announced.clone())
            .unwrap_or_default()
    }

    /// A file the agent wrote through radium: the tool calls watching it
    /// now start from that text, so it is not recorded twice.
    pub(crate) fn written_through_radium(&self, file: &PathBuf, text: &str) {
        let mut state = lock(&self.state);
        let held = Arc::clone(&state.snapshot_bytes);
        let mut written = None;
        for watched in state.watched.values_mut() {
            if let Some(before) = watched.files.get_mut(file) {
                let text = written.get_or_insert_with(|| Snapshot::new(text.to_owned(), &held));
                *before = Some(Arc::clone(text));
            }
        }
    }

    /// The session's workspace as an edit project.
    pub(crate) fn project(&self) -> Result<Project> {
        Project::open(&self.workspace, &self.radium_home)
    }

    /// Runs `work` on the workspace's edit session (off the runtime's
    /// threads) with the session's tag; an edit it made (for `path`) moves
    /// the session's tag and is a `write` event (`by: "agent"` when the agent
    /// wrote the file itself), with the fields of `extra` (an object).
    pub(crate) async fn edit(
        &self,
        path: &str,
        extra: Value,
        work: impl FnOnce(&mut EditSession, Option<&str>) -> Result<Option<EditOutcome>>
            + Send
            + 'static,
    ) -> Result<Option<EditOutcome>> {
        let (root, home, depth, tag) = (
            self.workspace.clone(),
            self.radium_home.clone(),
            self.history_depth,
            self.tag(),
        );
        let outcome = tokio::task::spawn_blocking(move || {
            let mut edit = EditSession::open(&root, &home, depth)?;
            // The session's conversation may be shared with the `rad mcp`
            // its agent runs: continue it where it is, never rewind it.
            let tag = tag.map(|t| edit.latest_tag(&t));
            work(&mut edit, tag.as_deref())
        })
        .await
        .map_err(|e| Error::Runtime(format!("the edit did not finish: {e}")))??;
        if let Some(outcome) = &outcome {
            lock(&self.state).tag.clone_from(&outcome.tag);
            let seq = outcome.data.get("seq").cloned().unwrap_or(Value::Null);
            let mut event = json!({"type": "write", "path": path, "tag": outcome.tag, "seq": seq});
            if let (Value::Object(event), Value::Object(extra)) = (&mut event, extra) {
                event.extend(extra);
            }
            self.emit(event);
        }
        Ok(outcome)
    }

    /// Gives the session its conversation before the agent is asked for
    /// anything: `tag`'s when radium knows it, else a new one. The door
    /// records its own steps with the session's tag (`session-new` answers
    /// it), so a review accepted before the agent wrote anything is in the
    /// same chain as the agent's writes. A history that cannot be written
    /// leaves the session without a tag (its first write starts one).
    pub(crate) async fn join_conversation(&self, tag: Option<String>) {
        let (root, home, depth) = (
            self.workspace.clone(),
            self.radium_home.clone(),
            self.history_depth,
        );
        let joined = tokio::task::spawn_blocking(move || {
            EditSession::open(&root, &home, depth)?.continue_conversation(tag.as_deref())
        })
        .await;
        if let Ok(Ok(tag)) = joined {
            lock(&self.state).tag = Some(tag);
        }
    }

    /// The MCP servers `session/new` offers the agent: radium's own (`rad
    /// mcp`) when the agent's `radium_mcp` allows it and `rad` is known. The
    /// server continues this session's conversation, so its edits and the
    /// session's are one chain that undo and rewinds take back together.
    pub(crate) fn mcp_servers(&self, rad: Option<PathBuf>) -> Value {
        let Some(rad) = rad.filter(|_| self.agent.radium_mcp) else {
            return json!([]);
        };
        let tag = {
            let mut state = lock(&self.state);
            let Some(tag) = state.tag.clone() else {
                state.start_notices.push(
                    "radium's tools are not offered to the agent: the edit history could not be written"
                        .to_owned(),
                );
                drop(state);
                self.log.write(
                    crate::support::log::Level::Warn,
                    "session",
                    format!(
                        "{}: radium's tools are not offered: the edit history could not be written",
                        self.id
                    ),
                );
                return json!([]);
            };
            state.shares_conversation = true;
            tag
        };
        json!([{
            "name": "radium",
            "command": rad,
            "args": ["--workspace", self.workspace, "--tag", tag, "mcp"],
            "env": [{"name": "RADIUM_HOME", "value": self.radium_home}],
        }])
    }

    /// Catches up with what this session's `rad mcp` did in its
    /// conversation: a `write` event (`by: "mcp"`) for each of its edits
    /// since the session's tag, which moves to the latest state. Run when a
    /// tool call ends and at the end of a turn, only when the agent got
    /// that server.
    pub(crate) async fn catch_up(&self) {
        let tag = {
            let state = lock(&self.state);
            match &state.tag {
                Some(tag) if state.shares_conversation => tag.clone(),
                _ => return,
            }
        };
        let (root, home, depth) = (
            self.workspace.clone(),
            self.radium_home.clone(),
            self.history_depth,
        );
        let since = tokio::task::spawn_blocking(move || {
            EditSession::open(&root, &home, depth).map(|edit| edit.operations_since(&tag))
        })
        .await;
        let Ok(Ok((latest, ops))) = since else {
            return;
        };
        lock(&self.state).tag = Some(latest.clone());
        // What `rad mcp` wrote is recorded already: the tool calls watching
        // those files start from it, so it is not recorded again as the
        // agent's own write.
        if let Ok(project) = self.project() {
            let mut seen = std::collections::HashSet::new();
            for (_, _, file) in &ops {
                let Ok(path) = project.confine(file) else {
                    continue;
                };
                if seen.insert(path.clone()) {
                    if let Ok(text) = read_text_file(&path) {
                        self.written_through_radium(&path, &text);
                    }
                }
            }
        }
        for (seq, command, file) in ops {
            self.emit(json!({
                "type": "write", "path": file, "tag": latest, "seq": seq,
                "command": command, "by": "mcp",
            }));
        }
    }

    /// Records what the files a tool call names hold now, when it changed
    /// since they were read, as the session's edits; answers the diffs.
    async fn record_files(
        &self,
        call: &str,
        files: HashMap<PathBuf, Option<Arc<Snapshot>>>,
    ) -> Vec<Value> {
        let mut diffs = Vec::new();
        let mut files: Vec<_> = files.into_iter().collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        for (file, before) in files {
            let now = read_text_file(&file).ok();
            if now.as_deref() == before.as_deref().map(Snapshot::text) {
                continue;
            }
            let shown = file.to_string_lossy().into_owned();
            let Some(after) = now else {
                self.emit(json!({
                    "type": "notice",
                    "message": format!("the agent removed `{shown}`; radium records only files that exist, so undo cannot bring it back"),
                }));
                continue;
            };
            // The hunks the user rejected of this very call's change.
            let review = {
                let mut state = lock(&self.state);
                match state.reviews.get(&file) {
                    Some(r) if r.call == call => state.reviews.remove(&file),
                    _ => None,
                }
            };
            let (kept, extra) = self.reviewed(&shown, review, &after);
            let (path, old, text) = (file.clone(), before.clone(), kept.clone());
            let work = self
                .edit(&shown, extra, move |edit, tag| {
                    let first =
                        edit.record_written(&path, old.as_deref().map(Snapshot::text), tag)?;
                    match (first, text) {
                        (Some(first), Some(text)) => {
                            record_take_back(edit, &path, &first, &text).map(Some)
                        }
                        (first, _) => Ok(first),
                    }
                })
                .await;
            match work {
                Ok(Some(_)) => {
                    let old_text = before.as_deref().map(Snapshot::text);
                    let new_text = kept.unwrap_or(after);
                    diffs.push(json!({"path": shown, "old_text": old_text, "new_text": new_text}));
                }
                Ok(None) => {}
                Err(e) => self.emit(json!({
                    "type": "notice",
                    "message": format!("the agent wrote `{shown}` itself and radium could not record it: {e}"),
                })),
            }
        }
        diffs
    }

    /// What the agent wrote to `shown` (`after`) with the hunks the user
    /// rejected taken back (`None`: nothing to take back), and the fields
    /// the `write` event gets; a notice names the hunks that no longer
    /// apply (the agent wrote something else than it proposed).
    fn reviewed(
        &self,
        shown: &str,
        review: Option<Review>,
        after: &str,
    ) -> (Option<String>, Value) {
        let mut extra = json!({"by": "agent"});
        let Some(review) = review else {
            return (None, extra);
        };
        let (text, done, left) = review.take_back(after);
        extra["hunks_taken_back"] = json!(done);
        if !left.is_empty() {
            extra["hunks_not_taken_back"] = json!(left);
            self.emit(json!({
                "type": "notice",
                "message": format!(
                    "the agent wrote `{shown}` differently from the change you reviewed: hunks {left:?} you rejected could not be found in it and were left as the agent wrote them"
                ),
            }));
        }
        ((text != after).then_some(text), extra)
    }

    /// A tool call ended (`completed` or `failed`): its writes are recorded,
    /// then the `after_tool` hooks run (without holding up the stream).
    pub(crate) async fn tool_finished(self: &std::sync::Arc<Self>, update: &Value) {
        let Some(id) = update.get("toolCallId").and_then(Value::as_str) else {
            return;
        };
        self.catch_up().await;
        let Some(watched) = lock(&self.state).watched.remove(id) else {
            return;
        };
        let diffs = self.record_files(id, watched.files).await;
        // A review of a call that wrote nothing (it failed) ends with it.
        lock(&self.state).reviews.retain(|_, r| r.call != id);
        let context = json!({
            "tool_name": watched.title,
            "arguments": watched.raw_input,
            "result": update.get("rawOutput").or_else(|| update.get("content")).cloned().unwrap_or(Value::Null),
            "status": update.get("status").cloned().unwrap_or(Value::Null),
            "diffs": diffs,
            "tool_call_id": id,
            "session": self.id,
        });
        let registry = self.registry.clone();
        let task = tokio::spawn(async move {
            registry
                .execute_async(
                    HookContext::new(HookType::AfterTool, context),
                    ExecuteOptions::default(),
                )
                .await;
        });
        lock(&self.state).tool_hooks.push(task);
    }

    /// The end of a turn: tool calls that never said they completed have
    /// their writes recorded now, and the `after_tool` hooks finish.
    pub(crate) async fn settle_tools(&self) {
        self.catch_up().await;
        let left: Vec<(String, Watched)> = lock(&self.state).watched.drain().collect();
        for (id, watched) in left {
            self.record_files(&id, watched.files).await;
        }
        lock(&self.state).reviews.clear();
        let tasks = std::mem::take(&mut lock(&self.state).tool_hooks);
        for task in tasks {
            let _ = task.await;
        }
    }
}
