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
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use crate::context::HookContext;
use crate::hook::{Hook, HookCall, HookOutput};
use crate::hook_type::{HookPriority, HookType};
use crate::result::{HookError, HookResult};

/// The most a script may write on stdout (and the most of stderr kept): 1 MiB.
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 20;

/// A hook that runs an external program.
#[derive(Debug, Clone)]
pub struct ScriptHook {
    name: String,
    hook_type: HookType,
    priority: HookPriority,
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
            name: name.into(),
            hook_type,
            priority: HookPriority::DEFAULT,
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
        self.priority = priority.into();
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

/// Kills the child's whole process group unless it was reaped.
struct GroupGuard {
    pgid: Option<i32>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) with a negative pid signals that process group;
            // it has no memory-safety preconditions.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

/// Reads at most `cap` bytes; says whether there was more.
async fn read_capped(mut reader: impl AsyncRead + Unpin, cap: usize) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut over = false;
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if buf.len() + n > cap {
                    buf.extend_from_slice(&chunk[..cap - buf.len()]);
                    over = true;
                    // Keep draining so the program is not blocked on a full pipe.
                } else if !over {
                    buf.extend_from_slice(&chunk[..n]);
                }
            }
        }
    }
    (buf, over)
}

async fn run(hook: ScriptHook, input: String) -> HookOutput {
    let name = &hook.name;
    let mut command = tokio::process::Command::new(&hook.program);
    command
        .args(&hook.args)
        .envs(hook.env.iter().map(|(k, v)| (k, v)))
        .env("RADIUM_HOOK_TYPE", hook.hook_type.as_str())
        .env("RADIUM_HOOK_NAME", name)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = &hook.cwd {
        command.current_dir(cwd);
    }
    let mut child = command.spawn().map_err(|e| {
        HookError::new(format!(
            "script hook `{name}`: cannot run `{}`: {e}",
            hook.program.display()
        ))
    })?;
    let mut guard = GroupGuard {
        pgid: child.id().and_then(|id| i32::try_from(id).ok()),
    };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A program that does not read its input closes the pipe early: fine.
            let _ = stdin.write_all(input.as_bytes()).await;
            let _ = stdin.shutdown().await;
        }
    };
    let cap = hook.max_output;
    let read_out = async move {
        match stdout {
            Some(s) => read_capped(s, cap).await,
            None => (Vec::new(), false),
        }
    };
    let read_err = async move {
        match stderr {
            Some(s) => read_capped(s, cap).await,
            None => (Vec::new(), false),
        }
    };
    let ((), (out, out_over), (err, _), status) =
        tokio::join!(write, read_out, read_err, child.wait());
    let status = status
        .map_err(|e| HookError::new(format!("script hook `{name}`: waiting for it failed: {e}")))?;
    // The leader exited; kill stragglers it left in its group.
    drop(
        guard
            .pgid
            .take()
            .map(|pgid| GroupGuard { pgid: Some(pgid) }),
    );
    let stderr_text = String::from_utf8_lossy(&err).trim().to_owned();
    if out_over {
        return Err(HookError::new(format!(
            "script hook `{name}` wrote more than {cap} bytes on stdout"
        )));
    }
    match status.code() {
        Some(0) => {
            let text = String::from_utf8_lossy(&out);
            let text = text.trim();
            if text.is_empty() {
                return Ok(HookResult::Continue);
            }
            let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
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
    fn name(&self) -> &str {
        &self.name
    }
    fn hook_type(&self) -> HookType {
        self.hook_type
    }
    fn priority(&self) -> HookPriority {
        self.priority
    }
    fn call(&self, context: &HookContext) -> HookCall {
        HookCall::pending(run(self.clone(), context.to_json_text().to_owned()))
    }
}
