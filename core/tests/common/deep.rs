//! Deeply nested text and small stacks, for the tests of inputs that once
//! overflowed a parser's stack.

/// `depth` copies of `open`, then `inner`, then `depth` copies of `close`.
pub fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
    format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
}

/// Runs `f` on a thread with a stack of `kib` KiB (a C host's worker may
/// have 256 KiB) and returns what it returns.
pub fn on_stack<T: Send + 'static>(kib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(kib << 10)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}
