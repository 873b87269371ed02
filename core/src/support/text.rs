//! Cutting text at a character boundary (what `str::floor_char_boundary`
//! does, which the minimum Rust version does not have yet).

/// The largest index at most `at` (and at most `s.len()`) that is a
/// character boundary of `s`.
pub(crate) fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest index at least `at` (and at most `s.len()`) that is a
/// character boundary of `s`.
pub(crate) fn ceil_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}
