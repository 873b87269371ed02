//! The agent step: before_tool → before_model → the agent → after_model →
//! after_tool, with the error chains on failure and telemetry with timings.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::agents::config::{AgentConfig, DEFAULT_AGENT_OUTPUT};
use crate::editor::context::{ContextLimits, EditorContext};
use crate::editor::extract::ExtractedAnswer;
use crate::editor::hooks::STEP_TOOL;
use crate::error::{Error, Result};
use crate::hooks::context::{ErrorHookContext, HookContext, TelemetryHookContext};
use crate::hooks::hook_type::HookType;
use crate::hooks::outcome::{ChainOutcome, ChainStatus};
use crate::hooks::registry::{ExecuteOptions, HookRegistry};
use crate::support::json::{args_object, optional_string_arg, string_arg};
use crate::support::process::{run_process, ProcessSpec};

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct StepRequest {
    /// The agent's id.
    pub agent: String,
    /// The user's instruction.
    pub prompt: String,
    /// The editor context as the editor sent it (validated by `editor-context`).
    pub context: Value,
}

impl StepRequest {
    /// The `step` command's arguments: `{agent, prompt?, context?}`; the
    /// context is moved out of `args`.
    pub(crate) fn from_args(args: &mut Value) -> Result<Self> {
        let map = args_object("step", args)?;
        let agent = string_arg("step", map, "agent")?.to_owned();
        let prompt = optional_string_arg("step", map, "prompt")?
            .unwrap_or_default()
            .to_owned();

        let context = match args {
            Value::Object(map) => map.remove("context").unwrap_or(Value::Null),
            _ => Value::Null,
        };
        Ok(StepRequest {
            agent,
            prompt,
            context,
        })
    }
}

fn check(outcome: &ChainOutcome, stage: &str) -> Result<()> {
    match outcome.status {
        ChainStatus::Completed => Ok(()),
        // The `try_` chains answer a broken configuration as an error; an
        // outcome that says so anyway is a refusal naming the file.
        ChainStatus::Stopped | ChainStatus::ConfigError => {
            let stop =
                outcome
                    .stopped_by
                    .clone()
                    .unwrap_or_else(|| crate::hooks::outcome::StopInfo {
                        hook: "?".into(),
                        reason: String::new(),
                    });
            Err(Error::Refused {
                hook: stop.hook,
                reason: stop.reason,
                stage: stage.to_owned(),
            })
        }
        ChainStatus::Cancelled => Err(Error::Cancelled(format!(
            "the step was cancelled during {stage}"
        ))),
        ChainStatus::DeadlineExceeded => Err(Error::Cancelled(format!(
            "the step's deadline passed during {stage}"
        ))),
    }
}

fn text_of(data: &Value, field: &str, before: String) -> String {
    match data {
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .get(field)
            .and_then(Value::as_str)
            .map_or(before, str::to_owned),
        _ => before,
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Aborts the agent's task (killing its process group) if the step is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn run_agent(
    registry: &HookRegistry,
    agent: &AgentConfig,
    input: String,
    context: &Value,
) -> std::result::Result<String, (String, &'static str)> {
    let mut env: Vec<(String, String)> = agent
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Ok(ctx) = serde_json::from_value::<EditorContext>(context.clone()) {
        env.extend(ctx.env_vars().into_iter().map(|(k, v)| (k.to_owned(), v)));
    }
    env.push(("RADIUM_AGENT_ID".to_owned(), agent.id.clone()));
    let (program, args) = agent
        .command
        .split_first()
        .map_or((String::new(), Vec::new()), |(p, a)| {
            (p.clone(), a.to_vec())
        });
    let spec = ProcessSpec {
        program: program.into(),
        args,
        cwd: Some(agent.cwd.clone()),
        env,
        max_output: DEFAULT_AGENT_OUTPUT,
    };
    let handle = registry
        .runtime_handle()
        .map_err(|e| (e.to_string(), "runtime"))?;
    let limit = agent.timeout;
    let mut task = AbortOnDrop(handle.spawn(async move {
        tokio::time::timeout(limit, run_process(spec, input.into_bytes())).await
    }));
    let id = &agent.id;
    match (&mut task.0).await {
        Err(e) => Err((format!("agent `{id}` could not run: {e}"), "agent_failed")),
        Ok(Err(_)) => Err((
            format!("agent `{id}` did not answer within {limit:?}; it was stopped"),
            "agent_timeout",
        )),
        Ok(Ok(Err(e))) => Err((format!("agent `{id}`: {e}"), "agent_failed")),
        Ok(Ok(Ok(out))) => {
            if out.stdout_over {
                return Err((
                    format!("agent `{id}` printed more than {DEFAULT_AGENT_OUTPUT} bytes"),
                    "agent_failed",
                ));
            }
            match out.code {
                Some(0) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
                Some(code) if out.stderr.is_empty() => Err((
                    format!("agent `{id}` exited with status {code}"),
                    "agent_failed",
                )),
                Some(code) => Err((
                    format!("agent `{id}` exited with status {code}: {}", out.stderr),
                    "agent_failed",
                )),
                None => Err((
                    format!("agent `{id}` was killed by a signal"),
                    "agent_failed",
                )),
            }
        }
    }
}

/// The error chains, run asynchronously: returns the final message and an
/// optional recovery answer; `None` message means an interception hook
/// handled the error. A broken hook configuration is an error.
pub(crate) async fn handle_error(
    registry: &HookRegistry,
    error: ErrorHookContext,
) -> Result<(Option<String>, Option<String>)> {
    let opts = ExecuteOptions::default;
    let mut current = error;
    let interception = registry
        .try_execute_async(current.to_hook_context(HookType::ErrorInterception), opts())
        .await?;
    let suppressed = interception.status == ChainStatus::Stopped;
    let mut recovery = None;
    if !suppressed {
        let transformed = registry
            .try_execute_async(
                current.to_hook_context(HookType::ErrorTransformation),
                opts(),
            )
            .await?;
        current.error_message = text_of(
            &transformed.data,
            "error_message",
            current.error_message.clone(),
        );
        let recovered = registry
            .try_execute_async(current.to_hook_context(HookType::ErrorRecovery), opts())
            .await?;
        recovery = recovered
            .data
            .get("recovery")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    registry
        .try_execute_async(current.to_hook_context(HookType::ErrorLogging), opts())
        .await?;
    Ok(((!suppressed).then_some(current.error_message), recovery))
}

/// The chains every step runs, with the tool their context names.
const ALWAYS_RUN: [(HookType, Option<&str>); 6] = [
    (HookType::BeforeTool, Some(STEP_TOOL)),
    (HookType::BeforeModel, None),
    (HookType::AfterModel, None),
    (HookType::AfterTool, Some(STEP_TOOL)),
    (HookType::PerformanceMonitoring, None),
    (HookType::TelemetryCollection, None),
];

/// Runs one step. See the module documentation for the order of the chains.
/// With a broken hook configuration, a chain with a hook to run fails the
/// step with the configuration error.
pub(crate) async fn run_step(
    registry: HookRegistry,
    agents: Vec<AgentConfig>,
    request: StepRequest,
    limits: ContextLimits,
) -> Result<Value> {
    let _ = limits;
    let total = Instant::now();
    let opts = ExecuteOptions::default;
    let agent = agents
        .iter()
        .find(|a| a.id == request.agent)
        .cloned()
        .ok_or_else(|| Error::UnknownAgent {
            id: request.agent.clone(),
            known: agents
                .iter()
                .map(|a| a.id.clone())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    // A broken hook configuration fails the step before the agent runs when
    // a chain the step always runs has a hook to run (the error chains, run
    // only on a failure, answer it then).
    for (hook_type, tool) in ALWAYS_RUN {
        registry.check_config(hook_type, tool)?;
    }

    let t = Instant::now();
    let before_tool = registry
        .try_execute_async(
            HookContext::new(
                HookType::BeforeTool,
                json!({
                    "tool_name": STEP_TOOL,
                    "arguments": {"agent": agent.id, "prompt": request.prompt},
                    "editor_context": request.context,
                }),
            ),
            opts(),
        )
        .await?;
    let before_tool_ns = nanos(t.elapsed());
    check(&before_tool, "before_tool")?;
    let arguments = before_tool
        .data
        .get("arguments")
        .cloned()
        .unwrap_or(Value::Null);
    let context = arguments.get("context").cloned().unwrap_or(Value::Null);
    let prompt = text_of(&arguments, "prompt", request.prompt.clone());

    let t = Instant::now();
    let before_model = registry
        .try_execute_async(
            HookContext::new(
                HookType::BeforeModel,
                json!({"input": prompt, "model_id": agent.id, "context": context}),
            ),
            opts(),
        )
        .await?;
    let before_model_ns = nanos(t.elapsed());
    check(&before_model, "before_model")?;
    let input = text_of(&before_model.data, "input", prompt);

    let t = Instant::now();
    let stdin = json!({"agent": agent.id, "prompt": input, "context": context}).to_string();
    let answer = match run_agent(&registry, &agent, stdin, &context).await {
        Ok(answer) => answer,
        Err((message, kind)) => {
            let error = ErrorHookContext::new(message.clone(), kind).with_source(agent.id.clone());
            match handle_error(&registry, error).await? {
                (_, Some(recovered)) => recovered,
                (Some(message), None) => {
                    return Err(if kind == "agent_timeout" {
                        Error::AgentTimeout(message)
                    } else {
                        Error::AgentFailed(message)
                    })
                }
                (None, None) => String::new(),
            }
        }
    };
    let agent_ns = nanos(t.elapsed());

    let t = Instant::now();
    let after_model = registry
        .try_execute_async(
            HookContext::new(
                HookType::AfterModel,
                json!({"input": input, "model_id": agent.id, "response": answer}),
            ),
            opts(),
        )
        .await?;
    let after_model_ns = nanos(t.elapsed());
    check(&after_model, "after_model")?;
    let response = text_of(&after_model.data, "response", answer);

    let t = Instant::now();
    let after_tool = registry
        .try_execute_async(
            HookContext::new(
                HookType::AfterTool,
                json!({"tool_name": STEP_TOOL, "arguments": arguments, "result": response}),
            ),
            opts(),
        )
        .await?;
    let after_tool_ns = nanos(t.elapsed());
    check(&after_tool, "after_tool")?;
    let result = after_tool
        .data
        .get("result")
        .cloned()
        .unwrap_or(Value::Null);
    let mut output = match result {
        // code-apply disabled: the answer stays text.
        Value::String(text) => serde_json::to_value(ExtractedAnswer {
            original_output: text,
            code_blocks: Vec::new(),
            block_count: 0,
        })
        .unwrap_or(Value::Null),
        Value::Object(_) => result,
        other => json!({"original_output": other, "code_blocks": [], "block_count": 0}),
    };
    let timings = json!({
        "before_tool_ns": before_tool_ns,
        "before_model_ns": before_model_ns,
        "agent_ns": agent_ns,
        "after_model_ns": after_model_ns,
        "after_tool_ns": after_tool_ns,
        "total_ns": nanos(total.elapsed()),
    });
    for hook_type in [
        HookType::PerformanceMonitoring,
        HookType::TelemetryCollection,
    ] {
        let event =
            TelemetryHookContext::new("step", json!({"agent": agent.id, "timings": timings}));
        registry
            .try_execute_async(event.to_hook_context(hook_type), opts())
            .await?;
    }
    output["agent"] = json!(agent.id);
    output["context"] = context;
    output["timings"] = timings;
    Ok(output)
}
