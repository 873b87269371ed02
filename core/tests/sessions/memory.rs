//! Streamed turns of many chunks: every door gets the same text in the same
//! order, and a door that is behind gets it joined into few events rather
//! than one event per chunk (nothing lost).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{env, of_type};

/// The numbers of a `stamp` turn's text (`<hrtime> ` per chunk), checked to
/// be strictly increasing: the chunks came whole and in order.
fn stamps_in_order(text: &str) -> usize {
    let stamps: Vec<u128> = text
        .split_whitespace()
        .map(|s| s.parse().unwrap_or_else(|_| panic!("not a stamp: {s:?}")))
        .collect();
    assert!(
        stamps.windows(2).all(|w| w[0] < w[1]),
        "the chunks came out of order"
    );
    stamps.len()
}

/// The text of `events`' `text` events, joined.
fn text_of(events: &[Value]) -> String {
    of_type(events, "text")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

#[test]
fn a_turn_of_many_chunks_reaches_a_poller_whole_and_in_order() {
    let e = env();
    let s = e.open("example");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "stamp 5000"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let events = e.drain(&s, None);
    let streamed = text_of(&events);
    assert_eq!(stamps_in_order(&streamed), 5000);
    assert_eq!(events.last().unwrap()["text"], streamed.as_str());
}

#[test]
fn a_subscriber_that_reads_late_gets_every_chunk_joined_in_order() {
    let e = env();
    let s = e.open("example");
    let entry = e.engine.session(&s).unwrap();
    let mut rx = entry.queue.subscribe_joined();
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "stamp 5000"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    // The door reads nothing until the turn has ended.
    let started = Instant::now();
    while entry.session.busy() {
        assert!(started.elapsed() < Duration::from_secs(60), "no turn end");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(event);
    }
    assert_eq!(events.last().unwrap()["type"], "turn_end", "{events:?}");
    let streamed = text_of(&events);
    assert_eq!(stamps_in_order(&streamed), 5000);
    assert_eq!(events.last().unwrap()["text"], streamed.as_str());
    // 5,000 chunks waited: the door holds a few joined events, not 5,000.
    let texts = of_type(&events, "text").len();
    assert!(texts <= 2, "{texts} text events for 5,000 chunks");
    // The session's end ends the subscription.
    e.call("session-close", json!({"session": s}));
    let started = Instant::now();
    loop {
        match rx.try_recv() {
            Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => break,
            _ => assert!(started.elapsed() < Duration::from_secs(10), "not ended"),
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_slow_callback_still_gets_every_chunk_in_order() {
    let e = env();
    let s = e.open("example");
    let entry = e.engine.session(&s).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    entry
        .on_event(move |event| {
            // A door that takes 2 ms an event (a busy editor).
            std::thread::sleep(Duration::from_millis(2));
            let _ = tx.send(event);
        })
        .unwrap();
    e.call(
        "session-prompt",
        json!({"session": s, "prompt": "stamp 3000"}),
    );
    let mut events = Vec::new();
    loop {
        let event = rx.recv_timeout(Duration::from_secs(60)).unwrap().unwrap();
        let last = event["type"] == "turn_end";
        events.push(event);
        if last {
            break;
        }
    }
    let streamed = text_of(&events);
    assert_eq!(stamps_in_order(&streamed), 3000);
    assert_eq!(events.last().unwrap()["text"], streamed.as_str());
    // A second subscriber takes its place: the first gets its end.
    let _second = entry.queue.subscribe_joined();
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), None);
}

#[test]
fn a_turns_end_has_its_code_blocks_and_the_after_model_hooks_its_answer() {
    use radium_core::{FnHook, HookResult, HookType};
    use std::sync::{Arc, Mutex};
    let e = env();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let keep = Arc::clone(&seen);
    e.engine
        .registry()
        .register(FnHook::new("answers", HookType::AfterModel, move |ctx| {
            let output = ctx.data["output"].as_str().unwrap_or_default();
            keep.lock().unwrap().push(output.to_owned());
            Ok(HookResult::success())
        }))
        .unwrap();
    let s = e.open("example");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "here:\n```rust\nfn a() {}\n```\n", "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let text = r["data"]["text"].as_str().unwrap();
    assert!(text.starts_with("You said: here:\n```rust"), "{text}");
    let blocks = r["data"]["code_blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{r}");
    assert_eq!(blocks[0]["language"], "rust");
    assert_eq!(blocks[0]["content"], "fn a() {}\n");
    // An answer without a fence has no code blocks (it is not parsed).
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "no code here", "wait": true}),
    );
    assert_eq!(r["data"]["code_blocks"], json!([]));
    // The hooks got each answer whole.
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0], text);
    assert_eq!(seen[1], "You said: no code here");
}
