//! What an agent's tool calls do: writes an agent makes to disk itself are
//! recorded and undone, the tool, error and telemetry hooks see the turn,
//! permissions time out, and the push form of the events.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use radium_core::{FnHook, HookResult, HookType};
use serde_json::{json, Value};

use super::{env, env_with, of_type};

type Seen = Arc<Mutex<Vec<Value>>>;

/// Registers a hook of `hook_type` that keeps every context it sees.
fn keep(e: &super::Env, name: &str, hook_type: HookType) -> Seen {
    let seen: Seen = Arc::default();
    let store = Arc::clone(&seen);
    e.engine
        .registry()
        .register(FnHook::new(name, hook_type, move |ctx| {
            store.lock().unwrap().push(ctx.data.clone());
            Ok(HookResult::success())
        }))
        .unwrap();
    seen
}

#[test]
fn an_agent_that_writes_files_itself_is_recorded_and_undone() {
    let e = env();
    std::fs::write(e.ws.join("notes.txt"), "old\n").unwrap();
    let after_tool = keep(&e, "see-tools", HookType::AfterTool);
    let telemetry = keep(&e, "see-turns", HookType::TelemetryCollection);
    let s = e.open("example");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "selfwrite notes.txt written by the agent"}),
    );
    let events = e.drain(&s, Some("allow"));
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "written by the agent\n"
    );
    let writes = of_type(&events, "write");
    assert_eq!(writes.len(), 1, "recorded once: {events:?}");
    assert_eq!(writes[0]["by"], "agent");
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end", "{events:?}");
    let tag = end["tag"].as_str().unwrap();
    assert_eq!(writes[0]["tag"], tag);
    assert!(end["timings"]["turn_ms"].as_f64().unwrap() > 0.0, "{end}");
    assert!(end["timings"]["first_chunk_ms"].is_number(), "{end}");

    // after_tool saw the call's result and what it changed on disk.
    let seen = after_tool.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0]["tool_name"].as_str().unwrap().starts_with("Write "));
    assert_eq!(seen[0]["status"], "completed");
    assert_eq!(seen[0]["diffs"][0]["old_text"], "old\n");
    assert_eq!(seen[0]["diffs"][0]["new_text"], "written by the agent\n");
    assert!(seen[0]["result"]["written"].is_string(), "{seen:?}");
    let turns = telemetry.lock().unwrap().clone();
    assert_eq!(turns[0]["event_type"], "turn", "{turns:?}");
    assert_eq!(turns[0]["data"]["stop_reason"], "end_turn");
    assert!(turns[0]["data"]["timings"]["turn_ms"].is_number());

    // Undo takes the agent's own write back.
    let undo = e.undo(tag);
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "old\n"
    );
}

#[test]
fn a_write_through_radium_is_recorded_once() {
    let e = env();
    let s = e.open("example");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "write fresh.txt new"}),
    );
    let events = e.drain(&s, Some("allow"));
    assert_eq!(of_type(&events, "write").len(), 1, "{events:?}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("fresh.txt")).unwrap(),
        "new\n"
    );
    let tag = events.last().unwrap()["tag"].as_str().unwrap().to_owned();
    let undo = e.undo(&tag);
    assert_eq!(undo["ok"], true, "{undo}");
    assert!(!e.ws.join("fresh.txt").exists(), "a created file goes away");
}

#[test]
fn a_hook_that_allows_is_named_and_errors_pass_the_error_hooks() {
    let e = env();
    e.engine
        .registry()
        .register(FnHook::new("trust-notes", HookType::BeforeTool, |ctx| {
            let mut data = ctx.data.clone();
            data["permission"] = json!("allow");
            Ok(HookResult::with_data(data))
        }))
        .unwrap();
    e.engine
        .registry()
        .register(FnHook::new(
            "explain",
            HookType::ErrorTransformation,
            |ctx| {
                let message = ctx.data["error_message"].as_str().unwrap_or_default();
                Ok(HookResult::with_data(
                    json!({"error_message": format!("{message} (try again later)")}),
                ))
            },
        ))
        .unwrap();
    let s = e.open("example");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "selfwrite a.txt yes"}),
    );
    let events = e.drain(&s, None);
    let decided = of_type(&events, "permission_decided");
    assert_eq!(decided[0]["by"], "hook:trust-notes", "{events:?}");
    assert!(of_type(&events, "permission").is_empty());
    assert!(e.ws.join("a.txt").exists());

    e.call("session-prompt", json!({"session": s, "prompt": "crash"}));
    let events = e.drain(&s, None);
    let end = events.last().unwrap();
    assert_eq!(end["type"], "error");
    assert_eq!(end["code"], "agent_failed");
    assert!(
        end["message"]
            .as_str()
            .unwrap()
            .ends_with("(try again later)"),
        "{end}"
    );
}

#[test]
fn a_permission_nobody_answers_is_rejected_after_its_time_limit() {
    let script = super::agent_script();
    let e = env_with(&format!(
        "[[agents]]\nid = \"patient\"\nprotocol = \"acp\"\npermission_timeout = \"300ms\"\n\
         command = [\"node\", \"{script}\"]\n"
    ));
    let s = e.open("patient");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "write late.txt never"}),
    );
    let events = e.drain(&s, None);
    let decided = of_type(&events, "permission_decided");
    assert_eq!(decided[0]["by"], "timeout", "{events:?}");
    assert_eq!(decided[0]["allowed"], false);
    assert!(!e.ws.join("late.txt").exists());
}

#[test]
fn permission_for_a_tool_call_never_announced_or_without_an_id() {
    let e = env();
    let s = e.open("example");
    e.call("session-prompt", json!({"session": s, "prompt": "ghost"}));
    let events = e.drain(&s, Some("reject"));
    let asked = of_type(&events, "permission");
    assert_eq!(asked.len(), 1, "only the one with an id: {events:?}");
    assert_eq!(asked[0]["tool_call"]["title"], "Ghost tool");
    let text = events.last().unwrap()["text"].as_str().unwrap().to_owned();
    assert!(
        text.contains(r#"unannounced: {"optionId":"reject","outcome":"selected"}"#),
        "{text}"
    );
    assert!(
        text.contains("no id: error `session/request_permission`: `toolCall.toolCallId`"),
        "{text}"
    );
}

#[test]
fn events_are_pushed_to_a_subscriber_until_the_session_closes() {
    let e = env();
    let s = e.open("example");
    let entry = e.engine.session(&s).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    entry
        .on_event(move |event| tx.send(event).unwrap())
        .unwrap();
    e.call("session-prompt", json!({"session": s, "prompt": "hello"}));
    let mut got = Vec::new();
    loop {
        let event = rx.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
        let last = event["type"] == "turn_end";
        got.push(event);
        if last {
            break;
        }
    }
    assert_eq!(got.last().unwrap()["text"], "You said: hello");
    // The chunks arrive as text events; a subscriber behind (a loaded
    // machine) gets those waiting joined, so only their whole is certain.
    let texts = of_type(&got, "text");
    let joined: String = texts.iter().filter_map(|t| t["text"].as_str()).collect();
    assert!(
        !texts.is_empty() && joined == "You said: hello",
        "{texts:?}"
    );
    // Nothing is left for a poller: the subscriber had it all.
    let polled = e.call("session-events", json!({"session": s}));
    assert_eq!(polled["data"]["events"], json!([]));
    e.call("session-close", json!({"session": s}));
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), None);
}

#[test]
fn a_command_agent_holds_a_conversation_and_streams_its_output() {
    // A command agent: each turn gets the conversation so far on stdin and
    // prints its answer in two parts, a moment apart.
    let e = env_with(
        "[[agents]]\nid = \"echo\"\nprotocol = \"command\"\ncommand = [\"sh\", \"-c\", '''\
         input=$(cat)\n\
         case \"$input\" in *'\"prompt\":\"fail\"'*) echo 'the command gave up' >&2; exit 4 ;; esac\n\
         printf 'turns: %s; ' \"$(printf '%s' \"$input\" | grep -o '\"role\":\"user\"' | wc -l | tr -d ' ')\"\n\
         sleep 0.2\n\
         printf 'context: %s' \"$(printf '%s' \"$input\" | grep -o '\"uri\":\"file:///[^\"]*' | cut -c8- | head -1)\"\n\
         ''']\n",
    );
    let s = e.open("echo");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "first", "wait": true,
               "context": {"file_path": "/w/a.rs", "selection": "x", "selection_range": {"start_line": 2, "end_line": 2}}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["text"], "turns: 1; context: file:///w/a.rs#L2-L2");
    let texts = of_type(r["data"]["events"].as_array().unwrap(), "text").len();
    assert!(texts >= 2, "streamed while it ran: {r}");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "second", "wait": true}),
    );
    assert_eq!(r["data"]["text"], "turns: 2; context: ", "{r}");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "fail", "wait": true}),
    );
    assert_eq!(r["code"], "agent_failed", "{r}");
    let message = r["error"].as_str().unwrap();
    assert!(
        message.contains("exited with code 4") && message.contains("the command gave up"),
        "{message}"
    );
    // A cancel kills the running command.
    e.call("session-prompt", json!({"session": s, "prompt": "slow"}));
    std::thread::sleep(Duration::from_millis(100));
    e.call("session-cancel", json!({"session": s}));
    let events = e.drain(&s, None);
    assert_eq!(
        events.last().unwrap()["stop_reason"],
        "cancelled",
        "{events:?}"
    );
}

#[test]
fn a_session_has_its_conversation_from_the_start_and_a_door_can_continue_one() {
    let e = env();
    std::fs::write(e.ws.join("review.txt"), "before review\n").unwrap();
    std::fs::write(e.ws.join("notes.txt"), "old\n").unwrap();
    let r = e.call("session-new", json!({"agent": "example"}));
    assert_eq!(r["ok"], true, "{r}");
    let s = r["data"]["session"].as_str().unwrap().to_owned();
    let tag = r["data"]["tag"]
        .as_str()
        .expect("a tag before any write")
        .to_owned();
    // The door accepts a review before the agent wrote anything: recorded
    // with the session's tag, it is a step of the session's conversation.
    std::fs::write(e.ws.join("review.txt"), "after review\n").unwrap();
    let rec = e
        .engine
        .handle_json(json!({
            "command": "record", "tag": tag, "follow": true,
            "args": {"files": [{"path": "review.txt", "old_text": "before review\n"}]},
        }))
        .to_json();
    assert_eq!(rec["ok"], true, "{rec}");
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "write notes.txt new text"}),
    );
    let events = e.drain(&s, Some("allow"));
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end", "{events:?}");
    let latest = end["tag"].as_str().unwrap();
    // One conversation: two undos with its tag take back the agent's write
    // and then the review.
    let first = e.undo(latest);
    assert_eq!(first["ok"], true, "{first}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "old\n"
    );
    let second = e.undo(first["tag"].as_str().unwrap());
    assert_eq!(second["ok"], true, "{second}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("review.txt")).unwrap(),
        "before review\n",
        "the review was in the same conversation: {second}"
    );
    // A session opened with a known tag continues that conversation; an
    // unknown tag starts its own; a tag that is not text is refused.
    let again = e.call(
        "session-new",
        json!({"agent": "example", "tag": second["tag"]}),
    );
    assert_eq!(again["ok"], true, "{again}");
    let list = e.call("session-list", json!({}));
    let listed = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["session"] == again["data"]["session"])
        .cloned()
        .unwrap();
    assert_eq!(listed["tag"], again["data"]["tag"], "{list}");
    let unknown = e.call(
        "session-new",
        json!({"agent": "example", "tag": "nobody-knows"}),
    );
    assert_eq!(unknown["ok"], true, "{unknown}");
    assert_ne!(unknown["data"]["tag"], "nobody-knows", "{unknown}");
    assert!(unknown["data"]["tag"].is_string(), "{unknown}");
    let bad = e.call("session-new", json!({"agent": "example", "tag": 7}));
    assert_eq!(bad["code"], "invalid_argument", "{bad}");
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("`tag` must be a string"),
        "{bad}"
    );
}
