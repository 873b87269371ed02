//! The conversation history: every conversation kept per project, listed
//! and read through the request door, and resumed: with an agent that
//! offers `session/resume`, one that offers `session/load` (its replay not
//! passed on), and one that offers neither (the earlier turns go with the
//! next prompt as context).

use serde_json::{json, Value};

use super::{agent_script, env, env_with, of_type, Env};

/// An engine with the example agent as `example`, and as `resuming` (with
/// `--resume`) and `loading` (with `--load`), their sessions kept in `state`.
fn lasting_env(state: &std::path::Path) -> Env {
    let script = agent_script();
    let state = state.display();
    env_with(&format!(
        "[[agents]]\nid = \"resuming\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--resume\"]\n\
         env = {{ EXAMPLE_AGENT_STATE = \"{state}\" }}\n\n\
         [[agents]]\nid = \"loading\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--load\"]\n\
         env = {{ EXAMPLE_AGENT_STATE = \"{state}\" }}\n\n\
         [[agents]]\nid = \"late\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--load\", \"--late-replay\"]\n\
         env = {{ EXAMPLE_AGENT_STATE = \"{state}\" }}\n"
    ))
}

/// One turn of `prompt` in `session`, its events.
fn turn(e: &Env, session: &str, prompt: &str) -> Vec<Value> {
    let r = e.call(
        "session-prompt",
        json!({"session": session, "prompt": prompt}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let events = e.drain(session, Some("allow"));
    assert_eq!(events.last().unwrap()["type"], "turn_end", "{events:?}");
    events
}

/// Opens a session of `agent` continuing conversation `id`: its answer.
fn resume(e: &Env, agent: &str, id: &str) -> Value {
    let r = e.call("session-new", json!({"agent": agent, "resume": id}));
    assert_eq!(r["ok"], true, "{r}");
    r["data"].clone()
}

fn text(events: &[Value]) -> String {
    of_type(events, "text")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

/// The project's conversations folder (under the engine's `$RADIUM_HOME`).
fn folder(e: &Env) -> std::path::PathBuf {
    let home = e.ws.parent().unwrap().join("home");
    for entry in std::fs::read_dir(&home).unwrap().flatten() {
        let c = entry.path().join("conversations");
        if c.is_dir() {
            return c;
        }
    }
    panic!("no conversations folder under {}", home.display());
}

#[test]
fn a_conversation_is_kept_listed_and_read_with_its_turns() {
    let e = env();
    let s = e.open("example");
    turn(&e, &s, "hello there\nsecond line");
    turn(&e, &s, "write notes.txt kept words");
    let r = e.call("session-close", json!({"session": s}));
    assert_eq!(r["ok"], true, "{r}");

    let list = e.call("history-list", json!({}));
    assert_eq!(list["ok"], true, "{list}");
    let all = list["data"]["conversations"].as_array().unwrap();
    assert_eq!(all.len(), 1, "{list}");
    let c = &all[0];
    assert_eq!(c["agent"], "example");
    assert_eq!(c["title"], "hello there");
    assert_eq!(c["first_prompt"], "hello there\nsecond line");
    assert_eq!(c["turns"], 2);
    assert!(c["acp_session"].as_str().unwrap().starts_with("example-"));
    assert!(list["data"]["warnings"].as_array().unwrap().is_empty());

    let read = e.call("history-read", json!({"id": c["id"]}));
    assert_eq!(read["ok"], true, "{read}");
    let turns = read["data"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["prompt"], "hello there\nsecond line");
    assert!(turns[0]["text"]
        .as_str()
        .unwrap()
        .contains("You said: hello there"));
    assert_eq!(turns[0]["stop_reason"], "end_turn");
    // The write: its tool call with its diff and outcome, the permission and
    // its answer, the file written, and the tags around the turn.
    let second = &turns[1];
    let tool = &second["tools"][0];
    assert_eq!(tool["kind"], "edit", "{second}");
    assert_eq!(tool["status"], "completed", "{second}");
    assert_eq!(tool["diffs"][0]["new_text"], "kept words\n", "{second}");
    assert_eq!(second["permissions"][0]["allowed"], true, "{second}");
    assert!(
        second["writes"][0]
            .as_str()
            .unwrap()
            .ends_with("/notes.txt"),
        "{second}"
    );
    assert!(
        second["tag"].is_string() && second["tag_before"].is_string(),
        "{second}"
    );
    // The answer's text is kept once: in its text events, not again in the turn's end.
    let records = read["data"]["records"].as_array().unwrap();
    let end = records
        .iter()
        .find(|r| r["event"]["type"] == "turn_end")
        .unwrap();
    assert!(end["event"].get("text").is_none(), "{end}");
}

#[test]
fn an_agent_that_resumes_takes_up_its_own_session() {
    let state = tempfile::tempdir().unwrap();
    let e = lasting_env(state.path());
    let s = e.open("resuming");
    turn(&e, &s, "the first thing");
    let first = e.call("session-list", json!({}));
    assert_eq!(first["ok"], true);
    e.call("session-close", json!({"session": s}));
    let id = e.call("history-list", json!({}))["data"]["conversations"][0]["id"].clone();

    let again = resume(&e, "resuming", id.as_str().unwrap());
    assert_eq!(again["resumed"], "resume", "{again}");
    assert_eq!(again["conversation"], id, "{again}");
    let s2 = again["session"].as_str().unwrap();
    let events = turn(&e, s2, "remember");
    // The agent remembers (its own session), and got no context to repeat it.
    assert_eq!(
        text(&events),
        "I remember: the first thing; earlier turns given as context: 0"
    );
    assert!(of_type(&events, "notice").is_empty(), "{events:?}");
    // Closed gently: the agent was told `session/close` (it saves its
    // sessions then), and its process ended.
    let r = e.call("session-close", json!({"session": s2}));
    assert_eq!(r["ok"], true, "{r}");
    let acp = again["conversation"].clone();
    let read = e.call("history-read", json!({"id": acp}));
    let acp_session = read["data"]["conversation"]["acp_session"]
        .as_str()
        .unwrap()
        .to_owned();
    let marker = state.path().join(format!("{acp_session}.closed"));
    let started = std::time::Instant::now();
    while !marker.exists() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "session/close never reached the agent"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The same conversation, now of two turns; still one in the list.
    let list = e.call("history-list", json!({}));
    assert_eq!(list["data"]["conversations"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"]["conversations"][0]["turns"], 2);
}

#[test]
fn an_agent_that_loads_replays_nothing_the_history_shows_again() {
    let state = tempfile::tempdir().unwrap();
    let e = lasting_env(state.path());
    let s = e.open("loading");
    turn(&e, &s, "alpha");
    e.call("session-close", json!({"session": s}));
    let id = e.call("history-list", json!({}))["data"]["conversations"][0]["id"].clone();

    let again = resume(&e, "loading", id.as_str().unwrap());
    assert_eq!(again["resumed"], "load", "{again}");
    let s2 = again["session"].as_str().unwrap();
    let events = turn(&e, s2, "remember");
    let said = text(&events);
    assert_eq!(said, "I remember: alpha; earlier turns given as context: 0");
    assert!(!said.contains("replayed"), "{events:?}");
    // The history holds each turn once.
    let read = e.call("history-read", json!({"id": id}));
    let turns = read["data"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{read}");
    assert_eq!(turns[0]["prompt"], "alpha");
    assert_eq!(turns[1]["prompt"], "remember");
    let all = serde_json::to_string(&read["data"]["records"]).unwrap();
    assert!(!all.contains("replayed"), "{all}");
}

#[test]
fn a_replay_streamed_after_the_load_answer_is_not_passed_on_either() {
    // Gemini CLI 0.61 answers session/load, then streams the replay.
    let state = tempfile::tempdir().unwrap();
    let e = lasting_env(state.path());
    let s = e.open("late");
    turn(&e, &s, "alpha");
    turn(&e, &s, "beta");
    e.call("session-close", json!({"session": s}));
    let id = e.call("history-list", json!({}))["data"]["conversations"][0]["id"].clone();

    let again = resume(&e, "late", id.as_str().unwrap());
    assert_eq!(again["resumed"], "load", "{again}");
    let s2 = again["session"].as_str().unwrap();
    let events = turn(&e, s2, "remember");
    let said = text(&events);
    assert_eq!(
        said,
        "I remember: alpha | beta; earlier turns given as context: 0"
    );
    assert!(!said.contains("replayed"), "{events:?}");
    let read = e.call("history-read", json!({"id": id}));
    let all = serde_json::to_string(&read["data"]["records"]).unwrap();
    assert!(!all.contains("replayed"), "{all}");
    // The agent's commands, sent with the replay, still arrive.
    let info = e.call("session-info", json!({"session": s2}));
    assert_eq!(info["data"]["commands"][0]["name"], "review", "{info}");
}

#[test]
fn an_agent_that_cannot_resume_gets_the_earlier_turns_as_context() {
    let e = env();
    let s = e.open("example");
    turn(&e, &s, "one");
    turn(&e, &s, "two");
    e.call("session-close", json!({"session": s}));
    let id = e.call("history-list", json!({}))["data"]["conversations"][0]["id"].clone();

    let again = resume(&e, "example", id.as_str().unwrap());
    assert_eq!(again["resumed"], "context", "{again}");
    let s2 = again["session"].as_str().unwrap();
    let events = turn(&e, s2, "remember");
    assert_eq!(
        text(&events),
        "I remember: nothing; earlier turns given as context: 2"
    );
    let notices = of_type(&events, "notice");
    assert!(
        notices[0]["message"]
            .as_str()
            .unwrap()
            .contains("cannot resume its own session"),
        "{events:?}"
    );
    // Said once: the next turn has no context and no notice.
    let next = turn(&e, s2, "three");
    assert!(of_type(&next, "notice").is_empty(), "{next:?}");
    assert_eq!(text(&next), "You said: three");
    let read = e.call("history-read", json!({"id": id}));
    let prompts: Vec<&Value> = read["data"]["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["prompt"])
        .collect();
    assert_eq!(
        prompts,
        [
            &json!("one"),
            &json!("two"),
            &json!("remember"),
            &json!("three")
        ]
    );
}

#[test]
fn a_damaged_history_file_is_named_and_the_rest_still_listed() {
    let e = env();
    let s = e.open("example");
    turn(&e, &s, "good one");
    e.call("session-close", json!({"session": s}));
    let dir = folder(&e);
    let good = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // A copy cut in the middle of its last line (a crash mid-write), and a
    // file that is not JSON at all.
    let whole = std::fs::read_to_string(&good).unwrap();
    let cut = dir.join("0000000000cut.jsonl");
    std::fs::write(&cut, &whole[..whole.len() - 7]).unwrap();
    let junk = dir.join("0000000000junk.jsonl");
    std::fs::write(&junk, "this is not json\n").unwrap();

    let list = e.call("history-list", json!({}));
    assert_eq!(list["ok"], true, "{list}");
    let conversations = list["data"]["conversations"].as_array().unwrap();
    let ids: Vec<&str> = conversations
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"0000000000cut"), "{list}");
    assert!(!ids.contains(&"0000000000junk"), "{list}");
    assert_eq!(conversations.len(), 2, "{list}");
    let warnings = list["data"]["warnings"].to_string();
    assert!(
        warnings.contains("0000000000cut.jsonl") && warnings.contains("cut in the middle"),
        "{warnings}"
    );
    assert!(
        warnings.contains("0000000000junk.jsonl") && warnings.contains("not JSON"),
        "{warnings}"
    );

    // Reading the cut one gives what it holds, and the warning.
    let read = e.call("history-read", json!({"id": "0000000000cut"}));
    assert_eq!(read["ok"], true, "{read}");
    assert!(read["data"]["warnings"]
        .to_string()
        .contains("cut in the middle"));
}

#[test]
fn an_unknown_or_bad_conversation_id_is_a_clear_error() {
    let e = env();
    let r = e.call("history-read", json!({"id": "nope"}));
    assert_eq!(r["ok"], false);
    assert_eq!(r["code"], "invalid_argument");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("no conversation `nope`"),
        "{r}"
    );
    let r = e.call("history-read", json!({"id": "../../etc/passwd"}));
    assert_eq!(r["ok"], false);
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("is not a conversation id"),
        "{r}"
    );
    let r = e.call("history-read", json!({}));
    assert_eq!(r["ok"], false);
    assert!(r["error"].as_str().unwrap().contains("`id`"), "{r}");
    // Resuming an unknown conversation fails before any agent starts.
    let r = e.call("session-new", json!({"agent": "example", "resume": "nope"}));
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("no conversation `nope`"),
        "{r}"
    );
    assert_eq!(e.call("session-list", json!({}))["data"], json!([]));
    // An empty project lists nothing, without warnings.
    let list = e.call("history-list", json!({}));
    assert_eq!(list["data"], json!({"conversations": [], "warnings": []}));
}

#[test]
fn the_history_keeps_the_newest_conversations_and_caps_a_file() {
    use radium_core::sessions::history::{
        list, Recorder, MAX_CONVERSATIONS, MAX_CONVERSATION_FILE,
    };
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("conversations");
    let ws = dir.path();
    let first = Recorder::create(&folder, "a", "s", ws).unwrap().id;
    for _ in 0..MAX_CONVERSATIONS {
        Recorder::create(&folder, "a", "s", ws).unwrap();
    }
    let (all, warnings) = list(&folder);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(all.len(), MAX_CONVERSATIONS);
    assert!(
        all.iter().all(|c| c["id"] != first.as_str()),
        "the oldest was dropped"
    );

    // Past the file's cap: one `dropped` record, then prompts and turn ends only.
    let mut r = Recorder::create(&folder, "a", "s", ws).unwrap();
    r.prompt("big").unwrap();
    let chunk = "x".repeat(512 << 10);
    for _ in 0..20 {
        r.event(&json!({"type": "text", "text": chunk})).unwrap();
        r.event(&json!({"type": "plan", "entries": []})).unwrap();
    }
    r.event(&json!({"type": "turn_end", "stop_reason": "end_turn", "tag": "t", "tag_before": "b"}))
        .unwrap();
    r.flush().unwrap();
    let path = folder.join(format!("{}.jsonl", r.id));
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size <= MAX_CONVERSATION_FILE + 4096, "{size}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches("{\"kind\":\"dropped\"").count(), 1);
    assert!(
        text.trim_end().ends_with("\"type\":\"turn_end\"}}"),
        "the turn's end is kept"
    );
    // A record larger than 1 MiB keeps its type and size only.
    let mut r = Recorder::create(&folder, "a", "s", ws).unwrap();
    let huge = "y".repeat(2 << 20);
    r.event(&json!({"type": "tool_call", "id": "c1", "raw_input": huge}))
        .unwrap();
    let text = std::fs::read_to_string(folder.join(format!("{}.jsonl", r.id))).unwrap();
    assert!(
        text.contains("\"record_dropped\""),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(text.len() < 4096);
}
