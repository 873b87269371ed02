//! The built-in hooks: `editor-context` (before_tool, 150) and `code-apply`
//! (after_tool, 100). Both act on the agent step's tool call (`tool_name`
//! `step`) and are registered in every [`Engine`](crate::Engine); disable them
//! by name like any hook.

use serde_json::Value;

use super::context::{ContextLimits, EditorContext};
use super::extract::ExtractedAnswer;
use crate::hooks::context::HookContext;
use std::sync::LazyLock;

use crate::hooks::hook::{Hook, HookCall, HookMeta};
use crate::hooks::hook_type::HookType;
use crate::hooks::result::HookResult;

/// The tool name of an agent step, which the built-in hooks match.
pub const STEP_TOOL: &str = "step";

/// Validates the editor's context (`data.editor_context`) and moves it into
/// the tool arguments (`data.arguments.context`), where the step and the
/// agent read it. An invalid context stops the step, with the rule it broke
/// as the reason.
#[derive(Debug, Clone, Default)]
pub struct EditorContextHook {
    limits: ContextLimits,
}

impl EditorContextHook {
    /// The hook's name.
    pub const NAME: &'static str = "editor-context";

    /// The hook, validating with `limits`.
    pub fn new(limits: ContextLimits) -> Self {
        EditorContextHook { limits }
    }
}

impl Hook for EditorContextHook {
    fn meta(&self) -> &HookMeta {
        static META: LazyLock<HookMeta> = LazyLock::new(|| {
            HookMeta::new(EditorContextHook::NAME, HookType::BeforeTool).with_priority(150)
        });
        &META
    }
    fn call(&self, context: &HookContext) -> HookCall {
        let Some(raw) = context.data.get("editor_context") else {
            return HookResult::Continue.into();
        };
        if raw.is_null() {
            return HookResult::Continue.into();
        }
        match EditorContext::from_json(raw, &self.limits) {
            Ok(valid) => {
                // The validated context replaces the raw one (which is not copied).
                let mut data = copy_except(&context.data, "editor_context");
                if !data["arguments"].is_object() {
                    data["arguments"] = Value::Object(serde_json::Map::new());
                }
                data["arguments"]["context"] = valid.into_json();
                HookResult::with_data(data).into()
            }
            Err(e) => HookResult::stop(e.to_string()).into(),
        }
    }
}

/// Turns the agent's answer (`data.result`, a string) into
/// `{original_output, code_blocks: [{language, content, index, file_path?}], block_count}`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeApplyHook;

impl CodeApplyHook {
    /// The hook's name.
    pub const NAME: &'static str = "code-apply";
}

impl Hook for CodeApplyHook {
    fn meta(&self) -> &HookMeta {
        static META: LazyLock<HookMeta> =
            LazyLock::new(|| HookMeta::new(CodeApplyHook::NAME, HookType::AfterTool));
        &META
    }
    fn call(&self, context: &HookContext) -> HookCall {
        let Some(Value::String(answer)) = context.data.get("result") else {
            return HookResult::Continue.into();
        };
        let extracted = ExtractedAnswer::from_answer(answer);
        let mut data = copy_except(&context.data, "result");
        data["result"] = extracted.into_json();
        HookResult::with_data(data).into()
    }
}

/// A copy of an object without one of its fields (which is never copied).
fn copy_except(data: &Value, skip: &str) -> Value {
    match data {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != skip)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}
