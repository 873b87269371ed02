//! [`ScriptHook`]: a hook that is an external program.
//!
//! The program runs directly (no shell), with the hook context as JSON on
//! stdin, and answers on stdout with the documented hook result JSON. The
//! conventions Claude Code and Gemini CLI users know also work: exit 0 with
//! nothing on stdout is "continue"; exit 2 is "stop" with stderr as the
//! reason; any other exit status is this hook's error, with stderr in the
//! message. The process runs in its own process group; when the hook's time
//! limit passes or its chain is cancelled, the whole group is killed.

use std::path::PathBuf;

use crate::hooks::context::HookContext;
use crate::hooks::hook::{Hook, HookCall, HookMeta, HookOutput};
use crate::hooks::hook_type::{HookPriority, HookType};
use crate::hooks::result::{HookError, HookResult};
use crate::support::json::parse_json;
use crate::support::names::editor_env;
use crate::support::process::{run_process, ProcessSpec};

/// The most a script may write on stdout (and the most of stderr kept): 1 MiB.
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 20;

/// A hook that runs an external program.
#[derive(Debug, Clone)]
pub struct ScriptHook {
    meta: HookMeta,
    program: PathBuf,
    args: Vec<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    max_output: usize,
}

impl ScriptHook {
    /// A hook named `name` of `hook_type` that runs `program` (a path, or a
    /// name looked up in `PATH`).
    pub fn new(name: impl Into<String>, hook_type: HookType, program: impl Into<PathBuf>) -> Self {
        ScriptHook {
            meta: HookMeta::new(name, hook_type),
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            max_output: DEFAULT_MAX_OUTPUT,
        }
    }

    /// The same hook with arguments for the program.
    #[must_use]
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// The same hook with another priority.
    #[must_use]
    pub fn with_priority(mut self, priority: impl Into<HookPriority>) -> Self {
        self.meta.priority = priority.into();
        self
    }

    /// The same hook run in folder `cwd`.
    #[must_use]
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// The same hook with an extra environment variable for the program
    /// (the host process's own environment is never changed).
    #[must_use]
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The same hook with another stdout cap.
    #[must_use]
    pub fn with_max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }
}

async fn run(hook: ScriptHook, input: String) -> HookOutput {
    let name = hook.meta.name.clone();
    let cap = hook.max_output;
    let mut env = hook.env.clone();
    env.push((
        "RADIUM_HOOK_TYPE".to_owned(),
        hook.meta.hook_type.as_str().to_owned(),
    ));
    env.push(("RADIUM_HOOK_NAME".to_owned(), name.clone()));
    let spec = ProcessSpec {
        program: hook.program,
        args: hook.args,
        cwd: hook.cwd,
        env,
        max_output: cap,
    };
    let out = run_process(spec, input.into_bytes())
        .await
        .map_err(|e| HookError::new(format!("script hook `{name}`: {e}")))?;
    if out.stdout_over {
        return Err(HookError::new(format!(
            "script hook `{name}` wrote more than {cap} bytes on stdout"
        )));
    }
    let stderr_text = out.stderr;
    match out.code {
        Some(0) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let text = text.trim();
            if text.is_empty() {
                return Ok(HookResult::Continue);
            }
            let value = parse_json(text).map_err(|e| {
                HookError::new(format!(
                    "script hook `{name}` printed something that is not JSON on stdout ({e}): {}",
                    text.chars().take(200).collect::<String>()
                ))
            })?;
            HookResult::from_json(&value)
                .map_err(|e| HookError::new(format!("script hook `{name}`: {e}")))
        }
        Some(2) => Ok(HookResult::stop(if stderr_text.is_empty() {
            format!("script hook `{name}` exited with status 2")
        } else {
            stderr_text
        })),
        Some(code) => Err(HookError::new(if stderr_text.is_empty() {
            format!("script hook `{name}` exited with status {code}")
        } else {
            format!("script hook `{name}` exited with status {code}: {stderr_text}")
        })),
        None => Err(HookError::new(format!(
            "script hook `{name}` was killed by a signal"
        ))),
    }
}

impl Hook for ScriptHook {
    fn meta(&self) -> &HookMeta {
        &self.meta
    }
    fn call(&self, context: &HookContext) -> HookCall {
        let mut hook = self.clone();
        // The editor context of an agent step travels in RADIUM_EDITOR_*.
        if let Some(editor) = context
            .data
            .pointer("/arguments/context")
            .or_else(|| context.data.get("context"))
        {
            hook.env.extend(
                editor_env(editor)
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v)),
            );
        }
        HookCall::pending(run(hook, context.to_json_text().to_owned()))
    }
}
