//! The names the parts and the shared error type agree on: the protocol's
//! commands and the hook types. One list each; the error messages that list
//! valid names read them from here, so the error type needs no part.

/// The commands of the request protocol, in the order error messages list them.
pub const COMMANDS: &[&str] = &[
    "ping",
    "shutdown",
    "version",
    "hooks-list",
    "hooks-execute",
    "hooks-enable",
    "hooks-disable",
    "context",
    "extract",
    "apply",
    "agents",
    "step",
    "cancel",
    "ext-install",
    "ext-list",
    "ext-remove",
    "trust",
    "view",
    "create",
    "str-replace",
    "insert",
    "undo",
    "redo",
    "solve-conflict",
];

/// The `snake_case` names of the 13 hook types, in the order of
/// [`HookType::ALL`](crate::HookType::ALL).
pub const HOOK_TYPES: [&str; 13] = [
    "before_model",
    "after_model",
    "before_tool",
    "after_tool",
    "tool_selection",
    "error_interception",
    "error_transformation",
    "error_recovery",
    "error_logging",
    "telemetry_collection",
    "custom_logging",
    "metrics_aggregation",
    "performance_monitoring",
];
