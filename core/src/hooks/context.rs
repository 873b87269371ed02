//! The data a hook sees: [`HookContext`] and the specialised contexts.
//!
//! Every chain passes one [`HookContext`] from hook to hook. Its `data` is a
//! JSON value; the specialised contexts ([`ModelHookContext`],
//! [`ToolHookContext`], [`ErrorHookContext`], [`TelemetryHookContext`]) are
//! typed views of the fields that each category of hook reads, and convert
//! both ways. The field names are part of the documented contract
//! (`docs/hooks.md`).

use std::ffi::CStr;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::hooks::hook_type::HookType;

/// The context passed along a hook chain.
///
/// Build one with [`HookContext::new`]. Hooks that hand the context to
/// another language as JSON text (C, scripts) use
/// [`to_json_text`](HookContext::to_json_text): the text is serialised once
/// and shared by every such hook until a hook changes the data.
// The one `unsafe` (in `to_json_cstr`) relies on the JSON cache, which is
// never deserialised (`serde(skip)`: a fresh, empty cache).
#[allow(clippy::unsafe_derive_deserialize)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookContext {
    /// The type of the chain being run.
    pub hook_type: HookType,
    /// The data hooks read and may replace (see [`HookResult::Modify`](crate::HookResult::Modify)).
    #[serde(default)]
    pub data: Value,
    /// Extra information about the call (caller, timings, ...); hooks read it but cannot replace it.
    #[serde(default)]
    pub metadata: Value,
    /// The JSON text of this context, made on first request.
    #[serde(skip)]
    json: JsonCache,
}

/// A lazily made JSON text of a context, with a NUL after it for C, and the
/// revision of the data it was made from. Clones start empty (with a new
/// revision) and every cache compares equal, so the cache never changes
/// what a context is.
struct JsonCache {
    text: OnceLock<String>,
    revision: u64,
}

/// The next revision: unique in the process.
static NEXT_REVISION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Default for JsonCache {
    fn default() -> Self {
        JsonCache {
            text: OnceLock::new(),
            revision: NEXT_REVISION.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }
}

impl Clone for JsonCache {
    fn clone(&self) -> Self {
        JsonCache::default()
    }
}

impl PartialEq for JsonCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for JsonCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("..")
    }
}

impl HookContext {
    /// A context of `hook_type` carrying `data`, with empty metadata.
    pub fn new(hook_type: HookType, data: Value) -> Self {
        HookContext {
            hook_type,
            data,
            metadata: Value::Null,
            json: JsonCache::default(),
        }
    }

    fn json_with_nul(&self) -> &str {
        self.json.text.get_or_init(|| {
            #[derive(Serialize)]
            struct View<'a> {
                hook_type: HookType,
                data: &'a Value,
                metadata: &'a Value,
            }
            let mut text = sonic_rs::to_string(&View {
                hook_type: self.hook_type,
                data: &self.data,
                metadata: &self.metadata,
            })
            .unwrap_or_default();
            text.push('\0');
            text
        })
    }

    /// The context as JSON text, `{"hook_type", "data", "metadata"}`.
    /// Serialised on first use and then shared while the data is unchanged.
    pub fn to_json_text(&self) -> &str {
        let text = self.json_with_nul();
        &text[..text.len() - 1]
    }

    /// The same text as a NUL-terminated C string (JSON text never contains NUL).
    pub fn to_json_cstr(&self) -> &CStr {
        let bytes = self.json_with_nul().as_bytes();
        debug_assert!(!bytes[..bytes.len() - 1].contains(&0));
        // SAFETY: the text ends with the NUL `json_with_nul` adds, and has no
        // other: serialised JSON escapes a NUL in a string as \u0000, and
        // nothing else can hold one. (Not scanning the text again for every
        // C hook matters for large contexts.)
        unsafe { CStr::from_bytes_with_nul_unchecked(bytes) }
    }

    /// Forgets the cached JSON text; the chain calls this when the data changes.
    pub(crate) fn forget_json(&mut self) {
        self.json = JsonCache::default();
    }

    /// A number that stands for this context's current data: no other
    /// context (nor a clone) has it, and the chain gives the context a new
    /// one whenever it applies a hook's change. A host that converts the
    /// context for each of its hooks can convert it once per revision.
    /// (Changing the public fields directly does not change it; a chain's
    /// hooks only see the context, they cannot change it.)
    pub fn revision(&self) -> u64 {
        self.json.revision
    }

    /// The same context with `metadata` attached.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = metadata;
        self
    }

    /// The `tool_name` field of `data`, which [`ToolMatcher`](crate::ToolMatcher)s select on.
    pub fn tool_name(&self) -> Option<&str> {
        self.data.get("tool_name").and_then(Value::as_str)
    }

    /// Reads `data` as a typed view (one of the specialised contexts, or any
    /// deserialisable type), without copying the data first.
    pub fn data_as<T: DeserializeOwned>(&self) -> Result<T> {
        T::deserialize(&self.data).map_err(|e| {
            Error::InvalidContext(format!(
                "{} hook data does not have the expected fields: {e}",
                self.hook_type
            ))
        })
    }
}

fn to_context<T: Serialize>(value: &T, hook_type: HookType) -> HookContext {
    // Serialising these plain structs to a JSON value cannot fail: every field
    // is a string or already a JSON value.
    let data = serde_json::to_value(value).unwrap_or(Value::Null);
    HookContext::new(hook_type, data)
}

/// What model hooks read: `input`, `model_id` and, after the call, `response`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModelHookContext {
    /// The prompt sent to the model.
    #[serde(default)]
    pub input: String,
    /// Which model is called.
    #[serde(default)]
    pub model_id: String,
    /// The model's answer (after the call only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
}

impl ModelHookContext {
    /// The context of a `before_model` chain.
    pub fn before(input: impl Into<String>, model_id: impl Into<String>) -> Self {
        ModelHookContext {
            input: input.into(),
            model_id: model_id.into(),
            response: None,
        }
    }

    /// The context of an `after_model` chain.
    pub fn after(
        input: impl Into<String>,
        model_id: impl Into<String>,
        response: impl Into<String>,
    ) -> Self {
        ModelHookContext {
            input: input.into(),
            model_id: model_id.into(),
            response: Some(response.into()),
        }
    }

    /// Converts to a [`HookContext`] of `hook_type`.
    pub fn to_hook_context(&self, hook_type: HookType) -> HookContext {
        to_context(self, hook_type)
    }

    /// Reads a model context back from a [`HookContext`].
    pub fn from_hook_context(context: &HookContext) -> Result<Self> {
        context.data_as()
    }
}

/// What tool hooks read: `tool_name`, `arguments` and, after the call, `result`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolHookContext {
    /// The tool's name, which tool matchers select on.
    pub tool_name: String,
    /// The arguments the tool is called with.
    #[serde(default)]
    pub arguments: Value,
    /// The tool's result (after the call only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl ToolHookContext {
    /// The context of a `before_tool` chain.
    pub fn before(tool_name: impl Into<String>, arguments: Value) -> Self {
        ToolHookContext {
            tool_name: tool_name.into(),
            arguments,
            result: None,
        }
    }

    /// The context of an `after_tool` chain.
    pub fn after(tool_name: impl Into<String>, arguments: Value, result: Value) -> Self {
        ToolHookContext {
            tool_name: tool_name.into(),
            arguments,
            result: Some(result),
        }
    }

    /// Converts to a [`HookContext`] of `hook_type`.
    pub fn to_hook_context(&self, hook_type: HookType) -> HookContext {
        to_context(self, hook_type)
    }

    /// Reads a tool context back from a [`HookContext`].
    pub fn from_hook_context(context: &HookContext) -> Result<Self> {
        context.data_as()
    }
}

/// What error hooks read: `error_message`, `error_type`, `error_source`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ErrorHookContext {
    /// The error's message.
    pub error_message: String,
    /// A short class of error (`timeout`, `io`, `model`, ...).
    #[serde(default)]
    pub error_type: String,
    /// Where the error came from (a tool or model name), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_source: Option<String>,
}

impl ErrorHookContext {
    /// An error context.
    pub fn new(error_message: impl Into<String>, error_type: impl Into<String>) -> Self {
        ErrorHookContext {
            error_message: error_message.into(),
            error_type: error_type.into(),
            error_source: None,
        }
    }

    /// The same context with its source set.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.error_source = Some(source.into());
        self
    }

    /// Converts to a [`HookContext`] of `hook_type`.
    pub fn to_hook_context(&self, hook_type: HookType) -> HookContext {
        to_context(self, hook_type)
    }

    /// Reads an error context back from a [`HookContext`].
    pub fn from_hook_context(context: &HookContext) -> Result<Self> {
        context.data_as()
    }
}

/// What telemetry hooks read: `event_type` and `data`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TelemetryHookContext {
    /// What happened (`step`, `tool_call`, ...).
    pub event_type: String,
    /// The event's payload (timings, counts...).
    #[serde(default)]
    pub data: Value,
}

impl TelemetryHookContext {
    /// A telemetry context.
    pub fn new(event_type: impl Into<String>, data: Value) -> Self {
        TelemetryHookContext {
            event_type: event_type.into(),
            data,
        }
    }

    /// Converts to a [`HookContext`] of `hook_type`.
    pub fn to_hook_context(&self, hook_type: HookType) -> HookContext {
        to_context(self, hook_type)
    }

    /// Reads a telemetry context back from a [`HookContext`].
    pub fn from_hook_context(context: &HookContext) -> Result<Self> {
        context.data_as()
    }
}
