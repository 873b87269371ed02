//! The daemon: the engine's requests over a Unix socket
//! (`$RADIUM_HOME/daemon.sock`, only the owner can connect). Each frame is a
//! 4-byte big-endian length, then that many bytes of JSON; the answer is
//! framed the same way. Frames over [`MAX_FRAME`] are refused. The daemon
//! exits after [`DEFAULT_IDLE`] without requests, or on `shutdown`.
//! `session-subscribe` turns a connection into a stream of a session's
//! events until the session ends ([`SUBSCRIBE`]).

use std::io::{Read, Write};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::protocol::engine::Engine;
use crate::protocol::envelope::{Request, Response};
use crate::support::json::check_json_depth;
use crate::support::lock::lock_file;

/// The largest frame accepted: 64 MiB.
pub const MAX_FRAME: u32 = 64 << 20;

/// The default idle time before the daemon exits: 900 seconds.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(900);

/// The socket path in `radium_home`.
pub fn socket_path(radium_home: &Path) -> PathBuf {
    radium_home.join("daemon.sock")
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// Writes one frame.
pub fn write_frame(stream: &mut impl Write, payload: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(payload.len()).map_err(|_| std::io::Error::other("frame too large"))?;
    // One write: the peer gets the whole frame at once.
    let mut frame = Vec::with_capacity(payload.len() + 4);
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(payload);
    stream.write_all(&frame)?;
    stream.flush()
}

/// What reading a frame gave.
pub enum Frame {
    /// A whole frame.
    Data(Vec<u8>),
    /// The peer closed the connection between frames.
    Closed,
    /// A length over the limit (the connection cannot be resynchronised).
    TooLarge(u32),
}

/// Reads one frame.
pub fn read_frame(stream: &mut impl Read, limit: u32) -> std::io::Result<Frame> {
    let mut len = [0u8; 4];
    match stream.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(Frame::Closed),
        Err(e) => return Err(e),
    }
    let len = u32::from_be_bytes(len);
    if len > limit {
        return Ok(Frame::TooLarge(len));
    }
    let mut payload = vec![0u8; len as usize];
    stream.read_exact(&mut payload)?;
    Ok(Frame::Data(payload))
}

/// What a frame asks of the connection.
enum Reply {
    /// Answer it (and stop the daemon after, for `shutdown`).
    Answer(Response, bool),
    /// Stream session `id`'s events ([`SUBSCRIBE`]).
    Subscribe(String),
}

fn answer(engine: &Engine, payload: &[u8]) -> Reply {
    let parsed = check_json_depth(payload)
        .and_then(|()| serde_json::from_slice::<Value>(payload).map_err(|e| e.to_string()));
    let value: Value = match parsed {
        Ok(v) => v,
        Err(e) => {
            return Reply::Answer(
                Response::failure(&Error::InvalidRequest(format!(
                    "the frame is not JSON: {e}"
                ))),
                false,
            )
        }
    };
    match value.get("command").and_then(Value::as_str) {
        Some("shutdown") => Reply::Answer(
            Response::success(Value::String("shutting down".into())),
            true,
        ),
        Some(SUBSCRIBE) => Reply::Subscribe(
            value
                .pointer("/args/session")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        ),
        _ => Reply::Answer(engine.handle_json(value), false),
    }
}

/// The daemon's own command that streams a session's events.
pub const SUBSCRIBE: &str = "session-subscribe";

/// `session-subscribe {session}`: from then on the connection carries the
/// session's events, one frame a batch (`{"ok": true, "data": {"session",
/// "events": [...]}}`) as they arrive, until the session ends (`"ended":
/// true` and no events); then it takes requests again. Requests such as
/// `session-permission` go on another connection meanwhile. Answers whether
/// the connection goes on.
fn stream_session(engine: &Engine, stream: &mut UnixStream, id: &str) -> bool {
    let send = |stream: &mut UnixStream, r: &Response| {
        write_frame(stream, r.to_json().to_string().as_bytes()).is_ok()
    };
    let entry = match engine.session(id) {
        Ok(entry) => entry,
        Err(e) => {
            let e = if id.is_empty() {
                Error::InvalidArgument(format!("`{SUBSCRIBE}`: missing argument `session`"))
            } else {
                e
            };
            return send(stream, &Response::failure(&e));
        }
    };
    let mut rx = entry.queue.subscribe();
    drop(entry);
    while let Some(first) = rx.blocking_recv() {
        let mut events = vec![first];
        while let Ok(event) = rx.try_recv() {
            events.push(event);
        }
        let batch = serde_json::json!({"session": id, "events": events});
        if !send(stream, &Response::success(batch)) {
            // The client went away: the events go back to the poll queue.
            return false;
        }
    }
    let end = serde_json::json!({"session": id, "events": [], "ended": true});
    send(stream, &Response::success(end))
}

/// One open connection, counted while it lives: the daemon does not exit
/// for idleness while any is open.
struct Counted(Arc<std::sync::atomic::AtomicUsize>);

impl Counted {
    fn new(count: Arc<std::sync::atomic::AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Counted(count)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The most connections served at once; one more is answered with an error
/// and closed.
pub const MAX_CONNECTIONS: usize = 64;

/// The longest a connection may stay silent between requests (at most the
/// idle time): a client that never sends keeps neither a thread nor the
/// daemon alive.
pub const MAX_SILENCE: Duration = Duration::from_secs(60);

fn serve_connection(
    engine: &Engine,
    mut stream: UnixStream,
    last: &Mutex<Instant>,
    stop: &AtomicBool,
) {
    loop {
        // A truncated frame or an I/O error drops the connection.
        let Ok(frame) = read_frame(&mut stream, MAX_FRAME) else {
            return;
        };
        *last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
        let (response, shutdown) = match frame {
            Frame::Closed => return,
            Frame::TooLarge(len) => {
                let r = Response::failure(&Error::InvalidRequest(format!(
                    "frame of {len} bytes is over the limit of {MAX_FRAME} bytes"
                )));
                let _ = write_frame(&mut stream, r.to_json().to_string().as_bytes());
                return;
            }
            // A panic while answering is that request's internal error; the
            // connection and the daemon's bookkeeping go on.
            Frame::Data(payload) => {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    answer(engine, &payload)
                })) {
                    Ok(Reply::Answer(response, shutdown)) => (response, shutdown),
                    Ok(Reply::Subscribe(id)) => {
                        if stream_session(engine, &mut stream, &id) {
                            continue;
                        }
                        return;
                    }
                    Err(_) => {
                        let error =
                            Error::Runtime("the engine failed while answering (a panic)".into());
                        (Response::failure(&error), false)
                    }
                }
            }
        };
        if write_frame(&mut stream, response.to_json().to_string().as_bytes()).is_err() {
            return;
        }
        if shutdown {
            stop.store(true, Ordering::SeqCst);
            return;
        }
    }
}

/// Serves `engine` on the socket in `radium_home` until idle for `idle` or
/// asked to shut down. Refuses to start when another daemon answers there.
pub fn serve(engine: &Engine, radium_home: &Path, idle: Duration) -> Result<()> {
    std::fs::create_dir_all(radium_home).map_err(io_err(radium_home))?;
    let _ = std::fs::set_permissions(radium_home, std::fs::Permissions::from_mode(0o700));
    let path = socket_path(radium_home);
    // One daemon per home: the lock is held while it serves and released
    // when its process ends, however it ends.
    let Some(_lock) = lock_file(&radium_home.join("daemon.lock"), false)? else {
        return Err(Error::InvalidArgument(format!(
            "a daemon is already running on {}",
            path.display()
        )));
    };
    if UnixStream::connect(&path).is_ok() {
        return Err(Error::InvalidArgument(format!(
            "a daemon is already running on {}",
            path.display()
        )));
    }
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).map_err(io_err(&path))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(io_err(&path))?;
    let inode = std::fs::symlink_metadata(&path)
        .map_err(io_err(&path))?
        .ino();
    let last = Arc::new(Mutex::new(Instant::now()));
    let stop = Arc::new(AtomicBool::new(false));
    let active = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // The watchdog ends the accept loop when idle, asked to stop, or when the
    // socket file is gone, by setting `stop` and shutting the listener down
    // to wake the blocking accept.
    let listening = listener.as_raw_fd();
    let watchdog = {
        let (last, stop, active, path) = (
            Arc::clone(&last),
            Arc::clone(&stop),
            Arc::clone(&active),
            path.clone(),
        );
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(50));
            let idle_for = last
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .elapsed();
            // A socket file removed or replaced (its RADIUM_HOME deleted)
            // means no client can reach this daemon any more.
            let gone = std::fs::symlink_metadata(&path).map_or(true, |m| m.ino() != inode);
            if stop.load(Ordering::SeqCst)
                || gone
                || (idle_for >= idle && active.load(Ordering::SeqCst) == 0)
            {
                stop.store(true, Ordering::SeqCst);
                // Wakes the blocked accept (Linux answers it with EINVAL).
                // SAFETY: shutdown(2) on the listener's descriptor, which
                // lives until `serve` returns, after this thread is done.
                unsafe {
                    libc::shutdown(listening, libc::SHUT_RDWR);
                }
                return;
            }
        })
    };
    let silence = idle.min(MAX_SILENCE).max(Duration::from_millis(100));
    let mut backoff = Duration::from_millis(10);
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        // Out of descriptors (or another passing failure): wait before the
        // next accept instead of spinning.
        let Ok(mut stream) = stream else {
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(Duration::from_secs(1));
            continue;
        };
        backoff = Duration::from_millis(10);

        if active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            let busy = Response::failure(&Error::Busy(format!(
                "the daemon is serving {MAX_CONNECTIONS} connections already; try again"
            )));
            let _ = write_frame(&mut stream, busy.to_json().to_string().as_bytes());
            continue;
        }
        let _ = stream.set_read_timeout(Some(silence));
        let (engine, last, stop, active) = (
            engine.clone(),
            Arc::clone(&last),
            Arc::clone(&stop),
            Arc::clone(&active),
        );
        let counted = Counted::new(active);
        std::thread::spawn(move || {
            // The count goes down when the thread ends, even by a panic.
            let _counted = counted;
            serve_connection(&engine, stream, &last, &stop);
        });
    }
    let _ = watchdog.join();
    // Only our own socket: another daemon may have taken the path since.
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.ino() == inode) {
        let _ = std::fs::remove_file(&path);
    }
    Ok(())
}

/// Sends one request to the daemon in `radium_home` and returns its answer.
/// A caller that retries must retry only a failed [`connect`]: see [`exchange`].
pub fn send(radium_home: &Path, request: &Request) -> Result<Response> {
    let stream = connect(radium_home)?;
    exchange(stream, radium_home, request)
}

/// Connects to the daemon in `radium_home`. Nothing was sent when this
/// fails, so trying again (after starting a daemon) is safe.
pub fn connect(radium_home: &Path) -> Result<UnixStream> {
    let path = socket_path(radium_home);
    UnixStream::connect(&path).map_err(io_err(&path))
}

/// Sends `request` on a connected `stream` and reads the answer. Once the
/// request is written the daemon may have carried it out, so a failure then
/// ([`Error::AnswerLost`]) must not be retried: an edit would be applied
/// twice. [`Error::Busy`] (the daemon refused the connection, or closed it
/// before the whole request was written, so it never read it) is safe to
/// retry.
pub fn exchange(mut stream: UnixStream, radium_home: &Path, request: &Request) -> Result<Response> {
    let path = socket_path(radium_home);
    let payload = serde_json::to_vec(request).unwrap_or_default();
    // A daemon reads a request only once its whole frame has arrived.
    write_frame(&mut stream, &payload).map_err(|e| {
        Error::Busy(format!(
            "the daemon on {} closed the connection before the request was written ({e})",
            path.display()
        ))
    })?;
    let lost = |why: String| {
        Error::AnswerLost(format!(
            "the daemon on {} took the `{}` request but {why}; it may have been carried out (check with `rad view`, undo with the last tag); it was not sent again",
            path.display(),
            request.command
        ))
    };
    match read_frame(&mut stream, MAX_FRAME) {
        Ok(Frame::Data(bytes)) => {
            let response: Response = check_json_depth(&bytes)
                .and_then(|()| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
                .map_err(|e| lost(format!("its answer is not a response ({e})")))?;
            match response.code.as_deref() {
                Some("busy") => Err(Error::Busy(response.error.unwrap_or_default())),
                _ => Ok(response),
            }
        }
        Ok(Frame::Closed | Frame::TooLarge(_)) => {
            Err(lost("closed the connection without answering".into()))
        }
        Err(e) => Err(lost(format!("the answer could not be read ({e})"))),
    }
}
