//! What each fuzz target checks, one function per entry point of
//! radium-core. The cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`) call these
//! on libFuzzer's inputs; the stable test `core/tests/fuzz_corpus.rs`
//! includes this file and calls them on the regression corpus
//! (`tests/fuzz-corpus/<target>/`), so a saved input replays through exactly
//! the code the fuzzer ran.
//!
//! Every function takes raw bytes and returns nothing: an input passes when
//! nothing panics (an error answer is a pass). A broken property panics with
//! a message that names it.
//!
//! The `request` and `daemon_frame` targets answer requests on a default
//! engine, which carries out what they ask (edits under a request's `cwd`,
//! `trust`, `ext-install`...): run the fuzzer in the sandbox of
//! `docs/fuzzing.md`, never on a machine's real files.

use std::sync::OnceLock;

use radium_core::daemon::{read_frame, Frame, MAX_FRAME};
use radium_core::{
    check_json_depth, extract_code_blocks, parse_json, Engine, EngineConfig, ExtractedAnswer,
    HookConfigFile, HookRegistry,
};
use serde_json::Value;

/// The fuzz targets, as named in `fuzz/Cargo.toml` and in `tests/fuzz-corpus/`.
pub const TARGETS: [&str; 4] = ["request", "extract", "hooks_toml", "daemon_frame"];

/// Runs target `name` on `data`; `false` for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "request" => request(data),
        "extract" => extract(data),
        "hooks_toml" => hooks_toml(data),
        "daemon_frame" => daemon_frame(data),
        _ => return false,
    }
    true
}

/// The engine every input is answered by: `Engine::new(EngineConfig::default())`,
/// made once (its settings come from `$RADIUM_HOME`, as in any door).
pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::new(EngineConfig::default()).expect("a default engine starts"))
}

/// At most the first 300 bytes of `text` (cut at a character boundary), for
/// panic messages that must stay readable.
fn shown(text: &str) -> &str {
    let mut end = text.len().min(300);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Checks that `answer` is a response as every door reads it: JSON that
/// [`parse_json`] accepts (so no deeper than the doors' limit), an object
/// with a boolean `ok`.
fn check_response(request: &str, answer: &str) {
    let value = match parse_json(answer) {
        Ok(value) => value,
        Err(e) => panic!(
            "the answer to {:?} is not JSON ({e}): {:?}",
            shown(request),
            shown(answer)
        ),
    };
    assert!(
        value.get("ok").is_some_and(Value::is_boolean),
        "the answer to {:?} has no boolean `ok`: {:?}",
        shown(request),
        shown(answer)
    );
}

/// `request`: the JSON request door. UTF-8 input goes to
/// [`Engine::handle_json_text`]; `Err` (not JSON at all, or too deep) is
/// allowed, an `Ok` answer must be a response ([`check_response`]).
pub fn request(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        answer_text(text);
    }
}

fn answer_text(text: &str) {
    if let Ok(answer) = engine().handle_json_text(text) {
        check_response(text, &answer);
    }
}

/// `extract`: the code blocks of an agent's answer. UTF-8 input goes to
/// [`ExtractedAnswer::from_answer`] and [`extract_code_blocks`]; both must
/// agree, count the blocks right and number them from 0, and the JSON form
/// must carry them all.
pub fn extract(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let answer = ExtractedAnswer::from_answer(text);
    assert_eq!(answer.original_output, text);
    assert_eq!(answer.block_count, answer.code_blocks.len());
    for (i, block) in answer.code_blocks.iter().enumerate() {
        assert_eq!(block.index, i, "blocks are numbered in order");
    }
    assert_eq!(extract_code_blocks(text), answer.code_blocks);
    let count = answer.block_count;
    let json = answer.into_json();
    assert_eq!(json["code_blocks"].as_array().map(Vec::len), Some(count));
}

/// `hooks_toml`: `.radium/hooks.toml`. UTF-8 input goes to
/// [`HookConfigFile::parse`]; an error must format, and a parsed file is
/// applied to a fresh [`HookRegistry`] (which may refuse it, but not panic).
pub fn hooks_toml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match HookConfigFile::parse(text, ".radium/hooks.toml") {
        Ok(file) => {
            let registry = HookRegistry::new();
            if let Err(e) = registry.apply_config(&file) {
                let _ = e.to_string();
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// `daemon_frame`: the bytes a client sends the daemon. Frames are read
/// with [`read_frame`] (limit [`MAX_FRAME`]) until the input ends, is cut
/// short or announces a frame over the limit, as the daemon reads a
/// connection. Each whole frame is answered the daemon's way (depth check,
/// then serde_json, then [`Engine::handle_json`]; `shutdown` is the
/// daemon's own and is not passed on) and, when UTF-8, by the text door
/// too; every answer must be a response.
pub fn daemon_frame(data: &[u8]) {
    let mut stream = data;
    while let Ok(Frame::Data(payload)) = read_frame(&mut stream, MAX_FRAME) {
        let parsed = check_json_depth(&payload)
            .and_then(|()| serde_json::from_slice::<Value>(&payload).map_err(|e| e.to_string()));
        if let Ok(value) = parsed {
            if value.get("command").and_then(Value::as_str) != Some("shutdown") {
                let request = String::from_utf8_lossy(&payload);
                check_response(&request, &engine().handle_json(value).to_json().to_string());
            }
        }
        if let Ok(text) = std::str::from_utf8(&payload) {
            answer_text(text);
        }
    }
}
