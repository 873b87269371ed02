//! What an agent's commands ran and printed reaches the door in one shape,
//! whichever way the agent sends it: `command`, `cwd`, `output` (capped,
//! with `output_dropped`) and `exit_code` on the tool call's events.

use radium_core::sessions::output::cap_output;
use radium_core::sessions::MAX_TOOL_OUTPUT;
use serde_json::{json, Value};

use super::env;

/// The `tool_call` and `tool_call_update` events of one turn's prompt.
fn tool_events(prompt: &str) -> (Vec<Value>, std::path::PathBuf) {
    let e = env();
    std::fs::create_dir_all(e.ws.join("sub")).unwrap();
    let s = e.open("example");
    let r = e.call("session-prompt", json!({"session": s, "prompt": prompt}));
    assert_eq!(r["ok"], true, "{r}");
    let events = e.drain(&s, None);
    assert_eq!(events.last().unwrap()["type"], "turn_end", "{events:?}");
    let calls = events
        .into_iter()
        .filter(|e| matches!(e["type"].as_str(), Some("tool_call" | "tool_call_update")))
        .collect();
    (calls, e.ws.clone())
}

/// The last value of `field` among `events`.
fn last<'a>(events: &'a [Value], field: &str) -> &'a Value {
    events
        .iter()
        .rev()
        .find_map(|e| e.get(field))
        .unwrap_or_else(|| panic!("no {field} in {events:?}"))
}

#[test]
fn a_claude_style_command_carries_its_command_output_and_exit_code() {
    let (calls, _) = tool_events("shell printf 'one\\ntwo\\n'");
    assert_eq!(calls[0]["type"], "tool_call");
    assert_eq!(calls[0]["kind"], "execute");
    assert!(calls[0].get("command").is_none(), "{calls:?}");
    assert_eq!(last(&calls, "command"), "printf 'one\\ntwo\\n'");
    assert_eq!(last(&calls, "output"), "one\ntwo\n");
    assert_eq!(last(&calls, "exit_code"), 0);
    assert_eq!(last(&calls, "status"), "completed");
    assert!(calls.iter().all(|c| c.get("cwd").is_none()), "{calls:?}");
}

#[test]
fn a_command_in_another_folder_names_it() {
    let (calls, ws) = tool_events("shellin sub pwd");
    let sub = ws.join("sub");
    assert_eq!(last(&calls, "cwd"), sub.to_str().unwrap());
    assert_eq!(last(&calls, "command"), "pwd");
    let output = last(&calls, "output").as_str().unwrap();
    assert!(output.trim_end().ends_with("/sub"), "{output}");
}

#[test]
fn a_failed_command_carries_its_exit_code_and_error_output() {
    let (calls, _) = tool_events("shell echo oops >&2; exit 3");
    assert_eq!(last(&calls, "status"), "failed");
    assert_eq!(last(&calls, "exit_code"), 3);
    assert_eq!(last(&calls, "output"), "oops\n");
}

#[test]
fn a_gemini_style_command_carries_the_text_of_its_content() {
    let (calls, _) = tool_events("gshell echo from gemini");
    assert_eq!(calls[0]["title"], "echo from gemini");
    assert_eq!(last(&calls, "output"), "from gemini\n");
    assert!(
        calls.iter().all(|c| c.get("command").is_none()),
        "{calls:?}"
    );
}

#[test]
fn a_long_output_keeps_its_first_and_last_lines_and_says_what_was_left_out() {
    let (calls, _) = tool_events("shell seq 1 200000");
    let output = last(&calls, "output").as_str().unwrap();
    assert!(output.len() <= MAX_TOOL_OUTPUT + 64, "{}", output.len());
    assert!(output.starts_with("1\n2\n3\n"), "{}", &output[..20]);
    assert!(output.ends_with("199999\n200000\n"));
    let dropped = last(&calls, "output_dropped").as_u64().unwrap();
    assert!(output.contains(&format!("[… {dropped} bytes of output not kept …]")));
    // seq 1 200000 prints 1288895 bytes: all of them are kept or counted.
    let marker = format!("\n[… {dropped} bytes of output not kept …]\n");
    assert_eq!(output.len() - marker.len() + dropped as usize, 1_288_895);
}

#[test]
fn a_cap_never_splits_a_character() {
    let text = "é".repeat(MAX_TOOL_OUTPUT);
    let (kept, dropped) = cap_output(text.clone());
    assert!(dropped > 0);
    assert!(kept.starts_with('é') && kept.ends_with('é'));
    let marker = format!("\n[… {dropped} bytes of output not kept …]\n");
    assert_eq!(kept.len() - marker.len() + dropped, text.len());
    let (short, none) = cap_output("short".to_owned());
    assert_eq!((short.as_str(), none), ("short", 0));
}

#[test]
fn command_fields_of_odd_shapes_are_read_or_left_out() {
    let (calls, _) = tool_events("oddshell");
    // A list of words is the command; a number is none, and a folder that
    // is a list is no folder.
    assert_eq!(calls[0]["command"], "git status --short");
    let end = &calls[1];
    assert!(end.get("command").is_none(), "{end}");
    assert!(end.get("cwd").is_none(), "{end}");
    // An output object's stdout and stderr; an exit code that is text is none.
    assert_eq!(end["output"], "out\nerr");
    assert!(end.get("exit_code").is_none(), "{end}");
    assert!(end.get("output_dropped").is_none(), "{end}");
}
