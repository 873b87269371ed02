//! The base protocol's framing: `Content-Length: N`, a blank line, N bytes
//! of JSON. Lines that are not headers (a server that prints a banner on
//! stdout) are skipped, not taken for the start of a message.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// The largest message radium reads: 256 MiB (a workspace edit of a big
/// project).
pub const MAX_MESSAGE: usize = 256 << 20;

/// What one read gave.
#[derive(Debug)]
pub enum Frame {
    /// A message.
    Message(Value),
    /// A body that is not JSON, or a header that cannot be used (shown in part).
    Garbage(String),
    /// The stream ended.
    End,
}

fn shown(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned()
}

/// Reads the next frame from `reader`.
pub async fn read_frame<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<Frame> {
    let mut length: Option<usize> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.take(64 * 1024).read_until(b'\n', &mut line).await?;
        if n == 0 {
            return Ok(Frame::End);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if let Some(length) = length {
                if length > MAX_MESSAGE {
                    return Ok(Frame::Garbage(format!(
                        "a message of {length} bytes (the limit is {MAX_MESSAGE})"
                    )));
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).await?;
                return Ok(match serde_json::from_slice(&body) {
                    Ok(value) => Frame::Message(value),
                    Err(_) => Frame::Garbage(shown(&body)),
                });
            }
            continue;
        }
        // A header may follow stray text on the same line.
        let lower = text.to_ascii_lowercase();
        if let Some(at) = lower.find("content-length:") {
            let value = text[at + "content-length:".len()..].trim();
            length = value.parse().ok();
            if length.is_none() {
                return Ok(Frame::Garbage(format!("a bad header: {text}")));
            }
        }
        // Other headers (Content-Type) and stray lines are skipped.
    }
}

/// The bytes of `message`, framed.
pub fn frame(message: &Value) -> Vec<u8> {
    let body = serde_json::to_vec(message).unwrap_or_default();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stray_lines_are_skipped_and_messages_read() {
        let mut input = b"starting server v1\nhello Content-Length: 7\r\n\r\n{\"a\":1}".to_vec();
        input.extend(frame(&serde_json::json!({"b": 2})));
        input.extend(b"Content-Length: 3\r\nContent-Type: x\r\n\r\nnot");
        let mut reader = tokio::io::BufReader::new(&input[..]);
        let Frame::Message(first) = read_frame(&mut reader).await.expect("read") else {
            panic!("no message")
        };
        assert_eq!(first["a"], 1);
        let Frame::Message(second) = read_frame(&mut reader).await.expect("read") else {
            panic!("no message")
        };
        assert_eq!(second["b"], 2);
        assert!(
            matches!(read_frame(&mut reader).await.expect("read"), Frame::Garbage(g) if g == "not")
        );
        assert!(matches!(
            read_frame(&mut reader).await.expect("read"),
            Frame::End
        ));
    }
}
