//! The names of object keys on a tape: the common ones the codec knows from
//! the start, by number, and the limits on the names it remembers.

/// Names the codec knows from the start, by number: the keys of the
/// engine's envelopes, outcomes and editor data. A name here costs no table
/// lookup.
pub(super) const COMMON: [&str; 36] = [
    "ok",
    "data",
    "error",
    "code",
    "tag",
    "warnings",
    "hook_type",
    "status",
    "stopped_by",
    "hooks",
    "duration_ns",
    "name",
    "hook",
    "reason",
    "metadata",
    "tool_name",
    "arguments",
    "result",
    "context",
    "editor_context",
    "file_path",
    "language",
    "selection",
    "selection_range",
    "start_line",
    "end_line",
    "surrounding_lines",
    "workspace",
    "original_output",
    "code_blocks",
    "block_count",
    "content",
    "index",
    "incomplete",
    "agent",
    "prompt",
];

/// The number of a common name.
pub(super) fn common_index(key: &str) -> Option<usize> {
    // A match on the name compiles to a comparison by length, then bytes.
    Some(match key {
        "ok" => 0,
        "data" => 1,
        "error" => 2,
        "code" => 3,
        "tag" => 4,
        "warnings" => 5,
        "hook_type" => 6,
        "status" => 7,
        "stopped_by" => 8,
        "hooks" => 9,
        "duration_ns" => 10,
        "name" => 11,
        "hook" => 12,
        "reason" => 13,
        "metadata" => 14,
        "tool_name" => 15,
        "arguments" => 16,
        "result" => 17,
        "context" => 18,
        "editor_context" => 19,
        "file_path" => 20,
        "language" => 21,
        "selection" => 22,
        "selection_range" => 23,
        "start_line" => 24,
        "end_line" => 25,
        "surrounding_lines" => 26,
        "workspace" => 27,
        "original_output" => 28,
        "code_blocks" => 29,
        "block_count" => 30,
        "content" => 31,
        "index" => 32,
        "incomplete" => 33,
        "agent" => 34,
        "prompt" => 35,
        _ => return None,
    })
}

/// Object keys up to this long are remembered by the codec, up to this many
/// per environment; others are sent as text each time.
pub(super) const KEY_MAX_LEN: usize = 64;
pub(super) const KEY_MAX_COUNT: usize = 4096;
