//! The files of the conversation history: one JSON Lines file a
//! conversation in `$RADIUM_HOME/<project>/conversations/<id>.jsonl`, each
//! line one record with `kind` first:
//!
//! | `kind` | fields |
//! |---|---|
//! | `start` | `conversation`, `agent`, `acp_session` (the agent's own id), `workspace`, `time` |
//! | `resume` | `acp_session`, `how` (`resume`, `load`, `context`), `time` |
//! | `prompt` | `turn` (1, 2, ...), `text`, `time` |
//! | `event` | `event`: a turn's event (text and thought chunks joined; `turn_end` without its text) |
//! | `dropped` | `bytes`: the file reached its cap; later events but prompts and turn ends are not kept |
//!
//! Every record but a text chunk is written to the file when it comes, and
//! the text waiting is written before it and at the turn's end: a crash of
//! the process loses at most the last event. The records that start or end
//! something (`start`, `resume`, `prompt`, a `turn_end` or `error` event)
//! are also flushed to the disk (`fsync`), with all written before them, so
//! a power loss loses at most the events of the turn in progress. (An
//! `fsync` for every event cost a command's 4,000 output updates 6-8 s,
//! measured 2026-11-27.)

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::error::{Error, Result};

/// The most conversations kept per project: the least recently written
/// beyond it are deleted when a new one starts.
pub const MAX_CONVERSATIONS: usize = 200;

/// The most bytes one conversation's file grows to: past it, only prompts
/// and turn ends are still written (after one `dropped` record).
pub const MAX_CONVERSATION_FILE: u64 = 8 << 20;

/// The most bytes one record holds: a bigger event is kept as its `type`,
/// `id` and `record_dropped` (its size).
pub const MAX_RECORD: usize = 1 << 20;

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The folder of a project's conversations.
pub(crate) fn folder(state_dir: &Path) -> PathBuf {
    state_dir.join("conversations")
}

/// A new conversation id: the time in hex, then 4 hex digits that differ
/// between ids made in the same millisecond (ids sort by time).
fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed) ^ u64::from(std::process::id());
    format!("{:011x}{:04x}", now_ms(), n & 0xffff)
}

/// The file of conversation `id` in `folder`, or a clear error when `id`
/// cannot name one (empty, or not letters, digits, `-` and `_`).
pub(crate) fn file_of(folder: &Path, id: &str) -> Result<PathBuf> {
    let valid = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(Error::InvalidArgument(format!(
            "`{id}` is not a conversation id (ids are letters, digits, `-` and `_`; `history-list` gives them)"
        )));
    }
    Ok(folder.join(format!("{id}.jsonl")))
}

/// Takes the advisory lock (`flock`, exclusive) of conversation `id`'s
/// file, which the session that owns the conversation holds until it
/// closes: a second session resuming it (in this process or another) is
/// refused with [`Error::Busy`] naming the conversation, so two sessions
/// never append to one file. The lock goes with the returned file.
pub(crate) fn hold(folder: &Path, id: &str) -> Result<File> {
    let path = file_of(folder, id)?;
    let file = OpenOptions::new()
        .read(true)
        .open(&path)
        .map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    // A lock just released may still be held for a moment by a child
    // process being started elsewhere in this process (between its fork
    // and its exec it shares the open file): a few tries, at most
    // `HOLD_PATIENCE` in all, before the conversation is said to be busy.
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < HOLD_PATIENCE => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::Busy(format!(
                    "conversation `{id}` is open in another chat (of this or another editor or `rad chat`): close that one first, or start a new conversation"
                )))
            }
            Err(std::fs::TryLockError::Error(source)) => return Err(Error::Io { path, source }),
        }
    }
}

/// How long taking a conversation's lock waits for it (see [`hold`]).
const HOLD_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// One line: `{"kind": kind, ...body}` with `kind` first (a reader finds the
/// kind of a line without parsing it).
fn line(kind: &str, body: &Value) -> String {
    line_of(
        kind,
        body.as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v)),
    )
}

/// [`line`] of the body's fields, given one by one (an event is written as
/// `{"kind":"event","event":...}` without copying it into a body first).
fn line_of<'a>(kind: &str, fields: impl IntoIterator<Item = (&'a str, &'a Value)>) -> String {
    // Written in one buffer: a record of 512 KiB of text is not serialized
    // twice to put `kind` in front.
    // sonic-rs: its strings are escaped with SIMD (a streamed answer's
    // text is most of what is recorded), the same JSON as serde_json's.
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(b"{\"kind\":");
    // Writing JSON into a Vec cannot fail.
    let _ = sonic_rs::to_writer(&mut out, kind);
    for (key, value) in fields {
        out.push(b',');
        let _ = sonic_rs::to_writer(&mut out, key);
        out.push(b':');
        let _ = sonic_rs::to_writer(&mut out, value);
    }
    out.extend_from_slice(b"}\n");
    String::from_utf8(out).unwrap_or_default()
}

/// Writes one conversation's file.
pub struct Recorder {
    /// The conversation's id.
    pub id: String,
    path: PathBuf,
    file: File,
    bytes: u64,
    turns: u64,
    /// Text (or thought) chunks not written yet: their type and text.
    pending: Option<(String, String)>,
    full: bool,
}

impl Recorder {
    /// Starts a new conversation in `folder` (deleting the least recently
    /// written ones past [`MAX_CONVERSATIONS`]).
    pub fn create(folder: &Path, agent: &str, acp_session: &str, workspace: &Path) -> Result<Self> {
        std::fs::create_dir_all(folder).map_err(|source| Error::Io {
            path: folder.to_owned(),
            source,
        })?;
        prune(folder, MAX_CONVERSATIONS.saturating_sub(1));
        let id = new_id();
        let path = file_of(folder, &id)?;
        let mut recorder = Self::open(id.clone(), path, 0)?;
        recorder.write(
            "start",
            &json!({"conversation": id, "agent": agent, "acp_session": acp_session,
                    "workspace": workspace, "time": now_ms()}),
        )?;
        Ok(recorder)
    }

    /// Continues conversation `id` (which has `turns` prompts so far): a
    /// `resume` record says how the agent came back.
    pub fn resume(
        folder: &Path,
        id: &str,
        turns: u64,
        acp_session: &str,
        how: &str,
    ) -> Result<Self> {
        let path = file_of(folder, id)?;
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        let mut recorder = Self::open(id.to_owned(), path, bytes)?;
        recorder.turns = turns;
        recorder.write(
            "resume",
            &json!({"acp_session": acp_session, "how": how, "time": now_ms()}),
        )?;
        Ok(recorder)
    }

    /// Writes a `resume` record: the agent took up its session `acp_session`
    /// (`how`: `resume` or `load`).
    pub fn resumed(&mut self, acp_session: &str, how: &str) -> Result<()> {
        self.write(
            "resume",
            &json!({"acp_session": acp_session, "how": how, "time": now_ms()}),
        )
    }

    fn open(id: String, path: PathBuf, bytes: u64) -> Result<Self> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
        Ok(Recorder {
            id,
            path,
            file,
            bytes,
            turns: 0,
            pending: None,
            full: false,
        })
    }

    /// Appends one record (flushed to the disk when it starts or ends something).
    fn write(&mut self, kind: &str, body: &Value) -> Result<()> {
        self.write_line(kind, line(kind, body), body.get("event"), body)
    }

    /// Appends `event` as an `event` record.
    fn write_event(&mut self, event: &Value) -> Result<()> {
        let text = line_of("event", [("event", event)]);
        self.write_line("event", text, Some(event), event)
    }

    /// Appends `text`, the record of `kind` whose body is `body` (`event`
    /// the event it holds, if any), or a record saying it was too big.
    fn write_line(
        &mut self,
        kind: &str,
        mut text: String,
        event: Option<&Value>,
        body: &Value,
    ) -> Result<()> {
        if text.len() > MAX_RECORD {
            let event = event.unwrap_or(body);
            let small = json!({"event": {"type": event.get("type"), "id": event.get("id"),
                                         "record_dropped": text.len()}});
            text = line(kind, &small);
        }
        let essential = matches!(kind, "start" | "resume" | "prompt")
            || event
                .and_then(|e| e.get("type"))
                .is_some_and(|t| t == "turn_end" || t == "error");
        if self.bytes + text.len() as u64 > MAX_CONVERSATION_FILE && !essential {
            if !self.full {
                self.full = true;
                let note = line("dropped", &json!({"bytes": self.bytes}));
                self.append(&note, false)?;
            }
            return Ok(());
        }
        self.append(&text, essential)
    }

    /// Appends `text`; `sync`: and flushes the file to the disk.
    fn append(&mut self, text: &str, sync: bool) -> Result<()> {
        let io = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        self.file.write_all(text.as_bytes()).map_err(io)?;
        if sync {
            self.file.sync_data().map_err(io)?;
        }
        self.bytes += text.len() as u64;
        Ok(())
    }

    /// Records a prompt (a new turn).
    pub fn prompt(&mut self, text: &str) -> Result<()> {
        self.flush()?;
        self.turns += 1;
        let body = json!({"turn": self.turns, "text": text, "time": now_ms()});
        self.write("prompt", &body)
    }

    /// Records one event of a turn: text and thought chunks wait to be
    /// joined; a `turn_end` is kept without its text and code blocks (the
    /// text events hold them).
    pub fn event(&mut self, event: &Value) -> Result<()> {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "text" | "thought") {
            let text = event.get("text").and_then(Value::as_str).unwrap_or("");
            if let Some((k, pending)) = &mut self.pending {
                if k == kind && pending.len() + text.len() <= MAX_RECORD / 2 {
                    pending.push_str(text);
                    return Ok(());
                }
            }
            self.flush()?;
            self.pending = Some((kind.to_owned(), text.to_owned()));
            return Ok(());
        }
        self.flush()?;
        if kind == "turn_end" {
            // The answer is in the text events written before: the end is
            // written without it (and without copying it).
            if let Some(map) = event.as_object() {
                let end: serde_json::Map<String, Value> = map
                    .iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "text" | "code_blocks"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                return self.write("event", &json!({"event": end}));
            }
        }
        self.write_event(event)
    }

    /// Writes the text waiting.
    pub fn flush(&mut self) -> Result<()> {
        if let Some((kind, text)) = self.pending.take() {
            if !text.is_empty() {
                // The text moves into the record, not copied.
                let mut event = serde_json::Map::new();
                event.insert("type".into(), Value::String(kind));
                event.insert("text".into(), Value::String(text));
                let mut body = serde_json::Map::new();
                body.insert("event".into(), Value::Object(event));
                self.write("event", &Value::Object(body))?;
            }
        }
        Ok(())
    }
}

/// Deletes the least recently written conversations of `folder` past the
/// newest `keep`.
fn prune(folder: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut files: Vec<(SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| {
            let time = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH);
            (time, e.path())
        })
        .collect();
    if files.len() <= keep {
        return;
    }
    files.sort();
    let excess = files.len() - keep;
    for (_, path) in files.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_the_json_serde_json_writes() {
        let text = "line\nquote \" backslash \\ tab\t nul \u{0} bell \u{7} del \u{7f} \
                    é \u{2028} 🦀 </script> / end";
        let body = json!({"event": {"type": "text", "text": text,
                          "n": 42, "cost": 0.0123, "big": u64::MAX, "neg": -7,
                          "list": [null, true, false, "x"], "nested": {"b": 1, "a": [{}]}}});
        let written = line("event", &body);
        let mut want = serde_json::to_string(&json!({"kind": "event"})).expect("json");
        want.pop();
        want.push(',');
        want.push_str(&serde_json::to_string(&body).expect("json")[1..]);
        want.push('\n');
        assert_eq!(written, want);
    }
}
