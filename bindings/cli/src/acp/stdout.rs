//! The writer of `rad acp`'s stdout. When stdout is a pipe or a socket
//! (what editors give an agent), it is written without blocking by a task
//! of the runtime that relays the agent's messages: a message passes from
//! the agent's reader to the editor on one thread, with no other thread to
//! wake. Else (a file, a terminal) a thread of its own writes it. Either
//! way the messages waiting are written together, with one write when they
//! fit [`BATCH`], and a message's share of the editor's room is given back
//! once it is in that batch (at most about twice [`BATCH`]) or written.
//! Its blocking mode is put back at the end.

use std::io::{ErrorKind, Write as _};
use std::os::fd::{AsFd as _, OwnedFd};
use std::os::unix::fs::FileTypeExt as _;
use std::os::unix::net::UnixStream;
use std::time::Instant;

use serde_json::Value;
use tokio::io::AsyncWriteExt as _;
use tokio::sync::mpsc;

use super::timing;
use super::wire::Out;

/// Up to this many bytes of waiting messages go out in one write.
const BATCH: usize = 64 << 10;

/// stdout, non-blocking.
enum Sink {
    Pipe(tokio::net::unix::pipe::Sender),
    /// A socket is watched only while it is full: watched always, each read
    /// of the editor's would wake radium for nothing (its room grew).
    Socket(UnixStream),
}

impl Sink {
    /// stdout as a pipe or a socket (a duplicate of it, non-blocking);
    /// `None`: neither, or it cannot be (the thread writes then).
    fn open() -> Option<Self> {
        let fd: OwnedFd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
        let kind = std::fs::File::from(fd.try_clone().ok()?)
            .metadata()
            .ok()?
            .file_type();
        if kind.is_fifo() {
            tokio::net::unix::pipe::Sender::from_owned_fd(fd)
                .ok()
                .map(Sink::Pipe)
        } else if kind.is_socket() {
            let socket = UnixStream::from(fd);
            socket.set_nonblocking(true).ok()?;
            Some(Sink::Socket(socket))
        } else {
            None
        }
    }

    /// Writes all of `bytes`, waiting while stdout is full.
    async fn write_all(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        let socket = match self {
            Sink::Pipe(pipe) => return pipe.write_all(bytes).await,
            Sink::Socket(socket) => &*socket,
        };
        // While it is full, a duplicate of it is watched (and written).
        let mut watched: Option<tokio::net::UnixStream> = None;
        while !bytes.is_empty() {
            let written = match &watched {
                Some(w) => match w.writable().await {
                    Ok(()) => w.try_write(bytes),
                    Err(e) => Err(e),
                },
                None => (&*socket).write(bytes),
            };
            match written {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if watched.is_none() {
                        let dup = socket.try_clone()?;
                        watched = Some(tokio::net::UnixStream::from_std(dup)?);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Puts stdout back in blocking mode (its mode is shared with whoever
    /// else holds it).
    fn restore(self) {
        match self {
            Sink::Pipe(pipe) => drop(pipe.into_blocking_fd()),
            Sink::Socket(socket) => {
                let _ = socket.set_nonblocking(false);
            }
        }
    }
}

/// Starts the writer of `rx` on the current runtime; it ends at
/// [`Out::Close`] (once what came before it is written) or when stdout
/// fails.
pub fn start(rx: mpsc::UnboundedReceiver<Out>) -> tokio::task::JoinHandle<()> {
    match Sink::open() {
        Some(sink) => tokio::spawn(write_async(sink, rx)),
        None => tokio::task::spawn_blocking(move || write_blocking(rx)),
    }
}

/// Adds `message` to `batch` (an agent's line's read time to `stamps`,
/// when timed); answers whether it was [`Out::Close`].
fn add(batch: &mut Vec<u8>, stamps: &mut Vec<Instant>, message: Out) -> bool {
    match message {
        Out::Close => return true,
        Out::Message(message) => {
            if serde_json::to_writer(&mut *batch, &message).is_ok() {
                batch.push(b'\n');
            }
        }
        Out::Text(text) => {
            batch.extend_from_slice(text.as_bytes());
            batch.push(b'\n');
        }
        // Its room is given back: the batch holds it now.
        Out::Line(line, _room, read_at) => {
            batch.extend_from_slice(&line);
            if timing::on() {
                stamps.push(read_at);
            }
        }
    }
    false
}

/// The writer on the runtime (see the module's doc).
async fn write_async(mut sink: Sink, mut rx: mpsc::UnboundedReceiver<Out>) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut stamps = Vec::new();
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        let mut closed = false;
        while let Some(message) = next.take() {
            match message {
                // A long line is written from where it is, not copied.
                Out::Line(line, room, read_at) if line.len() >= BATCH => {
                    if !flush(&mut sink, &mut batch, &mut stamps).await
                        || sink.write_all(&line).await.is_err()
                    {
                        return sink.restore();
                    }
                    drop(room);
                    timing::written(&[read_at]);
                }
                message => closed = add(&mut batch, &mut stamps, message),
            }
            if closed || batch.len() >= BATCH {
                break;
            }
            next = rx.try_recv().ok();
        }
        if !flush(&mut sink, &mut batch, &mut stamps).await || closed {
            break;
        }
    }
    sink.restore();
}

/// Writes `batch` out and empties it (its lines' read times, `stamps`,
/// counted as written); answers whether stdout took it.
async fn flush(sink: &mut Sink, batch: &mut Vec<u8>, stamps: &mut Vec<Instant>) -> bool {
    if batch.is_empty() {
        return true;
    }
    let ok = sink.write_all(batch).await.is_ok();
    timing::written(stamps);
    stamps.clear();
    batch.clear();
    if batch.capacity() > 4 * BATCH {
        *batch = Vec::with_capacity(BATCH);
    }
    ok
}

/// The writer on a thread of its own (stdout neither a pipe nor a socket).
fn write_blocking(mut rx: mpsc::UnboundedReceiver<Out>) {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(BATCH, stdout.lock());
    let mut stamps = Vec::new();
    'write: while let Some(mut message) = rx.blocking_recv() {
        loop {
            let ok = match message {
                Out::Close => {
                    let _ = out.flush();
                    break 'write;
                }
                Out::Message(message) => write_value(&mut out, &message),
                Out::Text(text) => writeln!(out, "{text}").is_ok(),
                Out::Line(line, _room, read_at) => {
                    if timing::on() {
                        stamps.push(read_at);
                    }
                    out.write_all(&line).is_ok()
                }
            };
            if !ok {
                break 'write;
            }
            match rx.try_recv() {
                Ok(next) => message = next,
                Err(_) => break,
            }
        }
        if out.flush().is_err() {
            break;
        }
        timing::written(&stamps);
        stamps.clear();
    }
}

/// Writes `message` and a line end.
fn write_value(out: &mut impl std::io::Write, message: &Value) -> bool {
    serde_json::to_writer(&mut *out, message).is_ok() && out.write_all(b"\n").is_ok()
}
