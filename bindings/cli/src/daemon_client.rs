//! The edit commands of `rad` and the daemon they go through: started on
//! first use, tried again only while nothing was sent (or it was busy).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use radium_core::Request;
use serde_json::Value;

pub(crate) fn radium_home() -> PathBuf {
    radium_core::agent::default_radium_home()
}

/// Sends a request to the daemon, starting it on first use. A failed
/// connection, or a daemon that did not take the request (`busy`: it serves
/// as many connections as it may), is tried again for up to 10 s: once the
/// request is sent, a lost answer is reported, never sent twice (the daemon
/// may have applied the edit).
fn through_daemon(request: &Request) -> Result<radium_core::Response, String> {
    let home = radium_home();
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(10);
    loop {
        let stream = match radium_core::daemon::connect(&home) {
            Ok(stream) => stream,
            Err(_) => start_daemon(&home)?,
        };
        match radium_core::daemon::exchange(stream, &home, request) {
            Err(radium_core::Error::Busy(_))
                if started.elapsed() < std::time::Duration::from_secs(10) =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(200));
            }
            other => return other.map_err(|e| e.to_string()),
        }
    }
}

/// Starts a daemon for `home` and connects to it. A daemon that exits at
/// once found the lock held: another daemon is starting, or one that was
/// killed has not let go yet (a process killed in the middle of an fsync
/// ends when the fsync does). It is started again until one answers, for
/// up to 10 s.
fn start_daemon(home: &Path) -> Result<std::os::unix::net::UnixStream, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find rad itself: {e}"))?;
    // RADIUM_DAEMON_IDLE (seconds) shortens the idle time, for tests and scripts.
    let idle = std::env::var("RADIUM_DAEMON_IDLE").unwrap_or_else(|_| "900".into());
    let spawn = || {
        std::process::Command::new(&exe)
            .args(["daemon", "--idle", &idle])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the daemon: {e}"))
    };
    let mut daemon = spawn()?;
    let started = std::time::Instant::now();
    let mut spawned = started;
    loop {
        match radium_core::daemon::connect(home) {
            Ok(stream) => return Ok(stream),
            Err(e) if started.elapsed() > std::time::Duration::from_secs(10) => {
                return Err(format!("the daemon did not start: {e}"))
            }
            Err(_) => {
                let waited = spawned.elapsed() >= std::time::Duration::from_millis(200);
                if waited && matches!(daemon.try_wait(), Ok(Some(_))) {
                    daemon = spawn()?;
                    spawned = std::time::Instant::now();
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }
}

/// Sends `command` for `workspace` through the daemon and prints its
/// warnings on stderr; a failure is printed as `rad: ...` and is exit 1.
pub(crate) fn send(
    command: &str,
    args: Value,
    tag: Option<String>,
    workspace: &Path,
) -> Result<radium_core::Response, ExitCode> {
    let mut request = Request::new(command, args);
    request.tag = tag;
    request.cwd = Some(workspace.to_string_lossy().into_owned());
    let response = through_daemon(&request).map_err(|e| {
        let _ = writeln!(std::io::stderr(), "rad: {e}");
        ExitCode::from(1)
    })?;
    let mut err = std::io::stderr().lock();
    for warning in &response.warnings {
        let _ = writeln!(err, "warning: {warning}");
    }
    if !response.ok {
        let _ = writeln!(err, "rad: {}", response.error.unwrap_or_default());
        return Err(ExitCode::from(1));
    }
    Ok(response)
}

/// Edit commands: through the daemon, printing the result and `[tag: ...]`.
pub(crate) fn run_edit(
    command: &str,
    args: Value,
    tag: Option<String>,
    workspace: &Path,
) -> ExitCode {
    let response = match send(command, args, tag, workspace) {
        Ok(response) => response,
        Err(code) => return code,
    };
    let mut out = std::io::stdout().lock();
    let data = response.data.unwrap_or(Value::Null);
    let text = if let Some(text) = data.get("text").and_then(Value::as_str) {
        text.to_owned()
    } else if let Some(entries) = data.get("entries").and_then(Value::as_array) {
        entries
            .iter()
            .filter_map(Value::as_str)
            .fold(String::new(), |mut acc, e| {
                acc.push_str(e);
                acc.push('\n');
                acc
            })
    } else if let Some(s) = data.as_str() {
        format!("{s}\n")
    } else {
        format!("{data}\n")
    };
    let _ = write!(out, "{text}");
    if let Some(tag) = response.tag {
        let _ = writeln!(out, "[tag: {tag}]");
    }
    ExitCode::SUCCESS
}
