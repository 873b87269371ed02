//! Positions in a text: LSP's (line, character) in the negotiated encoding
//! (UTF-8, UTF-16 or UTF-32 code units) to and from byte offsets. A line's
//! end is `\n`; a `\r` before it belongs to the line, as servers count it.

/// How a server counts the characters of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units: LSP's default.
    #[default]
    Utf16,
    /// Unicode scalar values.
    Utf32,
}

impl Encoding {
    /// The encoding a server named in `positionEncoding` (UTF-16 when it
    /// named none, or one radium did not offer).
    pub fn from_name(name: Option<&str>) -> Self {
        match name {
            Some("utf-8") => Encoding::Utf8,
            Some("utf-32") => Encoding::Utf32,
            _ => Encoding::Utf16,
        }
    }

    /// Its name in the protocol.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
            Encoding::Utf32 => "utf-32",
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        }
    }
}

/// The byte offsets where each line of `text` starts.
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// The text of line `line` (0-based) without its `\n`.
pub fn line_text<'a>(text: &'a str, starts: &[usize], line: usize) -> &'a str {
    let Some(&start) = starts.get(line) else {
        return "";
    };
    let end = starts.get(line + 1).map_or(text.len(), |&next| next - 1);
    &text[start..end]
}

/// The byte offset of (`line`, `character`) in `text`, or `None` when the
/// line is past the end. A character past the line's end is the line's end
/// (as the protocol says); one inside a character is that character's start.
pub fn to_offset(
    text: &str,
    starts: &[usize],
    line: u32,
    character: u32,
    encoding: Encoding,
) -> Option<usize> {
    let line = usize::try_from(line).ok()?;
    let start = *starts.get(line)?;
    let body = line_text(text, starts, line);
    let target = usize::try_from(character).unwrap_or(usize::MAX);
    let mut units = 0;
    for (i, c) in body.char_indices() {
        let next = units + encoding.units(c);
        if next > target {
            return Some(start + i);
        }
        units = next;
    }
    Some(start + body.len())
}

/// The (line, character) of byte `offset` in `text`.
pub fn to_position(text: &str, starts: &[usize], offset: usize, encoding: Encoding) -> (u32, u32) {
    let line = starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let start = starts.get(line).copied().unwrap_or(0);
    let end = offset.min(text.len());
    let character: usize = text[start..end].chars().map(|c| encoding.units(c)).sum();
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

/// The 1-based column of byte `offset` counted in characters, the way
/// radium shows columns to people.
pub fn display_column(text: &str, starts: &[usize], offset: usize) -> usize {
    to_position(text, starts, offset, Encoding::Utf32).1 as usize + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_the_encodings_units_on_a_non_ascii_line() {
        let text = "let é = \"😀\"; x\nnext";
        let starts = line_starts(text);
        let x = text.find(" x").expect("x") + 1;
        // é is 2 bytes / 1 unit; 😀 is 4 bytes / 2 UTF-16 units / 1 scalar.
        assert_eq!(to_position(text, &starts, x, Encoding::Utf8), (0, 17));
        assert_eq!(to_position(text, &starts, x, Encoding::Utf16), (0, 14));
        assert_eq!(to_position(text, &starts, x, Encoding::Utf32), (0, 13));
        for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let (line, character) = to_position(text, &starts, x, encoding);
            assert_eq!(to_offset(text, &starts, line, character, encoding), Some(x));
        }
        assert_eq!(
            to_offset(text, &starts, 1, 99, Encoding::Utf16),
            Some(text.len())
        );
        assert_eq!(to_offset(text, &starts, 5, 0, Encoding::Utf16), None);
        assert_eq!(display_column(text, &starts, x), 14);
    }
}
