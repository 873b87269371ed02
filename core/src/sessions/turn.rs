//! A turn: the prompt through the model hooks, `session/prompt`, the stream
//! of events while the agent works, and the end (its stop reason, the whole
//! text and its code blocks), or the error that ended it.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::events::SessionEvent;
use super::images::{read_images, PendingImage};
use super::session::{lock, AgentSession};
use super::subscription::{Shared, Subscriber, Subscription};
use crate::agents::step::handle_error;
use crate::edit::EditSession;
use crate::editor::extract::extract_code_blocks;
use crate::error::{Error, Result};
use crate::hooks::context::{ErrorHookContext, HookContext, TelemetryHookContext};
use crate::hooks::hook_type::HookType;
use crate::hooks::registry::ExecuteOptions;

/// The text blocks of a prompt, joined.
fn prompt_text(prompt: &[Value]) -> String {
    prompt
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `text` may hold a fenced code block (the only blocks a turn's
/// end lists): the Markdown parser, whose tree is sized by its input
/// (about 1.5 times the text), then reads it; an answer without a fence
/// is not parsed at all.
fn has_fence(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"```").is_some()
        || memchr::memmem::find(text.as_bytes(), b"~~~").is_some()
}

/// The image blocks of `images`, read and encoded on a blocking thread.
async fn load_images(images: Vec<PendingImage>) -> Result<Vec<Value>> {
    if images.is_empty() {
        return Ok(Vec::new());
    }
    tokio::task::spawn_blocking(move || read_images(images))
        .await
        .map_err(|e| Error::Runtime(format!("the images were not read: {e}")))?
}

impl AgentSession {
    /// The error event that ends a failed turn, after the error hooks
    /// (`error_interception`, `error_transformation`, `error_recovery`,
    /// `error_logging`) saw it: a transformed message replaces the error's,
    /// and a recovery answer is carried as `recovery`.
    async fn failed(&self, e: &Error) -> SessionEvent {
        let context = ErrorHookContext::new(e.to_string(), e.code())
            .with_source(format!("session {} (agent {})", self.id, self.agent.id));
        let mut event = json!({"type": "error", "code": e.code(), "message": e.to_string()});
        if let Ok((message, recovery)) = handle_error(&self.registry, context).await {
            if let Some(message) = message {
                event["message"] = json!(message);
            }
            if let Some(recovery) = recovery {
                event["recovery"] = json!(recovery);
            }
        }
        event
    }

    /// The turn's timings: time to the first chunk and the whole turn, in ms.
    fn timings(&self, started: Instant) -> Value {
        let first = lock(&self.state).first_chunk;
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
        json!({
            "first_chunk_ms": first.map(|f| ms(f.saturating_duration_since(started))),
            "turn_ms": ms(started.elapsed()),
        })
    }

    /// The telemetry hooks (`performance_monitoring`, `telemetry_collection`)
    /// get each turn: `event_type: "turn"`, agent, session, how it ended, timings.
    async fn telemetry(&self, last: &SessionEvent, timings: &Value) {
        let data = json!({
            "agent": self.agent.id,
            "session": self.id,
            "stop_reason": last.get("stop_reason").cloned().unwrap_or(Value::Null),
            "error": last.get("code").cloned().unwrap_or(Value::Null),
            "timings": timings,
        });
        let event = TelemetryHookContext::new("turn", data);
        for hook_type in [
            HookType::PerformanceMonitoring,
            HookType::TelemetryCollection,
        ] {
            self.registry
                .execute_async(event.to_hook_context(hook_type), ExecuteOptions::default())
                .await;
        }
    }

    /// Starts a turn with `prompt` (ACP content blocks: `text`, `resource`,
    /// `resource_link`). Its events arrive on the returned receiver while it
    /// runs; the last one is `turn_end` or `error`.
    pub fn prompt(
        self: &Arc<Self>,
        prompt: Vec<Value>,
    ) -> Result<mpsc::UnboundedReceiver<SessionEvent>> {
        self.prompt_with_images(prompt, Vec::new())
    }

    /// Starts a turn like [`AgentSession::prompt`], with checked images
    /// ([`AgentSession::check_images`]) read and encoded on the engine's
    /// runtime, not the caller's thread, then sent after the prompt's
    /// blocks; an image that cannot be read then ends the turn with an
    /// `error` event naming it, and nothing is sent.
    pub fn prompt_with_images(
        self: &Arc<Self>,
        prompt: Vec<Value>,
        images: Vec<PendingImage>,
    ) -> Result<mpsc::UnboundedReceiver<SessionEvent>> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.start_turn(prompt, images, Subscriber::Channel(tx))?;
        Ok(rx)
    }

    /// Starts a turn like [`AgentSession::prompt_with_images`], its events
    /// on a [`Subscription`]: the text chunks a slow reader has not taken
    /// yet wait joined into one event (in order, nothing lost), so a door
    /// that is behind holds about the text it has not read.
    pub fn prompt_joined(
        self: &Arc<Self>,
        prompt: Vec<Value>,
        images: Vec<PendingImage>,
    ) -> Result<Subscription> {
        let shared = Arc::new(Shared::default());
        self.start_turn(prompt, images, Subscriber::Joined(Arc::clone(&shared)))?;
        Ok(Subscription::new(shared))
    }

    fn start_turn(
        self: &Arc<Self>,
        mut prompt: Vec<Value>,
        images: Vec<PendingImage>,
        tx: Subscriber,
    ) -> Result<()> {
        {
            let mut state = lock(&self.state);
            if let Some(why) = &state.closed {
                return Err(Error::AgentFailed(format!(
                    "session `{}` has ended: {why}",
                    self.id
                )));
            }
            if state.sink.is_some() {
                return Err(Error::InvalidArgument(format!(
                    "a turn is already running in session `{}`: cancel it or wait for its end",
                    self.id
                )));
            }
            state.sink = Some(tx);
            state.text.clear();
            state.text_dropped = 0;
            state.skipped.clear();
            state.last_heard = Some(Instant::now());
            state.first_chunk = None;
            state.tool_since_text = false;
            state.stale.after_cancel = std::mem::take(&mut state.stale.cancelled);
            state.stale.content = false;
        }
        if let Some((earlier, notice)) = self.record_prompt(&prompt_text(&prompt)) {
            prompt.insert(0, json!({"type": "text", "text": earlier}));
            self.emit(notice);
        }
        let session = Arc::clone(self);
        self.registry.runtime_handle()?.spawn(async move {
            let started = Instant::now();
            let before = session.begin_turn().await;
            let outcome = match load_images(images).await {
                Ok(blocks) => {
                    prompt.extend(blocks);
                    session.run_turn(prompt).await
                }
                Err(e) => Err(e),
            };
            session.settle_tools().await;
            session.join_turn(before.as_deref()).await;
            let mut last = match outcome {
                Ok(end) => end,
                Err(e) => session.failed(&e).await,
            };
            let timings = session.timings(started);
            session.telemetry(&last, &timings).await;
            if last["type"] == "turn_end" {
                last["timings"] = timings;
            }
            // Where the files were before the prompt (a door restores them
            // with it) and after the turn (undo takes the turn back).
            last["tag"] = json!(session.tag());
            last["tag_before"] = json!(before);
            let mut state = lock(&session.state);
            let stopped = state.record(&last);
            if let Some(sink) = state.sink.take() {
                if let Some(notice) = stopped {
                    let _ = sink.give(notice);
                }
                let _ = sink.give(last);
                sink.close();
            }
        });
        Ok(())
    }

    /// The tag the turn starts from (the latest state of the session's
    /// conversation), which becomes the session's tag; `None` when the
    /// history cannot be written.
    async fn begin_turn(&self) -> Option<String> {
        let (root, home, depth, tag) = (
            self.workspace.clone(),
            self.radium_home.clone(),
            self.history_depth,
            self.tag(),
        );
        let started = tokio::task::spawn_blocking(move || {
            EditSession::open(&root, &home, depth)?.turn_start(tag.as_deref())
        })
        .await;
        match started {
            Ok(Ok(tag)) => {
                lock(&self.state).tag = Some(tag.clone());
                Some(tag)
            }
            Ok(Err(e)) => {
                self.emit(json!({
                    "type": "notice",
                    "message": format!("radium could not mark the start of this turn in the edit history: {e}"),
                }));
                None
            }
            Err(_) => None,
        }
    }

    /// Every operation of the turn's conversation since `before` becomes
    /// one undo step (the turn ended, failed or was cancelled).
    async fn join_turn(&self, before: Option<&str>) {
        let Some(before) = before.map(str::to_owned) else {
            return;
        };
        // Every write of the turn moved the session's tag (the agent's, and
        // `rad mcp`'s once caught up): an unmoved tag means nothing to join,
        // and the history is not opened at all.
        if self.tag().as_deref() == Some(before.as_str()) {
            return;
        }
        let (root, home, depth) = (
            self.workspace.clone(),
            self.radium_home.clone(),
            self.history_depth,
        );
        let joined = tokio::task::spawn_blocking(move || {
            EditSession::open(&root, &home, depth)?.end_turn(&before)
        })
        .await;
        if let Ok(Err(e)) = joined {
            self.emit(json!({
                "type": "notice",
                "message": format!("the turn's writes could not be joined into one undo step: {e}"),
            }));
        }
    }

    async fn run_turn(&self, mut prompt: Vec<Value>) -> Result<SessionEvent> {
        let input = prompt_text(&prompt);
        let before = self
            .registry
            .execute_async(
                HookContext::new(
                    HookType::BeforeModel,
                    json!({"input": input, "model_id": self.agent.id, "session": self.id}),
                ),
                ExecuteOptions::default(),
            )
            .await;
        if let Some(stop) = before.stopped_by {
            return Err(Error::Refused {
                hook: stop.hook,
                reason: stop.reason,
                stage: "before_model".into(),
            });
        }
        let input = match before.data.get("input").and_then(Value::as_str) {
            Some(rewritten) if rewritten != input => {
                prompt.retain(|b| b.get("type").and_then(Value::as_str) != Some("text"));
                prompt.insert(0, json!({"type": "text", "text": rewritten}));
                rewritten.to_owned()
            }
            _ => input,
        };
        let mut r = self.ask_prompt(&prompt).await?;
        if self.stale_end(&r) && self.resync().await? {
            r = self.ask_prompt(&prompt).await?;
        }
        // Some agents report the turn's usage in its answer only.
        if let Some(usage) = r.get("usage").filter(|u| u.is_object()) {
            let mut event = usage.clone();
            event["type"] = json!("usage");
            self.control(event);
        }
        let stop_reason = r
            .get("stopReason")
            .and_then(Value::as_str)
            .unwrap_or("end_turn")
            .to_owned();
        // The turn's text moves to its end event: it is held once, not
        // copied (the next turn starts from an empty text anyway).
        let (text, dropped) = {
            let mut state = lock(&self.state);
            (std::mem::take(&mut state.text), state.text_dropped)
        };
        let mut text = text;
        text.shrink_to_fit();
        // Only hooks that will read it get a copy of the answer.
        if !self.registry.list_type(HookType::AfterModel).is_empty() {
            self.registry
                .execute_async(
                    HookContext::new(
                        HookType::AfterModel,
                        json!({"input": input, "output": text, "model_id": self.agent.id, "session": self.id}),
                    ),
                    ExecuteOptions::default(),
                )
                .await;
        }
        let blocks: Vec<Value> = if has_fence(&text) {
            extract_code_blocks(&text)
                .into_iter()
                .map(crate::editor::extract::CodeBlock::into_json)
                .collect()
        } else {
            Vec::new()
        };
        let mut end = json!({
            "type": "turn_end",
            "stop_reason": stop_reason,
            "code_blocks": blocks,
            "tag": self.tag(),
            "usage": self.usage(),
        });
        end["text"] = Value::String(text);
        if dropped > 0 {
            end["text_dropped"] = json!(dropped);
        }
        Ok(end)
    }
}
