//! The daemon: the engine's requests over a Unix socket
//! (`$RADIUM_HOME/daemon.sock`, only the owner can connect). Each frame is a
//! 4-byte big-endian length, then that many bytes of JSON; the answer is
//! framed the same way. Frames over [`MAX_FRAME`] are refused. The daemon
//! exits after [`DEFAULT_IDLE`] without requests, or on `shutdown`.
//! `session-subscribe` turns a connection into a stream of a session's
//! events until the session ends ([`SUBSCRIBE`]). Each project is answered
//! by an engine of its own (`projects.rs`).

use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::protocol::engine::Engine;
pub use frame::{read_frame, write_frame, Frame};
use projects::Projects;

mod frame;
mod projects;
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

/// What a frame asks of the connection.
enum Reply {
    /// Answer it (and stop the daemon after, for `shutdown`).
    Answer(Response, bool),
    /// Stream session `id`'s events ([`SUBSCRIBE`]) from the engine that holds it.
    Subscribe(Engine, String),
}

fn answer(projects: &Projects, payload: &[u8]) -> Reply {
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
    let engine = projects.route(&value);
    match value.get("command").and_then(Value::as_str) {
        Some("shutdown") => Reply::Answer(
            Response::success(Value::String("shutting down".into())),
            true,
        ),
        Some(SUBSCRIBE) => Reply::Subscribe(
            engine,
            value
                .pointer("/args/session")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        ),
        // A request is cancelled in whichever engine runs it.
        Some("cancel") if value.pointer("/args/id").is_some_and(Value::is_string) => {
            let response = engine.handle_json(value.clone());
            let id = value.pointer("/args/id").and_then(Value::as_str);
            let others: usize = projects
                .engines()
                .iter()
                .filter(|e| !Arc::ptr_eq(&e.inflight, &engine.inflight))
                .map(|e| e.cancel(id.unwrap_or_default()))
                .sum();
            Reply::Answer(add_cancelled(response, others), false)
        }
        _ => Reply::Answer(engine.handle_json(value), false),
    }
}

/// `cancel`'s answer counting the requests other engines cancelled too.
fn add_cancelled(mut response: Response, others: usize) -> Response {
    if let Some(Value::Object(data)) = response.data.as_mut() {
        if let Some(n) = data.get("cancelled").and_then(Value::as_u64) {
            data.insert("cancelled".into(), Value::from(n + others as u64));
        }
    }
    response
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
    // Text the client has not taken yet waits joined (a slow client holds
    // about its text, not an event per chunk).
    let mut rx = entry.queue.subscribe_joined();
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
struct Counted(Arc<AtomicUsize>);

impl Counted {
    fn new(count: Arc<AtomicUsize>) -> Self {
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

/// What the connections share with the accept loop.
struct Shared {
    projects: Projects,
    /// When the last frame arrived.
    last: Mutex<Instant>,
    /// Set to stop: by `shutdown`, idleness, or the socket file's loss.
    stop: AtomicBool,
    /// Connections open.
    active: Arc<AtomicUsize>,
    /// Requests being answered: a stopping daemon waits for them.
    working: Arc<AtomicUsize>,
    /// The socket file and its inode.
    socket: (PathBuf, u64),
}

impl Shared {
    /// Whether the socket file is still the one this daemon made.
    fn ours(&self) -> bool {
        std::fs::symlink_metadata(&self.socket.0).is_ok_and(|m| m.ino() == self.socket.1)
    }

    /// Removes the socket file if it is still ours (another daemon may have
    /// taken the path since): from then on clients start a new daemon.
    fn release_socket(&self) {
        if self.ours() {
            let _ = std::fs::remove_file(&self.socket.0);
        }
    }
}

fn serve_connection(shared: &Shared, mut stream: UnixStream) {
    loop {
        // A truncated frame or an I/O error drops the connection.
        let Ok(frame) = read_frame(&mut stream, MAX_FRAME) else {
            return;
        };
        let working = Counted::new(Arc::clone(&shared.working));
        *shared
            .last
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
                    answer(&shared.projects, &payload)
                })) {
                    Ok(Reply::Answer(response, shutdown)) => (response, shutdown),
                    Ok(Reply::Subscribe(engine, id)) => {
                        drop(working);
                        if stream_session(&engine, &mut stream, &id) {
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
        if shutdown {
            // Gone before the answer: once `rad shutdown` returns, a new
            // client or daemon finds no socket of this one.
            shared.stop.store(true, Ordering::SeqCst);
            shared.release_socket();
        }
        if write_frame(&mut stream, response.to_json().to_string().as_bytes()).is_err() {
            return;
        }
        // A stopping daemon takes no further request on an open connection.
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
    }
}

/// How long a project's engine is kept unused (at most the daemon's idle
/// time): its language servers stop with it.
pub const PROJECT_IDLE: Duration = Duration::from_secs(300);

/// How long a new daemon waits for a stopping one to let go of the home.
const TAKE_OVER: Duration = Duration::from_secs(5);

/// How long a stopping daemon waits for the requests it is answering.
const FINISH: Duration = Duration::from_secs(10);

/// Answers `busy` to every connection waiting to be accepted, so its
/// client tries again (with a new daemon) instead of losing its answer.
fn turn_away(listener: &UnixListener) {
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    while let Ok((mut stream, _)) = listener.accept() {
        let _ = stream.set_nonblocking(false);
        let busy = Response::failure(&Error::Busy(
            "the daemon is stopping; a new one answers the next try".into(),
        ));
        let _ = write_frame(&mut stream, busy.to_json().to_string().as_bytes());
    }
}

/// Waits up to `timeout` for the listener to have a connection waiting.
fn wait_readable(listener: &UnixListener, timeout: Duration) -> bool {
    let mut fds = libc::pollfd {
        fd: listener.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: one pollfd that lives across the call, for a descriptor the
    // listener owns.
    let n = unsafe { libc::poll(&raw mut fds, 1, ms) };
    n > 0 && fds.revents & libc::POLLIN != 0
}

/// Serves `engine` on the socket in `radium_home` until idle for `idle` or
/// asked to shut down. Refuses to start when another daemon answers there.
/// A request with a `cwd` is answered by an engine made for that project
/// with `engine`'s settings (see `projects.rs`); one without, by `engine`.
///
/// Stopping never drops a request a client sent: the socket file is
/// removed first (a client then starts a new daemon), the connections
/// already waiting are answered `busy` (tried again, nothing was carried
/// out), and the requests being answered are finished.
pub fn serve(engine: &Engine, radium_home: &Path, idle: Duration) -> Result<()> {
    std::fs::create_dir_all(radium_home).map_err(io_err(radium_home))?;
    let _ = std::fs::set_permissions(radium_home, std::fs::Permissions::from_mode(0o700));
    let path = socket_path(radium_home);
    // One daemon per home: the lock is held while it serves and released
    // when its process ends, however it ends.
    // A daemon that is stopping holds the lock until its process ends,
    // shortly after its socket is gone: that one is waited for (up to
    // [`TAKE_OVER`]); one that answers on the socket is running.
    let asked = Instant::now();
    let _lock = loop {
        if let Some(lock) = lock_file(&radium_home.join("daemon.lock"), false)? {
            break lock;
        }
        if asked.elapsed() >= TAKE_OVER || UnixStream::connect(&path).is_ok() {
            return Err(Error::InvalidArgument(format!(
                "a daemon is already running on {}",
                path.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
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
    let shared = Arc::new(Shared {
        projects: Projects::new(engine.clone(), idle.min(PROJECT_IDLE)),
        last: Mutex::new(Instant::now()),
        stop: AtomicBool::new(false),
        active: Arc::default(),
        working: Arc::default(),
        socket: (path.clone(), inode),
    });
    let silence = idle.min(MAX_SILENCE).max(Duration::from_millis(100));
    let mut backoff = Duration::from_millis(10);
    let mut swept = Instant::now();
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        if !wait_readable(&listener, Duration::from_millis(50)) {
            let idle_for = shared
                .last
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .elapsed();
            // A socket file removed or replaced (its RADIUM_HOME deleted)
            // means no client can reach this daemon any more.
            if shared.stop.load(Ordering::SeqCst)
                || !shared.ours()
                || (idle_for >= idle && shared.active.load(Ordering::SeqCst) == 0)
            {
                break;
            }
            if swept.elapsed() >= Duration::from_secs(1) {
                shared.projects.sweep();
                swept = Instant::now();
            }
            continue;
        }
        // Out of descriptors (or another passing failure): wait before the
        // next accept instead of spinning.
        let Ok((mut stream, _)) = listener.accept() else {
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(Duration::from_secs(1));
            continue;
        };
        backoff = Duration::from_millis(10);

        if shared.active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            let busy = Response::failure(&Error::Busy(format!(
                "the daemon is serving {MAX_CONNECTIONS} connections already; try again"
            )));
            let _ = write_frame(&mut stream, busy.to_json().to_string().as_bytes());
            continue;
        }
        let _ = stream.set_read_timeout(Some(silence));
        let counted = Counted::new(Arc::clone(&shared.active));
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            // The count goes down when the thread ends, even by a panic.
            let _counted = counted;
            serve_connection(&shared, stream);
        });
    }
    shared.stop.store(true, Ordering::SeqCst);
    shared.release_socket();
    // A client that found the file before it went may still be connecting.
    turn_away(&listener);
    std::thread::sleep(Duration::from_millis(50));
    turn_away(&listener);
    let finishing = Instant::now();
    while shared.working.load(Ordering::SeqCst) > 0 && finishing.elapsed() < FINISH {
        std::thread::sleep(Duration::from_millis(10));
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
