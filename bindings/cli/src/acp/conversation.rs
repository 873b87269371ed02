//! One conversation of `rad acp`: a radium session with the agent, whose
//! messages go to the editor as the agent sent them (radium's commands
//! merged into its command list), whose permission requests radium left
//! undecided ask the editor, and whose turns answer the editor's prompts.
//!
//! One task a conversation relays the agent's messages and the turn's
//! events, the agent's messages first: an update the agent sent before the
//! turn ended reaches the editor before the prompt's answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use radium_core::sessions::tap::{TapReceivers, Tapped};
use radium_core::sessions::{AgentSession, PermissionAnswer, Unserved};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::wire::Editor;

/// A turn handed to the relay: the editor's request id, the prompt's text
/// and the turn's events.
pub type Turn = (Value, String, mpsc::UnboundedReceiver<Value>);

/// A prompt of the conversation and the tag of the files before it.
#[derive(Clone)]
pub struct Prompt {
    /// The prompt's text.
    pub text: String,
    /// Its turn's `tag_before` (`None`: radium kept no history for it).
    pub tag_before: Option<String>,
}

/// What the last turn did, for `/changes` and `/hooks`.
#[derive(Default, Clone)]
pub struct LastTurn {
    /// The diffs of its tool calls: `(path, old text, new text)`.
    pub diffs: Vec<(String, String, String)>,
    /// The files radium recorded as written.
    pub writes: Vec<String>,
    /// The permission decisions and refused writes, as lines.
    pub decisions: Vec<String>,
}

/// One conversation of the editor's.
pub struct Conversation {
    /// radium's session with the agent.
    pub session: Arc<AgentSession>,
    /// Where the editor's prompts go as turns.
    pub turns: mpsc::UnboundedSender<Turn>,
    /// The prompts so far.
    pub prompts: Mutex<Vec<Prompt>>,
    /// What the last turn did.
    pub last: Mutex<LastTurn>,
}

impl Conversation {
    /// Starts relaying `session` to the editor.
    pub fn start(session: Arc<AgentSession>, editor: Editor) -> Arc<Self> {
        let receivers = session.tap();
        Self::start_with(session, editor, receivers)
    }

    /// Starts relaying `session` to the editor from its tap's `receivers`
    /// (made before it opened: what the agent sent meanwhile comes first).
    pub fn start_with(
        session: Arc<AgentSession>,
        editor: Editor,
        (tap, unserved): TapReceivers,
    ) -> Arc<Self> {
        let (turns, turns_rx) = mpsc::unbounded_channel();
        let conversation = Arc::new(Conversation {
            session,
            turns,
            prompts: Mutex::default(),
            last: Mutex::default(),
        });
        tokio::spawn(relay(
            Arc::clone(&conversation),
            editor,
            tap,
            unserved,
            turns_rx,
        ));
        conversation
    }

    /// The agent's session id (the editor's too).
    pub fn id(&self) -> String {
        self.session.acp_session_id()
    }

    /// The agent's commands with radium's, as ACP's `availableCommands`.
    pub fn commands(&self) -> Value {
        let agent: Vec<Value> = self
            .session
            .commands()
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let input = match c["hint"].as_str().filter(|h| !h.is_empty()) {
                    Some(hint) => json!({"hint": hint}),
                    None => Value::Null,
                };
                json!({"name": c["name"], "description": c["description"], "input": input})
            })
            .collect();
        merged(agent)
    }
}

/// Relays the messages of `session`'s agent that no conversation takes (a
/// session the editor loaded before any `session/new`, whose replayed
/// updates and answers come through this agent) until a conversation
/// taps the session instead; the agent's requests radium does not serve
/// are asked of the editor. The updates of the session itself are not
/// relayed: the editor does not know it until its `session/new` takes it
/// (and then gets its commands after the answer), and an update of an
/// unknown session could even reach the editor before `initialize`'s answer.
pub fn relay_loose(session: &AgentSession, editor: Editor) {
    let (mut tap, mut unserved) = session.tap();
    let own = session.opened()["session"]["sessionId"].clone();
    tokio::spawn(async move {
        let mut asked = HashMap::new();
        loop {
            tokio::select! {
                biased;
                Some(message) = tap.recv() => {
                    if own.is_string()
                        && message.method == "session/update"
                        && message.session_id.as_deref() == own.as_str()
                    {
                        continue;
                    }
                    forward(&editor, message, &mut asked).await;
                    asked.clear();
                }
                Some((method, params, tx)) = unserved.recv() => {
                    let editor = editor.clone();
                    tokio::spawn(async move {
                        let _ = tx.send(editor.request(&method, &params).await);
                    });
                }
                else => return,
            }
        }
    });
}

/// `agent`'s commands, then radium's (an agent's command of the same name
/// as one of radium's is left out: radium answers that name).
pub fn merged(agent: Vec<Value>) -> Value {
    let mut list: Vec<Value> = agent
        .into_iter()
        .filter(|c| {
            let name = c["name"].as_str().unwrap_or_default();
            !super::slash::COMMANDS.iter().any(|(n, _, _)| *n == name)
        })
        .collect();
    for (name, hint, what) in super::slash::COMMANDS {
        let input = if hint.is_empty() {
            Value::Null
        } else {
            json!({"hint": hint})
        };
        list.push(json!({"name": name, "description": what, "input": input}));
    }
    Value::Array(list)
}

/// What the relay's task does next.
enum Next {
    Tapped(Tapped),
    Unserved(Unserved),
    Event(Option<Value>),
    Turn(Turn),
    Done,
}

/// The relay of one conversation (see the module's doc).
async fn relay(
    conversation: Arc<Conversation>,
    editor: Editor,
    mut tap: mpsc::Receiver<Tapped>,
    mut unserved: mpsc::UnboundedReceiver<Unserved>,
    mut turns: mpsc::UnboundedReceiver<Turn>,
) {
    let mut current: Option<Turn> = None;
    let mut asked: HashMap<String, Value> = HashMap::new();
    loop {
        let busy = current.is_some();
        let next = tokio::select! {
            biased;
            Some(message) = tap.recv() => Next::Tapped(message),
            Some(request) = unserved.recv() => Next::Unserved(request),
            event = async {
                match current.as_mut() {
                    Some((_, _, rx)) => rx.recv().await,
                    None => std::future::pending().await,
                }
            } => Next::Event(event),
            Some(turn) = turns.recv(), if !busy => Next::Turn(turn),
            else => Next::Done,
        };
        match next {
            Next::Tapped(message) => forward(&editor, message, &mut asked).await,
            Next::Unserved((method, params, tx)) => {
                let editor = editor.clone();
                tokio::spawn(async move {
                    let _ = tx.send(editor.request(&method, &params).await);
                });
            }
            Next::Turn(turn) => {
                *super::lock(&conversation.last) = LastTurn::default();
                current = Some(turn);
            }
            Next::Event(event) => {
                let Some((id, text, _)) = current.as_ref() else {
                    continue;
                };
                let Some(event) = event else {
                    editor.answer(
                        id,
                        Err(json!({"code": -32603, "message": "the turn ended without an answer"})),
                    );
                    current = None;
                    continue;
                };
                if on_event(&conversation, &editor, id, text, &event, &mut asked) {
                    current = None;
                    // The turn's permission requests radium decided itself
                    // never asked the editor: their words are not kept on.
                    asked.clear();
                }
            }
            Next::Done => return,
        }
    }
}

/// The params of one of the agent's lines (parsed again: only for the few
/// messages radium rewrites or keeps).
fn params_of(message: &Tapped) -> Value {
    serde_json::from_slice::<Value>(&message.line)
        .ok()
        .and_then(|mut m| m.get_mut("params").map(Value::take))
        .unwrap_or(Value::Null)
}

/// Passes one of the agent's messages to the editor as the agent sent it
/// (its line moved, not parsed or serialised again; only the agent's
/// command list is rewritten, radium's commands merged in), once the
/// editor's side has room for it (see `wire::ROOM`).
pub async fn forward(editor: &Editor, message: Tapped, asked: &mut HashMap<String, Value>) {
    if message.id.is_some() {
        // A request: radium serves it (or hands it over as unserved); a
        // permission request's own words are kept for the editor's prompt.
        if message.method == "session/request_permission" {
            let params = params_of(&message);
            if let Some(call) = params["toolCall"]["toolCallId"].as_str() {
                asked.insert(call.to_owned(), params);
            }
        }
        return;
    }
    if message.method == "session/update"
        && message.update.as_deref() == Some("available_commands_update")
    {
        let mut params = params_of(&message);
        let agent = params["update"]["availableCommands"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        params["update"]["availableCommands"] = merged(agent);
        let rewritten = json!({"jsonrpc": "2.0", "method": message.method, "params": params});
        let mut line = rewritten.to_string().into_bytes();
        line.push(b'\n');
        return editor.relay(line, message.read_at).await;
    }
    editor.relay(message.line, message.read_at).await;
}

/// Handles one event of the running turn; answers whether it was the last.
fn on_event(
    conversation: &Conversation,
    editor: &Editor,
    id: &Value,
    text: &str,
    event: &Value,
    asked: &mut HashMap<String, Value>,
) -> bool {
    let s = |k: &str| event[k].as_str().unwrap_or_default().to_owned();
    match event["type"].as_str().unwrap_or_default() {
        "permission" => {
            let call = event["tool_call"]["id"].as_str().unwrap_or_default();
            let params = asked.remove(call).unwrap_or_else(|| {
                json!({
                    "sessionId": conversation.id(),
                    "toolCall": {"toolCallId": call, "title": event["tool_call"]["title"]},
                    "options": event["options"].as_array().into_iter().flatten().map(|o| json!({
                        "optionId": o["id"], "name": o["name"], "kind": o["kind"],
                    })).collect::<Vec<_>>(),
                })
            });
            let (editor, session, permission) =
                (editor.clone(), Arc::clone(&conversation.session), s("id"));
            tokio::spawn(async move {
                let answer = editor
                    .request("session/request_permission", &params)
                    .await
                    .ok()
                    .and_then(|a| {
                        (a["outcome"]["outcome"] == "selected")
                            .then(|| a["outcome"]["optionId"].as_str().map(str::to_owned))
                            .flatten()
                    });
                let answer = answer.map_or(PermissionAnswer::Reject, PermissionAnswer::Option);
                session.answer_permission(&permission, answer);
            });
            false
        }
        "tool_call" | "tool_call_update" => {
            let mut last = super::lock(&conversation.last);
            for d in event["diffs"].as_array().into_iter().flatten() {
                let path = d["path"].as_str().unwrap_or_default().to_owned();
                let old = d["old_text"].as_str().unwrap_or_default().to_owned();
                let new = d["new_text"].as_str().unwrap_or_default().to_owned();
                last.diffs.retain(|(p, _, _)| *p != path);
                last.diffs.push((path, old, new));
            }
            false
        }
        "write" => {
            super::lock(&conversation.last).writes.push(s("path"));
            false
        }
        "permission_decided" => {
            let verdict = if event["allowed"] == true {
                "allowed"
            } else {
                "refused"
            };
            let line = format!("{} {verdict} by {}: {}", event["id"], s("by"), s("reason"));
            super::lock(&conversation.last).decisions.push(line);
            false
        }
        "write_refused" => {
            let line = format!("write of {} refused: {}", s("path"), s("error"));
            super::lock(&conversation.last).decisions.push(line);
            false
        }
        "turn_end" => {
            keep_prompt(conversation, text, event);
            let reason = event["stop_reason"].as_str().unwrap_or("end_turn");
            editor.answer(id, Ok(json!({"stopReason": reason})));
            true
        }
        "error" => {
            keep_prompt(conversation, text, event);
            if event["code"] == "cancelled" {
                editor.answer(id, Ok(json!({"stopReason": "cancelled"})));
            } else {
                let message = format!("radium: {}", s("message"));
                editor.answer(
                    id,
                    Err(json!({"code": -32603, "message": message, "data": {"code": event["code"]}})),
                );
            }
            true
        }
        _ => false,
    }
}

/// Keeps the prompt of a turn that ended, with the tag of the files before it.
fn keep_prompt(conversation: &Conversation, text: &str, event: &Value) {
    super::lock(&conversation.prompts).push(Prompt {
        text: text.to_owned(),
        tag_before: event["tag_before"].as_str().map(str::to_owned),
    });
}
