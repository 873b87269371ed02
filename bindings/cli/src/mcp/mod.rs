//! `rad mcp`: radium's edit tools for any agent, as a Model Context Protocol
//! server on stdio (the `rmcp` crate). Every call is an engine request like
//! any other (confined to the workspace, atomic, through the tool hooks,
//! recorded as a changeset); the server is one conversation and keeps its
//! dog tag, so `undo` takes back its own last edit and `rewind` goes back to
//! an earlier tag. See docs/mcp.md.

mod stdio;
mod tools;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use radium_core::edit::EditSession;
use radium_core::{Engine, EngineConfig, Request};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

/// What the server tells an agent about itself when it connects.
const INSTRUCTIONS: &str = "radium's edit tools. Every write is atomic, confined to the \
workspace, passes the workspace's hooks, and is recorded: `undo` takes back this \
conversation's last edit, `rewind` goes back to an earlier [tag: ...]. Use `view` to \
read a file with line numbers before editing it.";

/// The server: the engine, its workspace and this conversation's tag.
#[derive(Clone)]
struct RadiumTools {
    engine: Arc<Engine>,
    workspace: PathBuf,
    /// Held for the whole of a call: calls of one conversation run one
    /// after the other, each continuing from the tag the last one left.
    tag: Arc<tokio::sync::Mutex<Option<String>>>,
}

impl RadiumTools {
    /// Runs one tool call through the engine and keeps the answer's tag.
    async fn run(&self, name: &str, args: Map<String, Value>) -> CallToolResult {
        let Some(tool) = tools::find(name) else {
            let names: Vec<&str> = tools::TOOLS.iter().map(|t| t.name).collect();
            return failure(&format!(
                "unknown tool `{}` (the tools: {})",
                short(name),
                names.join(", ")
            ));
        };
        if let Err(message) = tools::check(tool, &args) {
            return failure(&format!("bad arguments: {message}"));
        }
        let mut current = self.tag.lock().await;
        if current.is_none() && matches!(tool.command, "undo" | "redo") {
            // Without a tag the engine would take back the project's latest
            // operation, whoever made it: never another client's.
            return failure(&format!(
                "nothing to {}: this server has made no edit yet (its undo and redo work on its own conversation only)",
                tool.command
            ));
        }
        if tool.command == "rewind" {
            let target = args.get("tag").and_then(Value::as_str).unwrap_or_default();
            if let Err(message) = self.own_conversation(current.clone(), target).await {
                return failure(&format!("cannot rewind to `{}`: {message}", short(target)));
            }
        }
        let (command, args, tag) = if tool.command == "rewind" {
            // A read that carries the older tag: the engine undoes what this
            // conversation did after it, and says so in its warnings.
            let tag = args.get("tag").and_then(Value::as_str).map(str::to_owned);
            ("view", json!({"path": "."}), tag)
        } else {
            (tool.command, Value::Object(args), current.clone())
        };
        let mut request = Request::new(command, args);
        request.tag = tag;
        // Each call continues the conversation where it is, also when the
        // agent session that started this server wrote in it meanwhile; a
        // rewind goes back to its tag.
        request.follow = tool.command != "rewind";
        request.cwd = Some(self.workspace.to_string_lossy().into_owned());
        let response = self.engine.handle_async(&request).await;
        if tool.command == "rewind" && !(response.ok && response.tag == request.tag) {
            // A rewind that reached its tag answers that very tag. Any other
            // answer (a tag not of this project, or not a tag: the engine
            // started a conversation of its own) is refused; this server
            // keeps its own conversation.
            let mut message = format!(
                "cannot rewind to `{}`: it is not a tag of this workspace's conversations",
                short(request.tag.as_deref().unwrap_or_default())
            );
            for warning in &response.warnings {
                message.push_str("\nwarning: ");
                message.push_str(warning);
            }
            return failure(&message);
        }
        if let Some(tag) = &response.tag {
            *current = Some(tag.clone());
        }
        drop(current);
        if !response.ok {
            let mut message = format!(
                "{} ({})",
                response.error.clone().unwrap_or_default(),
                response.code.clone().unwrap_or_default()
            );
            for warning in &response.warnings {
                message.push_str("\nwarning: ");
                message.push_str(warning);
            }
            return failure(&message);
        }
        let mut text = tools::answer_text(tool.command, &response);
        let mut data = response.data.clone().unwrap_or(Value::Null);
        if tool.command == "rewind" {
            // The listing of the workspace is not what the model asked for.
            text = response.warnings.iter().fold(String::new(), |mut acc, w| {
                let _ = writeln!(acc, "{w}");
                acc
            });
            if text.is_empty() {
                text = "nothing to undo: the conversation is at that tag\n".into();
            }
            let _ = write!(text, "[tag: {}]", response.tag.clone().unwrap_or_default());
            data = Value::Null;
        }
        let structured = json!({"data": data, "tag": response.tag, "warnings": response.warnings});
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        result
    }
}

impl RadiumTools {
    /// Whether `target` is a tag of this server's conversation (the one of
    /// its `current` tag): a rewind never moves the server into another
    /// client's conversation, whose edits its next `undo` would take back.
    async fn own_conversation(&self, current: Option<String>, target: &str) -> Result<(), String> {
        let (root, home) = (self.workspace.clone(), self.engine.radium_home());
        let depth = self.engine.config().history_depth;
        let target = target.to_owned();
        let check = tokio::task::spawn_blocking(move || {
            let session = EditSession::open(&root, &home, depth).map_err(|e| e.to_string())?;
            let Some(theirs) = session.conversation_of(&target) else {
                return Err("it is not a tag of this workspace's conversations".to_owned());
            };
            let ours = current
                .as_deref()
                .and_then(|tag| session.conversation_of(tag));
            match ours {
                Some(ours) if ours == theirs => Ok(()),
                Some(_) => Err("it is a tag of another conversation; nothing undone".to_owned()),
                None if current.is_some() => Err(
                    "this server's conversation is no longer kept (its tag was forgotten); nothing undone"
                        .to_owned(),
                ),
                None => Err(
                    "this server has no conversation yet (no tool call made one); nothing undone"
                        .to_owned(),
                ),
            }
        });
        check
            .await
            .map_err(|e| format!("the check did not finish: {e}"))?
    }
}

/// A name or tag from the client as an answer quotes it: at most 100
/// bytes, so a huge one is never echoed whole.
fn short(text: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 100;
    if text.len() <= MAX {
        return text.into();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len()).into()
}

fn failure(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_owned())])
}

impl ServerHandler for RadiumTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("radium", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let list = tools::TOOLS
            .iter()
            .map(|t| {
                let schema = match (t.schema)() {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                Tool::new(t.name, t.description, Arc::new(schema))
                    .with_annotations(ToolAnnotations::new().read_only(t.read_only))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(list))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        Ok(self.run(&request.name, args).await.into())
    }
}

/// Serves the tools on stdin/stdout until the client closes its end.
/// `tag` continues an existing conversation (`rad mcp --tag T`).
pub(crate) fn serve(workspace: PathBuf, tag: Option<String>) -> ExitCode {
    let engine = match Engine::new(EngineConfig {
        workspace: Some(workspace.clone()),
        ..EngineConfig::default()
    }) {
        Ok(engine) => Arc::new(engine),
        Err(e) => return fail(&e.to_string()),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return fail(&format!("cannot start the runtime: {e}")),
    };
    let server = RadiumTools {
        engine,
        workspace,
        tag: Arc::new(tokio::sync::Mutex::new(tag)),
    };
    let outcome = runtime.block_on(async move {
        let (input, output, writer) = stdio::start();
        let running = server
            .serve((input, output))
            .await
            .map_err(|e| format!("the MCP client did not initialize: {e}"))?;
        let outcome = running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| e.to_string());
        // The last answers and errors reach stdout before the process ends.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
        outcome
    });
    // A call still running when the client left finishes its write (each
    // write is atomic) before the runtime drops.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(message: &str) -> ExitCode {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "rad mcp: {message}");
    ExitCode::from(1)
}
