//! The command table: which part answers each command of the protocol, and
//! the wrapping every answer shares (cancel by `id`, the response envelope).

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use serde_json::{json, Value};

use super::engine::{Engine, ABI_VERSION};
use super::envelope::{Request, Response};
use super::reply::Reply;
use crate::agents::step::StepRequest;
use crate::edit::commands::EditTool;
use crate::edit::{EditOutcome, EDIT_COMMANDS};
use crate::editor::commands as editor;
use crate::error::{Error, Result};
use crate::hooks::commands as hooks;
use crate::hooks::outcome::ChainOutcome;
use crate::support::json::{args_object, string_arg};

/// The longest `tag` a request may carry, in bytes: radium's own tags are
/// about 15.
pub(crate) const MAX_TAG: usize = 256;

/// A command's work: a `Send + 'static` future of its data.
type Work = Pin<Box<dyn Future<Output = Result<Value>> + Send>>;

/// A future of a response as a future of a [`Reply`].
fn replied(
    response: Pin<Box<dyn Future<Output = Response> + Send + 'static>>,
) -> Pin<Box<dyn Future<Output = Reply> + Send + 'static>> {
    Box::pin(async move { Reply::Response(response.await) })
}

/// The response to an edit's outcome: its data, dog tag and warnings.
pub(super) fn outcome_response(outcome: Result<EditOutcome>) -> Response {
    match outcome {
        Ok(outcome) => {
            let mut response = Response::success(outcome.data);
            response.tag = outcome.tag;
            response.warnings = outcome.warnings;
            response
        }
        Err(e) => Response::failure(&e),
    }
}

impl Engine {
    /// [`handle_async`](Self::handle_async) for a request the caller gives
    /// away (its data is moved, not copied). A request that acts, or fails,
    /// is an entry of the engine's log.
    pub fn handle_request_async(
        &self,
        request: Request,
    ) -> Pin<Box<dyn Future<Output = Response> + Send + 'static>> {
        let reply = self.reply_async(request);
        Box::pin(async move { reply.await.into_response() })
    }

    /// The answer to a request before a door picks its form (a value or
    /// JSON text), logged.
    pub(super) fn reply_async(
        &self,
        request: Request,
    ) -> impl Future<Output = Reply> + Send + 'static {
        let command = super::logged::name(&request.command);
        super::logged::logged(&self.log, command, self.answer_async(request))
    }

    /// The answer to a request, as a future.
    fn answer_async(
        &self,
        mut request: Request,
    ) -> Pin<Box<dyn Future<Output = Reply> + Send + 'static>> {
        if let Some(tag) = request.tag.as_deref().filter(|t| t.len() > MAX_TAG) {
            // Never a tag radium gave; refused before any part echoes it.
            let e = Error::InvalidArgument(format!(
                "`tag` of {} bytes is not a tag (radium's tags are under {MAX_TAG} bytes)",
                tag.len()
            ));
            return Box::pin(std::future::ready(Response::failure(&e).into()));
        }
        let work: Work = match request.command.as_str() {
            "step" => match StepRequest::from_args(&mut request.args) {
                Ok(step) => {
                    let workspace = self.workspace_for(request.cwd.as_deref());
                    Box::pin(self.step(step, workspace.as_deref()))
                }
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            "hooks-execute" => match hooks::execute(&self.registry, &mut request.args) {
                // The outcome is kept as it is: the text door writes it
                // straight (hooks-execute has no warnings).
                Ok(chain) => {
                    let chain: Pin<Box<dyn Future<Output = Result<ChainOutcome>> + Send>> =
                        Box::pin(chain);
                    let chain = match request.id.as_deref() {
                        Some(id) => self.cancellable_as(id, chain, Err),
                        None => chain,
                    };
                    return Box::pin(async move {
                        match chain.await {
                            Ok(outcome) => Reply::Chain(outcome),
                            Err(e) => Response::failure(&e).into(),
                        }
                    });
                }
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            cmd if EDIT_COMMANDS.contains(&cmd) => return replied(self.edit(request)),
            "clipboard-send" | "clipboard-receive" => return replied(self.clipboard(request)),
            "merge" => self.merge(&mut request),
            "agents-check" => match self.agents_check(&request) {
                Ok(work) => work,
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            "agents-install" => match self.agents_install(&request) {
                Ok(work) => work,
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            "agents-login" => match self.agents_login(&request) {
                Ok(work) => work,
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
            cmd if super::code::CODE_COMMANDS.contains(&cmd) => {
                return replied(match request.id.clone() {
                    Some(id) => {
                        let work = self.code(request);
                        self.cancellable_as(&id, work, |e| Response::failure(&e))
                    }
                    None => self.code(request),
                });
            }
            "history-list" if request.args.get("agent").is_some() => {
                match self.agent_history_work(&request) {
                    Some(Ok(work)) => work,
                    Some(Err(e)) => Box::pin(std::future::ready(Err(e))),
                    None => Box::pin(std::future::ready(self.dispatch(&request))),
                }
            }
            _ => match self.session_work(&request) {
                Some(work) => work,
                None => Box::pin(std::future::ready(self.dispatch(&request))),
            },
        };
        let work = match request.id.as_deref() {
            Some(id) => self.cancellable(id, work),
            None => work,
        };
        // `hooks-list` answers the hooks even when the workspace's
        // hooks.toml is broken or not applied (an untrusted workspace), and
        // says so in its warnings.
        let warnings: Vec<String> = match request.command.as_str() {
            "hooks-list" => self
                .config_error()
                .map(|e| e.to_string())
                .into_iter()
                .chain(self.unapplied_hooks_warning())
                .collect(),
            // `agents` answers the usable agents, and names a broken
            // agents.toml in its warnings.
            "agents" => {
                let workspace = self.workspace_for(request.cwd.as_deref());
                self.agent_file_errors(workspace.as_deref())
                    .iter()
                    .map(ToString::to_string)
                    .collect()
            }
            // `mcp-servers` names a broken mcp.toml the same way.
            "mcp-servers" => {
                let workspace = self.workspace_for(request.cwd.as_deref());
                self.mcp_servers(workspace.as_deref())
                    .broken
                    .iter()
                    .map(ToString::to_string)
                    .collect()
            }
            _ => Vec::new(),
        };
        Box::pin(async move {
            let mut response = match work.await {
                Ok(data) => Response::success(data),
                Err(e) => Response::failure(&e),
            };
            response.warnings = warnings;
            Reply::Response(response)
        })
    }

    /// `work` under the cancel token of `id`: a `cancel` of that id ends it
    /// with `cancelled`, and dropping the work stops what it waits on (an
    /// agent's or a script's process group is killed).
    fn cancellable(&self, id: &str, work: Work) -> Work {
        self.cancellable_as(id, work, Err)
    }

    /// [`cancellable`](Self::cancellable) for work of any answer: a cancel
    /// answers `cancelled(error)`.
    fn cancellable_as<T: Send + 'static>(
        &self,
        id: &str,
        mut work: Pin<Box<dyn Future<Output = T> + Send + 'static>>,
        cancelled: fn(Error) -> T,
    ) -> Pin<Box<dyn Future<Output = T> + Send + 'static>> {
        let (token, guard) = self.inflight.register(id);
        Box::pin(async move {
            let mut stop = std::pin::pin!(token.cancelled());
            std::future::poll_fn(|cx| {
                if let Poll::Ready(answer) = work.as_mut().poll(cx) {
                    return Poll::Ready(answer);
                }
                stop.as_mut().poll(cx).map(|()| {
                    cancelled(Error::Cancelled(format!(
                        "request `{}` was cancelled",
                        guard.id
                    )))
                })
            })
            .await
        })
    }

    /// An edit command (see [`EditTool`]): its answer carries the dog tag
    /// and the rewind warnings.
    fn edit(&self, request: Request) -> Pin<Box<dyn Future<Output = Response> + Send + 'static>> {
        let command = request.command.clone();
        let prepared = self
            .workspace_for(request.cwd.as_deref())
            .ok_or_else(|| {
                Error::InvalidArgument(format!("`{command}`: give the project root as `cwd`"))
            })
            .and_then(|root| {
                let args = args_object(&command, &request.args)?.clone();
                let tool = EditTool {
                    registry: self.registry.clone(),
                    root,
                    radium_home: self.radium_home(),
                    depth: self.config.history_depth,
                    tag: request.tag,
                    follow: request.follow,
                };
                Ok((tool, args))
            });
        Box::pin(async move {
            let outcome = match prepared {
                Ok((tool, args)) => tool.run(command, args).await,
                Err(e) => Err(e),
            };
            outcome_response(outcome)
        })
    }

    /// `merge` (see `edit/merge.rs`): the file read and the merge run on
    /// the engine's runtime, off the caller's thread (an editor's main loop
    /// waits on nothing).
    fn merge(&self, request: &mut Request) -> Work {
        let root = self.workspace_for(request.cwd.as_deref());
        let args = std::mem::take(&mut request.args);
        let (home, depth) = (self.radium_home(), self.config.history_depth);
        let handle = self.registry.runtime_handle();
        Box::pin(async move {
            let root = root.ok_or_else(|| {
                Error::InvalidArgument("`merge`: give the project root as `cwd`".into())
            })?;
            let work = handle?.spawn_blocking(move || {
                crate::edit::merge::command(args_object("merge", &args)?, &root, &home, depth)
            });
            work.await
                .map_err(|e| Error::Runtime(format!("the merge did not finish: {e}")))?
        })
    }

    /// The commands that answer at once (`step`, `hooks-execute` and the
    /// edit commands are futures: see `handle_request_async`).
    fn dispatch(&self, request: &Request) -> Result<Value> {
        let command = request.command.as_str();
        let args = args_object(command, &request.args)?;
        let cwd = request.cwd.as_deref();
        match command {
            "ping" => Ok(json!("pong")),
            "log" => super::logged::read(&self.log, args),
            "shutdown" => Ok(json!("nothing to shut down: this engine runs in-process")),
            "version" => Ok(json!({"version": crate::VERSION, "abi_version": ABI_VERSION})),
            "hooks-list" => Ok(hooks::list(&self.registry)),
            "hooks-enable" | "hooks-disable" => hooks::set_enabled(&self.registry, command, args),
            "context" => editor::context(&request.args, &self.config.limits),
            "extract" => editor::extract(args),
            "apply" => editor::apply(
                args,
                cwd,
                self.config.workspace.as_deref(),
                &self.radium_home(),
                &self.config.limits,
            ),
            "ext-list" | "ext-install" | "ext-remove" | "trust" => {
                let home = self.radium_home();
                let host = self.extension_host(&home);
                match command {
                    "ext-list" => Ok(host.ext_list(cwd)),
                    "ext-install" => host.ext_install(cwd, args),
                    "ext-remove" => host.ext_remove(cwd, args),
                    _ => {
                        let answer = host.trust(cwd, args)?;
                        // A hooks.toml left out while the workspace was
                        // not trusted applies now that it is.
                        if self.unapplied_hooks_warning().is_some() {
                            self.load_workspace_hooks();
                        }
                        Ok(answer)
                    }
                }
            }
            "cancel" => {
                let id = string_arg(command, args, "id")?;
                Ok(json!({"id": id, "cancelled": self.cancel(id)}))
            }
            "agents" => {
                let workspace = self.workspace_for(cwd);
                Ok(serde_json::to_value(self.agents(workspace.as_deref())?).unwrap_or_default())
            }
            "agents-list" => Ok(self.agents_list(cwd)),
            "mcp-servers" => {
                let workspace = self.workspace_for(cwd);
                let servers = self.mcp_servers(workspace.as_deref()).servers;
                Ok(json!({"servers": servers}))
            }
            other => self
                .session_command(other, args, cwd)
                .unwrap_or_else(|| Err(Error::UnknownCommand(other.to_owned()))),
        }
    }
}
