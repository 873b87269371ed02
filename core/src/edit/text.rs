//! Text helpers of the edit tools, each linear in the text and at memory
//! speed on large files: splicing a change in, the common prefix and suffix
//! of two texts (compared in blocks), and the line numbers of many matches.

/// `head`, `middle` and `tail` joined, in one allocation of the exact size.
pub(crate) fn splice(head: &str, middle: &str, tail: &str) -> String {
    let mut out = String::with_capacity(head.len() + middle.len() + tail.len());
    out.push_str(head);
    out.push_str(middle);
    out.push_str(tail);
    out
}

/// The block size of the prefix and suffix comparisons: slices of this
/// size compare as one `memcmp`.
const BLOCK: usize = 4096;

/// The length of the longest common prefix of `a` and `b`, in bytes, on a
/// character boundary of both.
pub(crate) fn common_prefix(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len().min(b.len());
    let mut n = 0;
    while n + BLOCK <= len && a[n..n + BLOCK] == b[n..n + BLOCK] {
        n += BLOCK;
    }
    n += a[n..len]
        .iter()
        .zip(&b[n..len])
        .take_while(|(x, y)| x == y)
        .count();
    // A UTF-8 continuation byte is never a boundary; both texts share the
    // bytes before `n`, so a boundary of one is a boundary of the other.
    while n > 0 && (is_continuation(a, n) || is_continuation(b, n)) {
        n -= 1;
    }
    n
}

/// The length of the longest common suffix of `a` and `b`, in bytes, on a
/// character boundary of both.
pub(crate) fn common_suffix(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut n = 0;
    while n + BLOCK <= len && a[ea - n - BLOCK..ea - n] == b[eb - n - BLOCK..eb - n] {
        n += BLOCK;
    }
    n += a[..ea - n]
        .iter()
        .rev()
        .zip(b[..eb - n].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while n > 0 && (is_continuation(a, ea - n) || is_continuation(b, eb - n)) {
        n -= 1;
    }
    n
}

/// Whether byte `i` of `text` continues a character (is not a boundary).
fn is_continuation(text: &[u8], i: usize) -> bool {
    text.get(i).is_some_and(|b| b & 0xC0 == 0x80)
}

/// How many lines `text` has, as [`str::lines`] counts them (a last line
/// without a newline counts), at memory speed.
pub(crate) fn line_count(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// How many line numbers an error lists before "and N more".
pub(crate) const LISTED_LINES: usize = 10;

/// The 1-based line of each byte offset in `at` (ascending), counting the
/// newlines between one and the next once: linear in the text however many
/// offsets there are.
pub(crate) fn lines_at(text: &str, at: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut line = 1;
    let mut from = 0;
    at.into_iter()
        .map(|i| {
            line += memchr::memchr_iter(b'\n', &text.as_bytes()[from..i]).count();
            from = i;
            line
        })
        .collect()
}

/// `lines` as an error lists them: the first [`LISTED_LINES`], then how
/// many more (`3, 7, 9, ... and 99990 more`).
pub(crate) fn list_lines(lines: &[usize], total: usize) -> String {
    let mut listed = lines
        .iter()
        .take(LISTED_LINES)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if total > LISTED_LINES {
        use std::fmt::Write as _;
        let _ = write!(listed, " and {} more", total - LISTED_LINES);
    }
    listed
}
