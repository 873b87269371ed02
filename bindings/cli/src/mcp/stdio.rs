//! `rad mcp`'s standard input and output: every line a client sends gets an
//! answer. Lines are read here, bounded, before the MCP library sees them: a
//! line over [`MAX_LINE`] is skipped without being held (only its first and
//! last bytes are kept, to find its `id`), and a line that is not UTF-8, is
//! nested deeper than radium's JSON limit, or is not JSON is answered with a
//! JSON-RPC error carrying the request's `id` where it can be found (else
//! `null`, as JSON-RPC says). Good lines go on to the library; its answers
//! and these errors share one writer, a whole line at a time.

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _,
};
use tokio::sync::mpsc;

/// The longest line taken: 16 MiB.
pub(crate) const MAX_LINE: usize = 16 << 20;

/// How much of the start and the end of a line over the limit is kept to
/// find its `id`.
const KEEP: usize = 64 << 10;

/// JSON-RPC's codes: not JSON, and not a valid request.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// Starts the reader and writer on stdin/stdout; answers the ends the MCP
/// library reads from and writes to, and the writer's task (done when the
/// library's end and the reader are both closed).
pub(crate) fn start() -> (
    tokio::io::DuplexStream,
    tokio::io::DuplexStream,
    tokio::task::JoinHandle<()>,
) {
    let (to_library, library_reads) = tokio::io::duplex(1 << 20);
    let (library_writes, from_library) = tokio::io::duplex(1 << 20);
    let (errors, errors_rx) = mpsc::unbounded_channel();
    tokio::spawn(read(tokio::io::stdin(), to_library, errors));
    let writer = tokio::spawn(write(from_library, errors_rx, tokio::io::stdout()));
    (library_reads, library_writes, writer)
}

/// A line being read.
#[derive(Default)]
struct Line {
    bytes: Vec<u8>,
    /// Over the limit: its length so far and its last bytes (`bytes` keeps
    /// its first [`KEEP`]).
    over: Option<(usize, Vec<u8>)>,
}

impl Line {
    fn push(&mut self, part: &[u8]) {
        match &mut self.over {
            Some((len, tail)) => {
                *len += part.len();
                tail.extend_from_slice(part);
                if tail.len() > 2 * KEEP {
                    tail.drain(..tail.len() - KEEP);
                }
            }
            None if self.bytes.len() + part.len() > MAX_LINE => {
                let len = self.bytes.len() + part.len();
                let mut tail = self.bytes.split_off(self.bytes.len().min(KEEP));
                tail.extend_from_slice(part);
                if tail.len() > KEEP {
                    tail.drain(..tail.len() - KEEP);
                }
                self.bytes.shrink_to_fit();
                self.over = Some((len, tail));
            }
            None => self.bytes.extend_from_slice(part),
        }
    }
}

async fn read(
    mut input: impl AsyncRead + Unpin,
    mut to_library: impl AsyncWrite + Unpin,
    errors: mpsc::UnboundedSender<Value>,
) {
    let mut chunk = vec![0u8; 64 << 10];
    let mut line = Line::default();
    loop {
        let n = match input.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut rest = &chunk[..n];
        while let Some(end) = memchr::memchr(b'\n', rest) {
            line.push(&rest[..end]);
            rest = &rest[end + 1..];
            let done = std::mem::take(&mut line);
            match check(done) {
                Ok(Some(good)) => {
                    if to_library.write_all(&good).await.is_err() {
                        return;
                    }
                }
                Ok(None) => {}
                Err(answer) => {
                    let _ = errors.send(answer);
                }
            }
        }
        line.push(rest);
    }
    // A last line without its newline is still a message.
    if let Ok(Some(good)) = check(line) {
        let _ = to_library.write_all(&good).await;
    }
}

/// A line for the library (with its newline), nothing for a blank line, or
/// the error to answer.
fn check(line: Line) -> Result<Option<Vec<u8>>, Value> {
    let Line { mut bytes, over } = line;
    if let Some((len, tail)) = over {
        let id = guess_id(&bytes, &tail);
        return Err(error(
            &id,
            INVALID_REQUEST,
            &format!("a message of {len} bytes is over the limit of {MAX_LINE} bytes"),
        ));
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if let Err(e) = std::str::from_utf8(&bytes) {
        let id = guess_id(&bytes, &[]);
        let at = e.valid_up_to();
        return Err(error(
            &id,
            PARSE_ERROR,
            &format!("the message is not UTF-8 (an invalid byte at {at})"),
        ));
    }
    if let Err(e) = radium_core::check_json_depth(&bytes) {
        return Err(error(&guess_id(&bytes, &[]), PARSE_ERROR, &e));
    }
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
        return Err(error(
            &guess_id(&bytes, &[]),
            PARSE_ERROR,
            &format!("the message is not JSON: {e}"),
        ));
    }
    bytes.push(b'\n');
    Ok(Some(bytes))
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `id` of a message that cannot be parsed whole: the first `"id": X`
/// before its `"params"` (clients write `jsonrpc`, `id`, `method` first), or
/// a last `"id": X}` at its very end; else `null`.
fn guess_id(start: &[u8], end: &[u8]) -> Value {
    let head = &start[..start.len().min(KEEP)];
    let before_params = memchr::memmem::find(head, b"\"params\"").unwrap_or(head.len());
    if let Some(at) = memchr::memmem::find(&head[..before_params], b"\"id\"") {
        if let Some((id, _)) = id_value(&head[at + 4..]) {
            return id;
        }
    }
    let tail = if end.is_empty() {
        &start[start.len().saturating_sub(KEEP)..]
    } else {
        end
    };
    if let Some(at) = memchr::memmem::rfind(tail, b"\"id\"") {
        if let Some((id, rest)) = id_value(&tail[at + 4..]) {
            if rest
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .eq([b'}'])
            {
                return id;
            }
        }
    }
    Value::Null
}

/// `: X` where X is a number or a short string, and what follows it.
fn id_value(after_key: &[u8]) -> Option<(Value, &[u8])> {
    let text = after_key
        .trim_ascii_start()
        .strip_prefix(b":")?
        .trim_ascii_start();
    let len = if text.first() == Some(&b'"') {
        1 + memchr::memchr(b'"', &text[1..text.len().min(257)])? + 1
    } else {
        text.iter()
            .take(32)
            .take_while(|b| b.is_ascii_digit() || **b == b'-')
            .count()
    };
    let id: Value = serde_json::from_slice(&text[..len]).ok()?;
    (id.is_number() || id.is_string()).then_some((id, &text[len..]))
}

async fn write(
    from_library: impl AsyncRead + Unpin,
    mut errors: mpsc::UnboundedReceiver<Value>,
    mut out: impl AsyncWrite + Unpin,
) {
    let mut lines = tokio::io::BufReader::new(from_library);
    let mut line = Vec::new();
    let mut library_open = true;
    loop {
        tokio::select! {
            read = lines.read_until(b'\n', &mut line), if library_open => {
                if matches!(read, Ok(0) | Err(_)) {
                    library_open = false;
                } else if out.write_all(&line).await.is_err() {
                    return;
                }
                line.clear();
            }
            error = errors.recv() => match error {
                Some(error) => {
                    let text = format!("{error}\n");
                    if out.write_all(text.as_bytes()).await.is_err() {
                        return;
                    }
                }
                None if !library_open => break,
                None => {
                    // The reader is done: the library's last answers remain.
                    while let Ok(n) = lines.read_until(b'\n', &mut line).await {
                        if n == 0 || out.write_all(&line).await.is_err() {
                            break;
                        }
                        line.clear();
                    }
                    break;
                }
            },
        }
        let _ = out.flush().await;
    }
    let _ = out.flush().await;
}
