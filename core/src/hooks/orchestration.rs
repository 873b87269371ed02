//! Helpers that run the right chains around model calls, tool calls and errors.
//!
//! These are what an agent loop calls (seed 002's `OrchestratorHooks` and
//! the `HookExecutor` it is used through). The fields each helper puts into
//! the chain's data, and reads back from it, are the documented contract:
//!
//! | helper | chain | data in | read back |
//! |---|---|---|---|
//! | [`before_model`](OrchestratorHooks::before_model) | `before_model` | `{input, model_id}` | `input` |
//! | [`after_model`](OrchestratorHooks::after_model) | `after_model` | `{input, model_id, response}` | `response` |
//! | [`before_tool`](OrchestratorHooks::before_tool) | `before_tool` | `{tool_name, arguments}` | `arguments` |
//! | [`after_tool`](OrchestratorHooks::after_tool) | `after_tool` | `{tool_name, arguments, result}` | `result` |
//! | [`tool_selection`](OrchestratorHooks::tool_selection) | `tool_selection` | `{tool_name, arguments}` | `tool_name`, `arguments` |
//! | [`handle_error`](OrchestratorHooks::handle_error) | the four error chains | `{error_message, error_type, error_source?}` | `error_message`, `recovery` |
//! | [`telemetry`](OrchestratorHooks::telemetry) | a telemetry chain | `{event_type, data}` | nothing |
//!
//! When a hook replaces the data with an object, the field is read back from
//! it; if the field is missing there, the value before the chain is kept.
//! For the model helpers a hook may also replace the data with a plain
//! string, which is taken as the new `input` / `response`.

use serde_json::{json, Value};

use crate::hooks::context::{ErrorHookContext, HookContext, TelemetryHookContext, ToolHookContext};
use crate::hooks::hook_type::HookType;
use crate::hooks::outcome::{ChainOutcome, ChainStatus, StopInfo};
use crate::hooks::registry::HookRegistry;

/// The value a helper produced and the chain outcome it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct HookDecision<T> {
    /// The value after the hooks (the input, arguments, result...).
    pub value: T,
    /// The chain's outcome.
    pub outcome: ChainOutcome,
}

impl<T> HookDecision<T> {
    /// Whether the call may go ahead: the chain completed (no stop,
    /// cancellation, deadline or broken hook configuration).
    pub fn proceeds(&self) -> bool {
        self.outcome.completed()
    }

    /// The hook that refused the call, and its reason, if one did; for a
    /// chain refused because the hook configuration is broken
    /// ([`ChainStatus::ConfigError`]), the file and the error message.
    pub fn refused(&self) -> Option<&StopInfo> {
        self.outcome.stopped_by.as_ref()
    }
}

/// What the error chains made of an error.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorHandling {
    /// The error message after `error_transformation`.
    pub message: String,
    /// True when an `error_interception` hook stopped the chain: the error is
    /// handled and should not propagate.
    pub suppressed: bool,
    /// The `recovery` value an `error_recovery` hook supplied, if any.
    pub recovery: Option<Value>,
    /// The outcomes of the chains that ran, in order.
    pub outcomes: Vec<ChainOutcome>,
}

/// The seed's integration trait: what an agent executor needs from hooks.
pub trait HookExecutor: Send + Sync {
    /// Runs `before_model`; the value is the (possibly rewritten) input.
    fn before_model(&self, input: &str, model_id: &str) -> HookDecision<String>;
    /// Runs `after_model`; the value is the (possibly rewritten) response.
    fn after_model(&self, input: &str, model_id: &str, response: &str) -> HookDecision<String>;
    /// Runs `before_tool`; the value is the (possibly rewritten) arguments.
    fn before_tool(&self, tool_name: &str, arguments: Value) -> HookDecision<Value>;
    /// Runs `after_tool`; the value is the (possibly rewritten) result.
    fn after_tool(&self, tool_name: &str, arguments: Value, result: Value) -> HookDecision<Value>;
    /// Runs the error chains.
    fn handle_error(&self, error: ErrorHookContext) -> ErrorHandling;
    /// Runs a telemetry chain.
    fn telemetry(&self, hook_type: HookType, event_type: &str, data: Value) -> ChainOutcome;
}

/// Runs the standard chains on a [`HookRegistry`]. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct OrchestratorHooks {
    registry: HookRegistry,
}

/// The seed's name for the [`HookExecutor`] over a registry.
pub type HookRegistryAdapter = OrchestratorHooks;

fn read_field(data: &Value, field: &str) -> Option<Value> {
    match data {
        Value::Object(map) => map.get(field).cloned(),
        _ => None,
    }
}

fn read_text(data: &Value, field: &str, before: &str) -> String {
    match data {
        Value::String(s) => s.clone(),
        Value::Object(map) => match map.get(field) {
            Some(Value::String(s)) => s.clone(),
            _ => before.to_owned(),
        },
        _ => before.to_owned(),
    }
}

impl OrchestratorHooks {
    /// Helpers over `registry`.
    pub fn new(registry: HookRegistry) -> Self {
        OrchestratorHooks { registry }
    }

    /// The registry the helpers run.
    pub fn registry(&self) -> &HookRegistry {
        &self.registry
    }

    fn run(&self, hook_type: HookType, data: Value) -> ChainOutcome {
        self.registry.execute(HookContext::new(hook_type, data))
    }

    /// Runs the `tool_selection` chain on the tool the agent chose; hooks may
    /// change `tool_name` or `arguments`, or stop to veto the tool.
    pub fn tool_selection(
        &self,
        tool_name: &str,
        arguments: Value,
    ) -> HookDecision<ToolHookContext> {
        let data = json!({ "tool_name": tool_name, "arguments": arguments });
        let outcome = self.run(HookType::ToolSelection, data);
        let tool_name = read_text(&outcome.data, "tool_name", tool_name);
        let arguments = read_field(&outcome.data, "arguments").unwrap_or(arguments);
        HookDecision {
            value: ToolHookContext::before(tool_name, arguments),
            outcome,
        }
    }
}

impl HookExecutor for OrchestratorHooks {
    fn before_model(&self, input: &str, model_id: &str) -> HookDecision<String> {
        let outcome = self.run(
            HookType::BeforeModel,
            json!({ "input": input, "model_id": model_id }),
        );
        HookDecision {
            value: read_text(&outcome.data, "input", input),
            outcome,
        }
    }

    fn after_model(&self, input: &str, model_id: &str, response: &str) -> HookDecision<String> {
        let outcome = self.run(
            HookType::AfterModel,
            json!({ "input": input, "model_id": model_id, "response": response }),
        );
        HookDecision {
            value: read_text(&outcome.data, "response", response),
            outcome,
        }
    }

    fn before_tool(&self, tool_name: &str, arguments: Value) -> HookDecision<Value> {
        let data = json!({ "tool_name": tool_name, "arguments": arguments.clone() });
        let outcome = self.run(HookType::BeforeTool, data);
        let value = read_field(&outcome.data, "arguments").unwrap_or(arguments);
        HookDecision { value, outcome }
    }

    fn after_tool(&self, tool_name: &str, arguments: Value, result: Value) -> HookDecision<Value> {
        let data =
            json!({ "tool_name": tool_name, "arguments": arguments, "result": result.clone() });
        let outcome = self.run(HookType::AfterTool, data);
        let value = read_field(&outcome.data, "result").unwrap_or(result);
        HookDecision { value, outcome }
    }

    fn handle_error(&self, error: ErrorHookContext) -> ErrorHandling {
        let mut outcomes = Vec::with_capacity(4);
        let mut current = error;

        let interception = self
            .registry
            .execute(current.to_hook_context(HookType::ErrorInterception));
        let suppressed = interception.status == ChainStatus::Stopped;
        outcomes.push(interception);

        let mut recovery = None;
        if !suppressed {
            let transformed = self
                .registry
                .execute(current.to_hook_context(HookType::ErrorTransformation));
            current.error_message =
                read_text(&transformed.data, "error_message", &current.error_message);
            outcomes.push(transformed);

            let recovered = self
                .registry
                .execute(current.to_hook_context(HookType::ErrorRecovery));
            recovery = read_field(&recovered.data, "recovery");
            outcomes.push(recovered);
        }

        let logged = self
            .registry
            .execute(current.to_hook_context(HookType::ErrorLogging));
        outcomes.push(logged);

        ErrorHandling {
            message: current.error_message,
            suppressed,
            recovery,
            outcomes,
        }
    }

    fn telemetry(&self, hook_type: HookType, event_type: &str, data: Value) -> ChainOutcome {
        self.registry
            .execute(TelemetryHookContext::new(event_type, data).to_hook_context(hook_type))
    }
}
