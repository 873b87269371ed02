//! The daemon's frames: a 4-byte big-endian length, then that many bytes.

use std::io::{Read, Write};

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
