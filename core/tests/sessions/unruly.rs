//! What a careless or hostile agent (tests/agents/unruly-agent.mjs) cannot
//! do: write past the tool hooks, reach the door with a path it announced
//! elsewhere, turn a reject into an allow with crafted option ids, or fill
//! memory with a long line, many snapshots or a flood of chunks.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use radium_core::{FnHook, HookLoader, HookResult, HookType};
use serde_json::{json, Value};

use super::{env_with, of_type, Env};

fn unruly() -> Env {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/agents/unruly-agent.mjs")
        .canonicalize()
        .unwrap();
    env_with(&format!(
        "[[agents]]\nid = \"unruly\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\"]\n",
        script.display()
    ))
}

impl Env {
    /// One turn with `prompt`, to its end, answering each permission
    /// request with `args` (`answer` or `option`).
    fn turn(&self, session: &str, prompt: &str, args: Value) -> Vec<Value> {
        let r = self.call(
            "session-prompt",
            json!({"session": session, "prompt": prompt}),
        );
        assert_eq!(r["ok"], true, "{r}");
        let started = Instant::now();
        let mut all = Vec::new();
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the turn did not end: {all:?}"
            );
            let r = self.call(
                "session-events",
                json!({"session": session, "wait_ms": 500}),
            );
            for event in r["data"]["events"].as_array().unwrap() {
                if event["type"] == "permission" {
                    let mut answer = args.clone();
                    answer["session"] = json!(session);
                    answer["id"] = event["id"].clone();
                    let a = self.call("session-permission", answer);
                    assert_eq!(a["ok"], true, "{a}");
                }
                all.push(event.clone());
                if event["type"] == "turn_end" || event["type"] == "error" {
                    return all;
                }
            }
        }
    }
}

/// The turn's whole answer.
fn said(events: &[Value]) -> String {
    events.last().unwrap()["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn notices(events: &[Value]) -> Vec<String> {
    of_type(events, "notice")
        .iter()
        .map(|n| n["message"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_agents_own_write_passes_the_tool_hooks_as_create() {
    let e = unruly();
    // The guard of docs/mcp.md: `create|str-replace`, from hooks.toml.
    e.engine
        .registry()
        .register(FnHook::new("guard", HookType::BeforeTool, |ctx| {
            if ctx.data["arguments"]["content"]
                .as_str()
                .is_some_and(|c| c.contains("secret"))
            {
                return Ok(HookResult::stop("no secrets in files"));
            }
            Ok(HookResult::success())
        }))
        .unwrap();
    std::fs::create_dir_all(e.ws.join(".radium")).unwrap();
    std::fs::write(
        e.ws.join(".radium/hooks.toml"),
        "[[hooks]]\nname = \"guard\"\ntype = \"before_tool\"\nmatcher = \"create|str-replace\"\n",
    )
    .unwrap();
    HookLoader::new(&e.ws).apply(e.engine.registry()).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let keep = std::sync::Arc::clone(&seen);
    e.engine
        .registry()
        .register(FnHook::new("seen", HookType::AfterTool, move |ctx| {
            keep.lock().unwrap().push(ctx.data.clone());
            Ok(HookResult::success())
        }))
        .unwrap();
    let s = e.open("unruly");

    let events = e.turn(&s, "fswrite notes.txt a secret", json!({"answer": "allow"}));
    assert!(
        said(&events).contains("refused: ") && said(&events).contains("no secrets in files"),
        "the agent is told: {events:?}"
    );
    let refused = of_type(&events, "write_refused");
    assert_eq!(refused.len(), 1, "{events:?}");
    assert_eq!(refused[0]["code"], "refused");
    assert!(
        !e.ws.join("notes.txt").exists(),
        "the stopped write is not made"
    );
    assert!(
        !seen
            .lock()
            .unwrap()
            .iter()
            .any(|c| c["tool_name"] == "create"),
        "no after_tool for a write that was not made"
    );

    let events = e.turn(
        &s,
        "fswrite notes.txt plain words",
        json!({"answer": "allow"}),
    );
    assert!(said(&events).contains("written"), "{events:?}");
    assert_eq!(
        std::fs::read_to_string(e.ws.join("notes.txt")).unwrap(),
        "plain words\n"
    );
    let seen = seen.lock().unwrap();
    let create: Vec<&Value> = seen.iter().filter(|c| c["tool_name"] == "create").collect();
    assert_eq!(create.len(), 1, "after_tool saw the write: {seen:?}");
    assert_eq!(create[0]["arguments"]["content"], "plain words\n");
}

#[test]
fn radiums_rule_checks_every_path_a_tool_call_announced() {
    let e = unruly();
    let outside = e.ws.parent().unwrap().join("outside.txt");
    let outside = outside.to_str().unwrap();
    let s = e.open("unruly");
    // Outside paths announced in the tool_call, in an update, in rawInput:
    // the door (which would allow) is never asked.
    for verb in ["announce", "later", "rawinput"] {
        let events = e.turn(&s, &format!("{verb} {outside}"), json!({"answer": "allow"}));
        assert!(
            of_type(&events, "permission").is_empty(),
            "{verb}: {events:?}"
        );
        let decided = of_type(&events, "permission_decided");
        assert_eq!(decided[0]["allowed"], false, "{verb}: {events:?}");
        assert_eq!(decided[0]["by"], "radium", "{verb}: {events:?}");
        assert!(
            said(&events).contains(r#""optionId":"reject""#),
            "{verb}: {events:?}"
        );
    }
    // Inside the workspace, each goes to the door.
    for verb in ["announce", "later", "rawinput"] {
        let events = e.turn(
            &s,
            &format!("{verb} inside.txt"),
            json!({"answer": "allow"}),
        );
        assert_eq!(
            of_type(&events, "permission").len(),
            1,
            "{verb}: {events:?}"
        );
        assert!(
            said(&events).contains(r#""optionId":"allow""#),
            "{verb}: {events:?}"
        );
    }
}

#[test]
fn a_permission_is_decided_by_the_chosen_options_kind() {
    // The agent's options: id `allow` of kind reject_once (named Reject),
    // id `reject` of kind allow_once (named Allow).
    let e = unruly();
    let s = e.open("unruly");
    let cases = [
        (json!({"option": "allow"}), false, "allow"),
        (json!({"option": "reject"}), true, "reject"),
        (json!({"answer": "reject"}), false, "allow"),
        (json!({"answer": "allow"}), true, "reject"),
    ];
    for (answer, allowed, id) in cases {
        let events = e.turn(&s, "crafted", answer.clone());
        let decided = of_type(&events, "permission_decided");
        assert_eq!(decided[0]["allowed"], allowed, "{answer}: {events:?}");
        assert!(
            said(&events).contains(&format!(r#""optionId":"{id}""#)),
            "{answer}: the agent gets the option's exact id: {events:?}"
        );
        let shown = &of_type(&events, "permission")[0]["options"];
        assert_eq!(shown[0]["kind"], "reject_once", "{shown}");
    }
    // An id none of the options has rejects; bad arguments are errors.
    let events = e.turn(&s, "crafted", json!({"option": "yes-please"}));
    assert_eq!(of_type(&events, "permission_decided")[0]["allowed"], false);
    for (args, says) in [
        (json!({"option": "allow", "answer": "allow"}), "not both"),
        (json!({}), "missing argument `option`"),
        (json!({"option": 3}), "`option`"),
    ] {
        let mut args = args;
        args["session"] = json!(s);
        args["id"] = json!("p1");
        let r = e.call("session-permission", args);
        assert_eq!(r["code"], "invalid_argument", "{r}");
        assert!(r["error"].as_str().unwrap().contains(says), "{r}");
    }
}

#[test]
fn a_line_over_64_mib_is_skipped_and_the_turn_goes_on() {
    let e = unruly();
    let s = e.open("unruly");
    let events = e.turn(&s, "hugeline 70", json!({"answer": "reject"}));
    assert!(
        notices(&events)
            .iter()
            .any(|n| n.contains("a line over 64 MiB (skipped)")),
        "{events:?}"
    );
    assert_eq!(events.last().unwrap()["type"], "turn_end", "{events:?}");
    assert_eq!(said(&events), "after");
}

#[test]
fn snapshots_before_tool_calls_are_shared_and_capped() {
    let e = unruly();
    let mib = |n: usize| "a\n".repeat(n << 19);
    std::fs::write(e.ws.join("big.txt"), mib(17)).unwrap();
    std::fs::write(e.ws.join("mid.txt"), mib(1)).unwrap();
    let s = e.open("unruly");
    // 100 calls naming a 1 MiB file hold it once (100 copies would pass the
    // 64 MiB cap); a file over 16 MiB is not read, said once.
    let events = e.turn(
        &s,
        "snapshots 100 mid.txt big.txt",
        json!({"answer": "reject"}),
    );
    let said_about = |events: &[Value], name: &str| {
        notices(events)
            .into_iter()
            .filter(|n| n.contains(name))
            .collect::<Vec<_>>()
    };
    assert!(
        said_about(&events, "mid.txt").is_empty(),
        "{:?}",
        notices(&events)
    );
    let big = said_about(&events, "big.txt");
    assert_eq!(big.len(), 1, "{big:?}");
    assert!(
        big[0].contains("17 MiB, over the 16 MiB radium reads"),
        "{big:?}"
    );
    assert!(big[0].contains("undo cannot take it back"), "{big:?}");
    // Five different 15 MiB files: the fifth is past the session's 64 MiB.
    let names: Vec<String> = (1..=5).map(|i| format!("f{i}.txt")).collect();
    for name in &names {
        std::fs::write(e.ws.join(name), mib(15)).unwrap();
    }
    let events = e.turn(
        &s,
        &format!("snapshots 1 {}", names.join(" ")),
        json!({"answer": "reject"}),
    );
    let held = notices(&events);
    assert_eq!(held.len(), 1, "{held:?}");
    assert!(
        held[0].contains("f5.txt") && held[0].contains("holds 64 MiB"),
        "{held:?}"
    );
}

#[test]
fn a_flood_of_chunks_is_joined_and_a_turns_text_is_capped() {
    let e = unruly();
    let s = e.open("unruly");
    // 100,000 chunks of 100 bytes, taken after the turn ended: a few events.
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "stream 100000 100"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let started = Instant::now();
    while e.call("session-list", json!({}))["data"][0]["busy"] == true {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the turn did not end"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let events = e.turn_events(&s);
    let texts = of_type(&events, "text");
    let streamed: usize = texts
        .iter()
        .map(|t| t["text"].as_str().unwrap().len())
        .sum();
    assert_eq!(streamed, 10_000_000);
    assert!(texts.len() < 1000, "{} text events", texts.len());
    assert_eq!(said(&events).len(), 10_000_000);

    // 40 MiB of answer: the turn keeps 32 MiB and says what it dropped.
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "stream 40 1048576"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let events = e.turn_events(&s);
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turn_end", "{}", end["type"]);
    assert_eq!(said(&events).len(), radium_core::sessions::MAX_TURN_TEXT);
    assert_eq!(end["text_dropped"], 8 << 20);
    assert!(
        notices(&events).iter().any(|n| n.contains("over 32 MiB")),
        "{:?}",
        notices(&events)
    );
}

impl Env {
    /// The events of the running (or just ended) turn, to its end.
    fn turn_events(&self, session: &str) -> Vec<Value> {
        let started = Instant::now();
        let mut all = Vec::new();
        loop {
            assert!(started.elapsed() < Duration::from_secs(120), "no end");
            let r = self.call(
                "session-events",
                json!({"session": session, "wait_ms": 500}),
            );
            for event in r["data"]["events"].as_array().unwrap() {
                all.push(event.clone());
                if event["type"] == "turn_end" || event["type"] == "error" {
                    return all;
                }
            }
        }
    }
}
