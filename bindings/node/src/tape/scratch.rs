//! Buffers kept between tapes: a round trip makes several tapes of a few
//! KiB (a hook context, each answer, each request read from JS), and
//! growing a new `String` and `Vec` for each cost an allocation and a copy
//! per doubling. A tape takes the spare buffers when it starts and gives
//! them back when it is sent; a tape made while another is in use (a hook
//! calling back into the engine) starts with empty ones. Buffers that grew
//! past `KEEP_BYTES` are dropped rather than kept, so a one-off large value
//! does not stay in memory.

use std::cell::RefCell;

/// Buffers at most this large (in bytes) are kept for the next tape.
const KEEP_BYTES: usize = 1 << 20;

#[derive(Default)]
struct Spare {
    text: String,
    ops: Vec<f64>,
    bytes: Vec<u8>,
}

thread_local! {
    static SPARE: RefCell<Spare> = RefCell::new(Spare::default());
}

/// An empty text buffer (the spare one when there is one).
pub(super) fn text() -> String {
    SPARE.with_borrow_mut(|s| std::mem::take(&mut s.text))
}

/// An empty operations buffer (the spare one when there is one).
pub(super) fn ops() -> Vec<f64> {
    SPARE.with_borrow_mut(|s| std::mem::take(&mut s.ops))
}

/// An empty byte buffer (the spare one when there is one).
pub(super) fn bytes() -> Vec<u8> {
    SPARE.with_borrow_mut(|s| std::mem::take(&mut s.bytes))
}

/// Keeps `text` for the next tape (emptied), unless it is large or the
/// spare is already there.
pub(super) fn give_text(mut text: String) {
    if text.capacity() <= KEEP_BYTES {
        text.clear();
        SPARE.with_borrow_mut(|s| {
            if text.capacity() > s.text.capacity() {
                s.text = text;
            }
        });
    }
}

/// Keeps `ops` for the next tape (emptied), as `give_text`.
pub(super) fn give_ops(mut ops: Vec<f64>) {
    if ops.capacity() * std::mem::size_of::<f64>() <= KEEP_BYTES {
        ops.clear();
        SPARE.with_borrow_mut(|s| {
            if ops.capacity() > s.ops.capacity() {
                s.ops = ops;
            }
        });
    }
}

/// Keeps `bytes` for the next read (emptied), as `give_text`.
pub(super) fn give_bytes(mut bytes: Vec<u8>) {
    if bytes.capacity() <= KEEP_BYTES {
        bytes.clear();
        SPARE.with_borrow_mut(|s| {
            if bytes.capacity() > s.bytes.capacity() {
                s.bytes = bytes;
            }
        });
    }
}
