//! Slow agents stopped with their process group, cancel, and async doors kept free.

use super::*;

#[test]
fn a_slow_agent_is_stopped_with_its_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let s = setup(&format!(
        "[[agents]]\nid = \"slow\"\ncommand = [\"/bin/sh\", \"-c\", \"sleep 30 & echo $$ $! > '{}'; wait\"]\ntimeout = 300\n",
        pids.display()
    ));
    let t = Instant::now();
    let r = step(&s, "slow", "", Value::Null);
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(r["code"], "agent_timeout");
    assert_eq!(
        r["error"],
        "agent `slow` did not answer within 300ms; it was stopped"
    );
    std::thread::sleep(Duration::from_millis(200));
    for pid in std::fs::read_to_string(pids).unwrap().split_whitespace() {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            stat.is_empty() || stat.contains(") Z "),
            "process {pid} survived"
        );
    }
}

#[test]
fn the_async_form_does_not_block_its_executor() {
    let s = setup(
        "[[agents]]\nid = \"slowish\"\ncommand = [\"/bin/sh\", \"-c\", \"sleep 0.3; echo done\"]\n",
    );
    let (r, ticks) = common::while_ticking(
        s.engine
            .handle_async(&Request::new("step", json!({"agent": "slowish"}))),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.data.unwrap()["original_output"], "done\n");
    assert!(ticks >= 10, "{ticks}");
}

fn gone(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.is_empty() || stat.contains(") Z ")
}

#[test]
fn cancel_stops_a_running_step_and_kills_its_agent() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let s = setup(&format!(
        "[[agents]]\nid = \"slow\"\ncommand = [\"/bin/sh\", \"-c\", \"sleep 30 & echo $$ $! > '{}'; wait\"]\ntimeout = \"60s\"\n",
        pids.display()
    ));
    let mut request = Request::new("step", json!({"agent": "slow"}));
    request.id = Some("step-1".into());
    let engine = s.engine.clone();
    let t = Instant::now();
    // The sync door blocks its thread; another thread cancels it.
    let waiter = std::thread::spawn(move || engine.handle(&request).to_json());
    while !pids.exists()
        || std::fs::read_to_string(&pids)
            .unwrap()
            .split_whitespace()
            .count()
            < 2
    {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // An id nobody uses cancels nothing.
    let none = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "other"})))
        .to_json();
    assert_eq!(
        none,
        json!({"ok": true, "data": {"id": "other", "cancelled": 0}})
    );
    let cancel = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "step-1"})))
        .to_json();
    assert_eq!(
        cancel,
        json!({"ok": true, "data": {"id": "step-1", "cancelled": 1}})
    );
    let r = waiter.join().unwrap();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(r["ok"], false);
    assert_eq!(r["code"], "cancelled", "{r}");
    assert_eq!(r["error"], "request `step-1` was cancelled");
    let deadline = Instant::now() + Duration::from_secs(5);
    for pid in std::fs::read_to_string(&pids).unwrap().split_whitespace() {
        while !gone(pid) {
            assert!(
                Instant::now() < deadline,
                "process {pid} survived the cancel"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // Finished requests are forgotten: cancelling again finds nothing.
    let again = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "step-1"})))
        .to_json();
    assert_eq!(again["data"]["cancelled"], 0);
}

#[test]
fn cancel_needs_an_id_and_a_finished_request_keeps_its_answer() {
    let s = setup(&example_toml());
    for (args, message) in [
        (
            json!({}),
            "invalid argument: `cancel`: missing argument `id`",
        ),
        (
            json!({"id": 3}),
            "invalid argument: `cancel`: argument `id` must be a string, got a number",
        ),
    ] {
        let r = s.engine.handle(&Request::new("cancel", args)).to_json();
        assert_eq!(r["code"], "invalid_argument", "{r}");
        assert_eq!(r["error"], message);
    }
    let mut request = Request::new(
        "step",
        json!({"agent": "example", "context": context(&s.ws)}),
    );
    request.id = Some("quick".into());
    let r = s.engine.handle(&request).to_json();
    assert_eq!(r["ok"], true, "{r}");
    let cancel = s
        .engine
        .handle(&Request::new("cancel", json!({"id": "quick"})))
        .to_json();
    assert_eq!(cancel["data"]["cancelled"], 0);
}
