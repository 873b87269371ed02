//! The edit commands of the protocol, run through the tool hooks.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::{EditOutcome, EditSession};
use crate::error::{Error, Result};
use crate::hooks::context::HookContext;
use crate::hooks::hook_type::HookType;
use crate::hooks::registry::{ExecuteOptions, HookRegistry};

/// One edit command's surroundings: the hooks it runs through, the project
/// root, `$RADIUM_HOME`, the history depth and the request's dog tag.
pub(crate) struct EditTool {
    /// The registry whose `before_tool` and `after_tool` chains wrap the edit.
    pub registry: HookRegistry,
    /// The project root (the request's `cwd` or the engine's workspace).
    pub root: PathBuf,
    /// `$RADIUM_HOME`, where the project's history lives.
    pub radium_home: PathBuf,
    /// How many changesets the history keeps.
    pub depth: u64,
    /// The dog tag the request carried, if any.
    pub tag: Option<String>,
    /// Continue the tag's conversation at its latest state (no rewind).
    pub follow: bool,
}

impl EditTool {
    /// Runs `command` with `args`: through the tool hooks (see [`around`]),
    /// under the project lock, with the session's tag and rewind warnings
    /// in the outcome. The disk work runs on the engine's runtime, so an
    /// async door never waits on it.
    pub(crate) async fn run(
        self,
        command: String,
        args: Map<String, Value>,
    ) -> Result<EditOutcome> {
        let EditTool {
            registry,
            root,
            radium_home: home,
            depth,
            tag,
            follow,
        } = self;
        let handle = registry.runtime_handle()?;
        let run_command = command.clone();
        around(&registry, command, args, move |args| async move {
            let name = run_command.clone();
            let work = handle.spawn_blocking(move || {
                let mut session = EditSession::open(&root, &home, depth)?;
                let tag = match tag {
                    Some(tag) if follow => Some(session.latest_tag(&tag)),
                    other => other,
                };
                session.run(&run_command, &args, tag.as_deref())
            });
            work.await
                .map_err(|e| Error::Runtime(format!("the `{name}` edit did not finish: {e}")))?
        })
        .await
    }
}

/// Runs `work` for tool `command` between the `before_tool` chain (which
/// may stop it or change its arguments) and the `after_tool` chain (which
/// may change its result). The hooks run as a chain (host hooks on the
/// polling thread, scripts in the background). With a broken hook
/// configuration, a command whose chains have a hook to run for it fails
/// with the configuration error before anything is done.
pub(crate) async fn around<F, Fut>(
    registry: &HookRegistry,
    command: String,
    args: Map<String, Value>,
    work: F,
) -> Result<EditOutcome>
where
    F: FnOnce(Map<String, Value>) -> Fut,
    Fut: std::future::Future<Output = Result<EditOutcome>>,
{
    registry.check_config(HookType::BeforeTool, Some(&command))?;
    registry.check_config(HookType::AfterTool, Some(&command))?;
    let before = registry
        .try_execute_async(
            HookContext::new(
                HookType::BeforeTool,
                json!({"tool_name": command, "arguments": args}),
            ),
            ExecuteOptions::default(),
        )
        .await?;
    if let Some(stop) = before.stopped_by {
        return Err(Error::Refused {
            hook: stop.hook,
            reason: stop.reason,
            stage: "before_tool".into(),
        });
    }
    let args = match before.data.get("arguments") {
        Some(Value::Object(map)) => map.clone(),
        _ => args,
    };
    let mut outcome = work(args.clone()).await?;
    let after = registry
        .try_execute_async(
            HookContext::new(
                HookType::AfterTool,
                json!({"tool_name": command, "arguments": args, "result": outcome.data}),
            ),
            ExecuteOptions::default(),
        )
        .await;
    match after {
        Ok(after) => {
            if let Some(result) = after.data.get("result") {
                outcome.data = result.clone();
            }
        }
        // The configuration broke while the edit ran: the edit is done,
        // so it is answered, with the hooks that did not run as a warning.
        Err(e) => outcome
            .warnings
            .push(format!("the after_tool hooks did not run: {e}")),
    }
    Ok(outcome)
}
