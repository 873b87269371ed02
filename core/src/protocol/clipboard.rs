//! `clipboard-send` and `clipboard-receive` (see [`crate::clipboard`]):
//! run on the engine's runtime, since the clipboard and the disk may wait,
//! so an async door never does.

use std::future::Future;
use std::pin::Pin;

use serde_json::{json, Value};

use super::engine::Engine;
use super::envelope::{Request, Response};
use crate::clipboard;
use crate::edit::EditSession;
use crate::error::{Error, Result};
use crate::support::json::{args_object, optional_string_arg};

impl Engine {
    /// A clipboard command's work, answered with its tag and warnings.
    pub(super) fn clipboard(
        &self,
        request: Request,
    ) -> Pin<Box<dyn Future<Output = Response> + Send + 'static>> {
        let root = self.workspace_for(request.cwd.as_deref());
        let home = self.radium_home();
        let depth = self.config.history_depth;
        let board = std::sync::Arc::clone(&self.clipboard);
        let handle = self.registry.runtime_handle();
        Box::pin(async move {
            let work = move || -> Result<(Value, Option<String>, Vec<String>)> {
                let args = args_object(&request.command, &request.args)?;
                if request.command == "clipboard-send" {
                    let data = clipboard::send(args, root.as_deref(), &home, &board)?;
                    return Ok((data, None, Vec::new()));
                }
                let root = root.ok_or_else(|| {
                    Error::InvalidArgument(
                        "`clipboard-receive`: give the workspace as `cwd`".into(),
                    )
                })?;
                let answer = match optional_string_arg("clipboard-receive", args, "text")? {
                    Some(text) => text.to_owned(),
                    None => board.answer_text()?,
                };
                let apply = clipboard::flag("clipboard-receive", args, "apply")?;
                let whole_file = clipboard::flag("clipboard-receive", args, "whole_file")?;
                let received = clipboard::receive(&answer, &root, &home, whole_file)?;
                let mut data = received.listing;
                data["applied"] = json!(false);
                if !apply {
                    return Ok((data, None, Vec::new()));
                }
                if let Some(refusal) = received.refusal {
                    return Err(refusal);
                }
                if received.writes.is_empty() {
                    data["files"] = json!([]);
                    let why = if data["blocks"].as_array().is_some_and(Vec::is_empty) {
                        "the clipboard's text has no code block"
                    } else {
                        "no block names a file that it would change"
                    };
                    return Ok((data, None, vec![format!("nothing applied: {why}")]));
                }
                let mut session = EditSession::open(&root, &home, depth)?;
                let tag = match request.tag {
                    Some(tag) if request.follow => Some(session.latest_tag(&tag)),
                    other => other,
                };
                let outcome = session.write_step("clipboard", &received.writes, tag.as_deref())?;
                data["applied"] = json!(true);
                data["files"] = outcome.data["files"].clone();
                Ok((data, outcome.tag, outcome.warnings))
            };
            let result = match handle {
                Ok(handle) => handle
                    .spawn_blocking(work)
                    .await
                    .map_err(|e| {
                        Error::Runtime(format!("the clipboard command did not finish: {e}"))
                    })
                    .and_then(|r| r),
                Err(e) => Err(e),
            };
            match result {
                Ok((data, tag, warnings)) => {
                    let mut response = Response::success(data);
                    response.tag = tag;
                    response.warnings = warnings;
                    response
                }
                Err(e) => Response::failure(&e),
            }
        })
    }
}
