//! Running an external program for the engine (script hooks, agents): no
//! shell, input on stdin, capped output, its own process group that is
//! killed when the run is dropped (time-out, cancellation) or has finished.

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// What to run.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProcessSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub max_output: usize,
}

/// What it did.
pub(crate) struct ProcessOutput {
    /// The exit status, `None` when killed by a signal.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    /// True when stdout went past the cap (what was read is truncated).
    pub stdout_over: bool,
    pub stderr: String,
}

/// The file `name` (a program name without a slash) names on `PATH`.
pub(crate) fn find_on_path(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Blocks SIGPIPE on the calling thread. A write to a pipe whose reader has
/// gone then fails with `EPIPE` instead of raising the signal, whose default
/// action would kill the whole host process. The signal a write raises is
/// directed at the writing thread, so the engine blocks it on its own threads
/// (every child process is written to from them) and never touches the
/// host's threads or its signal dispositions.
pub(crate) fn block_sigpipe() {
    // SAFETY: the sigset is initialised by sigemptyset before use, and
    // pthread_sigmask only changes the calling thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&raw mut set);
        libc::sigaddset(&raw mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &raw const set, std::ptr::null_mut());
    }
}

/// Kills the child's whole process group unless disarmed.
/// The process groups of the programs running now, killed when the host
/// process exits (an editor that quits while a chain waits on a script):
/// the library's `atexit` handler, installed with the first program.
static LIVE_GROUPS: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

/// Kills every live group: runs at `exit` (or when the library is unloaded).
extern "C" fn kill_live_groups() {
    // At exit another thread may hold the lock forever: then do nothing.
    if let Ok(groups) = LIVE_GROUPS.try_lock() {
        for &pgid in groups.iter() {
            // SAFETY: kill(2) on a process group has no memory-safety preconditions.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

/// Records a started group (and installs the exit handler once).
fn track_group(pgid: i32) {
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: registers a function with C linkage that lives as long as
        // the library (glibc runs it at exit, or when the library is unloaded).
        unsafe {
            libc::atexit(kill_live_groups);
        }
    });
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(pgid);
}

/// Forgets a group whose run has ended.
fn untrack_group(pgid: i32) {
    let mut groups = LIVE_GROUPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(at) = groups.iter().position(|&g| g == pgid) {
        groups.swap_remove(at);
    }
}

/// A started program: its whole process group is killed when the run ends
/// (finished, timed out or cancelled), and a leader that was never waited
/// for is waited for in the background, so no zombie is left behind.
struct Running {
    child: Option<tokio::process::Child>,
    pgid: Option<i32>,
}

impl Running {
    fn child(&mut self) -> &mut tokio::process::Child {
        self.child
            .as_mut()
            .expect("the child is taken only on drop")
    }

    /// The leader has been waited for (reaped): nothing left to reap.
    fn reaped(&mut self) {
        self.child = None;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) on a process group has no memory-safety preconditions.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
            untrack_group(pgid);
        }
        // Dropped mid-run (a time limit, a cancel): reap the killed leader on
        // the runtime instead of leaving it to tokio's best-effort reaping.
        if let (Some(mut child), Ok(runtime)) =
            (self.child.take(), tokio::runtime::Handle::try_current())
        {
            runtime.spawn(async move {
                let _ = child.wait().await;
            });
        }
    }
}

/// How long the output of a program that has exited is still read: a
/// process it left behind may hold the pipes open.
const DRAIN: std::time::Duration = std::time::Duration::from_millis(200);

/// Reads at most `cap` bytes into `buf`; sets `over` when there was more
/// (and drains the rest).
async fn read_capped(
    reader: Option<impl AsyncRead + Unpin>,
    cap: usize,
    buf: &mut Vec<u8>,
    over: &mut bool,
) {
    let Some(mut reader) = reader else { return };
    let mut chunk = vec![0u8; 8192];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(_) if *over => {}
            Ok(n) => {
                if buf.len() + n > cap {
                    buf.extend_from_slice(&chunk[..cap - buf.len()]);
                    *over = true;
                } else {
                    buf.extend_from_slice(&chunk[..n]);
                }
            }
        }
    }
}

/// Runs the program to its end. `Err` only when it cannot be started.
/// Must run inside the engine's runtime (it uses tokio's process reactor).
pub(crate) async fn run_process(
    spec: ProcessSpec,
    input: Vec<u8>,
) -> Result<ProcessOutput, String> {
    let (stdin, stdout, stderr, mut running) = start(&spec)?;
    let stdin = Some(stdin);
    let (stdout, stderr) = (Some(stdout), Some(stderr));
    let cap = spec.max_output;
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A program that does not read its input closes the pipe early: fine.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
    };
    let (mut out, mut out_over, mut err, mut err_over) = (Vec::new(), false, Vec::new(), false);
    let status = {
        let reads = async {
            tokio::join!(
                read_capped(stdout, cap, &mut out, &mut out_over),
                read_capped(stderr, cap, &mut err, &mut err_over)
            );
        };
        let mut reads = std::pin::pin!(reads);
        let mut write = std::pin::pin!(write);
        let (mut read_all, mut input_sent) = (false, false);
        // The run ends when the program exits, not when its pipes close: a
        // process it started may keep them open.
        let status = loop {
            tokio::select! {
                () = &mut reads, if !read_all => read_all = true,
                () = &mut write, if !input_sent => input_sent = true,
                status = running.child().wait() => break status,
            }
        };
        if !read_all {
            let _ = tokio::time::timeout(DRAIN, &mut reads).await;
        }
        status
    };
    // The leader has exited and was reaped; dropping `running` now kills
    // anything it left behind.
    running.reaped();
    drop(running);
    let (stdout, stdout_over, stderr) = (out, out_over, err);
    let status =
        status.map_err(|e| format!("waiting for `{}` failed: {e}", spec.program.display()))?;
    Ok(ProcessOutput {
        code: status.code(),
        stdout,
        stdout_over,
        stderr: String::from_utf8_lossy(&stderr).trim().to_owned(),
    })
}

/// A long-lived program (an ACP agent) with its pipes. Dropping the guard
/// kills its whole process group and reaps it.
pub(crate) struct Spawned {
    pub stdin: tokio::process::ChildStdin,
    pub stdout: tokio::process::ChildStdout,
    pub stderr: tokio::process::ChildStderr,
    pub guard: ProcessGuard,
}

/// Owns a started program's process group (see [`Spawned`]).
pub(crate) struct ProcessGuard(Running);

impl ProcessGuard {
    /// How the program ended, if it has.
    pub(crate) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.0.child().try_wait().ok()?
    }

    /// The program's process id (also its process group's).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.0.pgid.and_then(|p| u32::try_from(p).ok())
    }

    /// Asks the whole process group to end (`SIGTERM`): programs that keep
    /// state on disk save it; the guard still kills what is left on drop.
    pub(crate) fn terminate(&self) {
        if let Some(pgid) = self.0.pgid {
            // SAFETY: kill(2) on a process group has no memory-safety preconditions.
            unsafe {
                libc::kill(-pgid, libc::SIGTERM);
            }
        }
    }

    /// Waits for the program to exit (what it left behind is killed when
    /// the guard drops).
    pub(crate) async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        self.0.child().wait().await
    }
}

/// Starts `spec` in its own process group with piped stdio. Must run inside
/// the engine's runtime.
pub(crate) fn spawn_process(spec: &ProcessSpec) -> Result<Spawned, String> {
    let (stdin, stdout, stderr, running) = start(spec)?;
    Ok(Spawned {
        stdin,
        stdout,
        stderr,
        guard: ProcessGuard(running),
    })
}

type Pipes = (
    tokio::process::ChildStdin,
    tokio::process::ChildStdout,
    tokio::process::ChildStderr,
    Running,
);

/// Starts `spec`: no shell, its own process group (tracked for the exit
/// handler), piped stdio.
fn start(spec: &ProcessSpec) -> Result<Pipes, String> {
    let mut command = tokio::process::Command::new(&spec.program);
    command
        .args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run `{}`: {e}", spec.program.display()))?;
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let running = Running {
        pgid: child.id().and_then(|id| i32::try_from(id).ok()),
        child: Some(child),
    };
    if let Some(pgid) = running.pgid {
        track_group(pgid);
    }
    match pipes {
        (Some(stdin), Some(stdout), Some(stderr)) => Ok((stdin, stdout, stderr, running)),
        _ => Err(format!("`{}` has no pipes", spec.program.display())),
    }
}
