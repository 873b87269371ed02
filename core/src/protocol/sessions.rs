//! The session commands of the protocol: `session-new`, `session-prompt`,
//! `session-events`, `session-permission`, `session-cancel`, `session-close`,
//! `session-set-option`, `session-list` and `session-info`, and the [`Engine`] functions behind them.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::engine::Engine;
use super::envelope::Request;
use crate::error::{Error, Result};
use crate::sessions::{AgentSession, Entry, PermissionAnswer, SessionSetup};
use crate::support::json::{args_object, json_kind, optional_string_arg, string_arg};

/// The longest a `session-events` request waits for an event: 60 s.
pub const MAX_EVENTS_WAIT: Duration = Duration::from_secs(60);

type Work = Pin<Box<dyn Future<Output = Result<Value>> + Send>>;

/// The `images` of a `session-prompt`: file paths or inline data
/// (`{data, mimeType}`), none when absent; each checked by the session.
fn image_args(args: &Map<String, Value>) -> Result<&[Value]> {
    match args.get("images") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(list)) => Ok(list),
        Some(other) => Err(Error::InvalidArgument(format!(
            "`session-prompt`: argument `images` must be a list of file paths or `{{data, mimeType}}` objects, got {}",
            json_kind(other)
        ))),
    }
}

/// The prompt of a `session-prompt`: a string (one text block) or ACP
/// content blocks, plus the editor `context` as an embedded resource.
fn prompt_blocks(args: &Map<String, Value>) -> Result<Vec<Value>> {
    let mut blocks = match args.get("prompt") {
        Some(Value::String(text)) => vec![json!({"type": "text", "text": text})],
        Some(Value::Array(blocks)) if blocks.iter().all(Value::is_object) => blocks.clone(),
        Some(other) => {
            return Err(Error::InvalidArgument(format!(
            "`session-prompt`: argument `prompt` must be text or a list of content blocks, got {}",
            json_kind(other)
        )))
        }
        None => {
            return Err(Error::InvalidArgument(
                "`session-prompt`: missing argument `prompt`".into(),
            ))
        }
    };
    if let Some(context) = args.get("context").filter(|c| !c.is_null()) {
        let file = context
            .get("file_path")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                Error::InvalidArgument("`session-prompt`: `context` needs `file_path`".into())
            })?;
        let selection = context
            .get("selection")
            .and_then(Value::as_str)
            .unwrap_or("");
        let range = context.get("selection_range");
        let lines = match (
            range
                .and_then(|r| r.get("start_line"))
                .and_then(Value::as_u64),
            range
                .and_then(|r| r.get("end_line"))
                .and_then(Value::as_u64),
        ) {
            (Some(a), Some(b)) => format!("#L{a}-L{b}"),
            _ => String::new(),
        };
        blocks.push(json!({
            "type": "resource",
            "resource": {"uri": format!("file://{file}{lines}"), "text": selection, "mimeType": "text/plain"},
        }));
        if let Some(around) = context.get("surrounding_lines").and_then(Value::as_str) {
            if !around.is_empty() {
                blocks.push(json!({"type": "text", "text": format!("Lines around the selection in {file}:\n{around}")}));
            }
        }
    }
    if let Some(files) = args.get("open_files").filter(|f| !f.is_null()) {
        let bad = || {
            Error::InvalidArgument(
                "`session-prompt`: `open_files` must be a list of {path, text}".into(),
            )
        };
        for file in files.as_array().ok_or_else(bad)? {
            let path = file.get("path").and_then(Value::as_str).ok_or_else(bad)?;
            let text = file.get("text").and_then(Value::as_str).ok_or_else(bad)?;
            blocks.push(json!({
                "type": "resource",
                "resource": {"uri": format!("file://{path}"), "text": text, "mimeType": "text/plain"},
            }));
        }
    }
    Ok(blocks)
}

/// The editor's unsaved buffers (`{path: text}`; `null` forgets one), which
/// the agent's `fs/read_text_file` reads instead of the files on disk.
fn set_buffers(entry: &Entry, buffers: Option<&Value>) -> Result<()> {
    let Some(buffers) = buffers.filter(|b| !b.is_null()) else {
        return Ok(());
    };
    let map = buffers.as_object().ok_or_else(|| {
        Error::InvalidArgument(format!(
            "`session-prompt`: `buffers` must be an object {{path: text}}, got {}",
            json_kind(buffers)
        ))
    })?;
    for (path, text) in map {
        let text = match text {
            Value::String(t) => Some(t.clone()),
            Value::Null => None,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "`session-prompt`: the buffer of `{path}` must be text or null, got {}",
                    json_kind(other)
                )))
            }
        };
        entry.session.set_buffer(path, text)?;
    }
    Ok(())
}

/// The answer of a `session-permission`: `option`, one of the request's
/// option ids exactly (whatever its text: an id `allow` of kind
/// `reject_once` rejects), or `answer`, the word `allow` or `reject` (the
/// agent's option of that kind) or, for older doors, an option id. Which
/// of them allows is always decided by the chosen option's `kind`.
/// `hunks` (`{path: [index, ...]}`, with an answer that allows) keeps only
/// those hunks of the request's diffs (see [`AgentSession::answer_permission_with_hunks`]).
fn permission_answer(command: &str, args: &Map<String, Value>) -> Result<PermissionAnswer> {
    match (
        optional_string_arg(command, args, "option")?,
        optional_string_arg(command, args, "answer")?,
    ) {
        (Some(_), Some(_)) => Err(Error::InvalidArgument(format!(
            "`{command}`: give `option` (an option id) or `answer` (`allow` or `reject`), not both"
        ))),
        (Some(option), None) => Ok(PermissionAnswer::Option(option.to_owned())),
        (None, Some("allow")) => Ok(PermissionAnswer::Allow),
        (None, Some("reject")) => Ok(PermissionAnswer::Reject),
        (None, Some(other)) => Ok(PermissionAnswer::Option(other.to_owned())),
        (None, None) => Err(Error::InvalidArgument(format!(
            "`{command}`: missing argument `option` (an option id) or `answer` (`allow` or `reject`)"
        ))),
    }
}

impl Engine {
    /// Opens a session with ACP agent `agent_id` in `workspace` (or the
    /// engine's), in the conversation of dog tag `tag` (`None`, or a tag
    /// radium does not know: a new one): the agent is started and answers
    /// `initialize` and `session/new` before this resolves.
    pub fn open_session(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        tag: Option<String>,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        self.open_session_with(agent_id, workspace, tag, None, None, None)
    }

    /// [`open_session`](Self::open_session), signing in first with the
    /// agent's method `sign_in` (`authenticate`; empty: its only method of
    /// type `agent`) when given.
    pub fn open_session_signed(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        tag: Option<String>,
        sign_in: Option<String>,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        self.open_session_with(agent_id, workspace, tag, None, sign_in, None)
    }

    /// [`open_session`](Self::open_session) continuing conversation
    /// `resume` of the history (see [`crate::sessions::history`]); an
    /// unknown id fails before the agent starts.
    pub fn resume_session(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        tag: Option<String>,
        resume: Option<String>,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        self.open_session_with(agent_id, workspace, tag, resume, None, None)
    }

    /// [`open_session`](Self::open_session) with all: the conversation of
    /// the history to continue (`resume`), the sign-in method (`sign_in`)
    /// and an ACP editor in front (`editor`).
    pub(super) fn open_session_with(
        &self,
        agent_id: &str,
        workspace: Option<&Path>,
        tag: Option<String>,
        resume: Option<String>,
        sign_in: Option<String>,
        editor: Option<crate::sessions::tap::EditorSide>,
    ) -> impl Future<Output = Result<Entry>> + Send + 'static {
        let ws: Option<PathBuf> = workspace
            .map(Path::to_owned)
            .or_else(|| self.config.workspace.clone());
        let agents = self.agents_for(agent_id, ws.as_deref());
        let mcp = self.mcp_servers(ws.as_deref());
        let home = self.radium_home();
        let (registry, sessions, depth, log) = (
            self.registry.clone(),
            Arc::clone(&self.sessions),
            self.config.history_depth,
            Arc::clone(&self.log),
        );
        let rad_program = self
            .config
            .rad_program
            .clone()
            .or_else(|| crate::support::process::find_on_path("rad"));
        let id = agent_id.to_owned();
        async move {
            let agents = agents?;
            let Some(agent) = agents.iter().find(|a| a.id == id).cloned() else {
                return Err(Error::UnknownAgent {
                    id,
                    known: agents
                        .iter()
                        .map(|a| a.id.clone())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            };
            let Some(workspace) = ws else {
                return Err(Error::InvalidArgument(
                    "a session needs a workspace: give `cwd`, or create the engine with one".into(),
                ));
            };
            let setup = SessionSetup {
                id: sessions.next_id(),
                workspace: crate::support::paths::resolve(&workspace),
                radium_home: home,
                history_depth: depth,
                registry: registry.clone(),
                rad_program,
                tag,
                resume,
                log,
                mcp,
                sign_in,
                editor,
            };
            let runtime = registry.runtime_handle()?;
            let session = runtime
                .spawn(AgentSession::open(agent, setup))
                .await
                .map_err(|e| Error::Runtime(format!("the session did not open: {e}")))??;
            Ok(sessions.insert(session))
        }
    }

    /// The open session `id`.
    pub fn session(&self, id: &str) -> Result<Entry> {
        self.sessions.get(id)
    }

    /// The session commands that wait (`session-new`, `session-prompt`
    /// with `wait`, `session-events`); `None` for the others.
    pub(super) fn session_work(&self, request: &Request) -> Option<Work> {
        let command = request.command.as_str();
        let work: Work = match command {
            "session-new" => {
                let prepared = args_object(command, &request.args).and_then(|args| {
                    let agent = string_arg(command, args, "agent")?.to_owned();
                    Ok((
                        agent,
                        optional_string_arg(command, args, "tag")?.map(str::to_owned),
                        optional_string_arg(command, args, "resume")?.map(str::to_owned),
                    ))
                });
                match prepared {
                    Ok((agent, tag, resume)) => {
                        let ws = self.workspace_for(request.cwd.as_deref());
                        let open = self.resume_session(&agent, ws.as_deref(), tag, resume);
                        Box::pin(async move {
                            let entry = open.await?;
                            let s = &entry.session;
                            let mut answer = s.controls();
                            for (k, v) in [
                                ("session", json!(s.id)),
                                ("agent", json!(s.agent.id)),
                                ("workspace", json!(s.workspace)),
                                ("tag", json!(s.tag())),
                                ("warnings", json!(s.option_warnings())),
                                ("notices", json!(s.start_notices())),
                                ("conversation", json!(s.conversation())),
                                ("resumed", json!(s.resumed())),
                                ("resume_refused", json!(s.resume_refused())),
                                ("commands", s.commands()),
                                ("usage", json!(s.usage())),
                            ] {
                                answer[k] = v;
                            }
                            Ok(answer)
                        })
                    }
                    Err(e) => Box::pin(std::future::ready(Err(e))),
                }
            }
            "session-prompt" => match self.prompt_work(request) {
                Ok(work) => work,
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            "session-events" => match self.events_work(request) {
                Ok(work) => work,
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            "session-set-option" => match self.set_option_work(request) {
                Ok(work) => work,
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            _ => return None,
        };
        Some(work)
    }

    fn prompt_work(&self, request: &Request) -> Result<Work> {
        let command = "session-prompt";
        let args = args_object(command, &request.args)?;
        let entry = self.session(string_arg(command, args, "session")?)?;
        let blocks = prompt_blocks(args)?;
        // Checked now (a bad image is refused at once), read on the runtime.
        let images = entry.session.check_images(image_args(args)?)?;
        set_buffers(&entry, args.get("buffers"))?;
        let wait = args.get("wait").and_then(Value::as_bool).unwrap_or(false);
        let runtime = self.registry.runtime_handle()?;
        let _enter = runtime.enter();
        let rx = entry.session.prompt_with_images(blocks, images)?;
        if !wait {
            entry.queue.forward(rx, &entry.session);
            return Ok(Box::pin(std::future::ready(Ok(
                json!({"session": entry.session.id, "running": true}),
            ))));
        }
        Ok(Box::pin(async move {
            let mut rx = rx;
            let mut events = Vec::new();
            while let Some(event) = rx.recv().await {
                // Past a few hundred events, text chunks are joined.
                if events.len() < 256
                    || !crate::sessions::events::join_text(events.last_mut(), &event)
                {
                    events.push(event);
                }
            }
            let last = events.last().cloned().unwrap_or(Value::Null);
            if last["type"] == "error" {
                let message = last["message"].as_str().unwrap_or("").to_owned();
                return Err(if last["code"] == "agent_timeout" {
                    Error::AgentTimeout(message)
                } else {
                    Error::AgentFailed(message)
                });
            }
            Ok(json!({
                "stop_reason": last["stop_reason"], "text": last["text"],
                "code_blocks": last["code_blocks"], "tag": last["tag"], "events": events,
            }))
        }))
    }

    /// `session-set-option {session, option, value}`: the agent's option
    /// (an id, or a category: `mode`, `model`, `thought_level`) set to one
    /// of the values it offers; answers the session's controls after.
    fn set_option_work(&self, request: &Request) -> Result<Work> {
        let command = "session-set-option";
        let args = args_object(command, &request.args)?;
        let entry = self.session(string_arg(command, args, "session")?)?;
        let option = string_arg(command, args, "option")?.to_owned();
        let value = string_arg(command, args, "value")?.to_owned();
        let runtime = self.registry.runtime_handle()?;
        Ok(Box::pin(async move {
            let session = Arc::clone(&entry.session);
            let mut answer = runtime
                .spawn(async move { session.set_option(&option, &value).await })
                .await
                .map_err(|e| Error::Runtime(format!("the option was not set: {e}")))??;
            answer["session"] = json!(entry.session.id);
            Ok(answer)
        }))
    }

    fn events_work(&self, request: &Request) -> Result<Work> {
        let command = "session-events";
        let args = args_object(command, &request.args)?;
        let entry = self.session(string_arg(command, args, "session")?)?;
        let wait = match args.get("wait_ms") {
            None | Some(Value::Null) => Duration::ZERO,
            Some(v) => Duration::from_millis(v.as_u64().ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "`session-events`: argument `wait_ms` must be a non-negative integer, got {}",
                    json_kind(v)
                ))
            })?),
        }
        .min(MAX_EVENTS_WAIT);
        let runtime = self.registry.runtime_handle()?;
        Ok(Box::pin(async move {
            let queue = Arc::clone(&entry.queue);
            let events = runtime
                .spawn(async move { queue.take(wait).await })
                .await
                .unwrap_or_default();
            Ok(json!({"events": events, "running": entry.session.busy()}))
        }))
    }

    /// `history-list` (the conversations of the request's project, newest
    /// first, and warnings naming damaged files) and `history-read {id}`.
    fn history_command(
        &self,
        command: &str,
        args: &Map<String, Value>,
        cwd: Option<&str>,
    ) -> Result<Value> {
        let Some(workspace) = self.workspace_for(cwd) else {
            return Err(Error::InvalidArgument(format!(
                "`{command}` needs a project: give `cwd`, or create the engine with a workspace"
            )));
        };
        let folder = crate::sessions::history::folder_of(&workspace, &self.radium_home())?;
        if command == "history-read" {
            return crate::sessions::history::read(&folder, string_arg(command, args, "id")?);
        }
        let (conversations, warnings) = crate::sessions::history::list(&folder);
        Ok(json!({"conversations": conversations, "warnings": warnings}))
    }

    /// The session commands that answer at once; `None` for other commands.
    pub(super) fn session_command(
        &self,
        command: &str,
        args: &Map<String, Value>,
        cwd: Option<&str>,
    ) -> Option<Result<Value>> {
        let id = || string_arg(command, args, "session");
        Some(match command {
            "session-list" => Ok(self.sessions.list()),
            "history-list" | "history-read" => self.history_command(command, args, cwd),
            "session-info" => id().and_then(|id| Ok(self.session(id)?.session.info())),
            "session-cancel" => id().and_then(|id| {
                self.session(id)?.session.cancel();
                Ok(json!({"session": id, "cancelled": true}))
            }),
            "session-close" => id().and_then(|id| {
                self.sessions.close(id)?;
                Ok(json!({"session": id, "closed": true}))
            }),
            "session-permission" => id().and_then(|id| {
                let entry = self.session(id)?;
                let which = string_arg(command, args, "id")?;
                let answer = permission_answer(command, args)?;
                let waiting = match args.get("hunks") {
                    None | Some(Value::Null) => entry.session.answer_permission(which, answer),
                    Some(hunks) => {
                        let kept = crate::sessions::hunks::parse_kept(command, hunks)?;
                        entry
                            .session
                            .answer_permission_with_hunks(which, answer, &kept)?
                    }
                };
                if !waiting {
                    return Err(Error::InvalidArgument(format!(
                        "session `{id}` has no permission request `{which}` waiting (answered, timed out or cancelled)"
                    )));
                }
                Ok(json!({"session": id, "id": which, "answered": true}))
            }),
            _ => return None,
        })
    }
}
