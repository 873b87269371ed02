//! The text `clipboard-send` puts on the clipboard: ready to paste into a
//! chat, with the code in a fenced block whose info string carries the
//! language and the path (```` ```rust:src/main.rs ````), the form
//! `clipboard-receive` and `extract` read back. A range also carries its
//! lines (```` ```rust:src/main.rs lines=10-20 ````), so that a block
//! answering it replaces those lines only.

use std::fmt::Write as _;

/// What to send: a file's text (or part of it) with where it comes from.
#[derive(Debug, Clone, Default)]
pub struct Snippet<'a> {
    /// The path shown and annotated (relative to the workspace), if any.
    pub path: Option<&'a str>,
    /// The language of the fence (`rust`), or "".
    pub language: &'a str,
    /// The whole text the lines come from.
    pub text: &'a str,
    /// The 1-based inclusive line range sent; None: the whole text.
    pub lines: Option<(usize, usize)>,
    /// How many lines around the range are shown as context.
    pub context_lines: usize,
    /// What to ask, written first.
    pub prompt: Option<&'a str>,
    /// Whether `text` is the file at `path` on disk, so that a range sent
    /// carries its lines (`lines=`) for the answer to replace; false for a
    /// text given with `path` as a label (an editor's unsaved buffer).
    pub from_disk: bool,
}

/// A fence longer than any run of backticks in `body` (at least three).
fn fence_for(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

fn block(out: &mut String, info: &str, body: &str) {
    let fence = fence_for(body);
    let _ = write!(out, "{fence}{info}\n{body}");
    if !body.is_empty() && !body.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "{fence}");
}

/// The lines `start..=end` (1-based, clamped) of `text`, each with its newline.
fn line_slice(text: &str, start: usize, end: usize) -> String {
    text.split_inclusive('\n')
        .skip(start.saturating_sub(1))
        .take(end.saturating_sub(start.saturating_sub(1)))
        .collect()
}

/// The text to paste into a chat (see the module's documentation).
pub fn format(snippet: &Snippet<'_>) -> String {
    let mut out = String::new();
    if let Some(prompt) = snippet.prompt.map(str::trim).filter(|p| !p.is_empty()) {
        let _ = write!(out, "{prompt}\n\n");
    }
    let total = snippet.text.lines().count();
    let (start, end) = snippet.lines.unwrap_or((1, total));
    let whole = snippet.lines.is_none() || (start <= 1 && end >= total);
    match (snippet.path, whole) {
        (Some(path), true) => {
            let _ = write!(out, "`{path}`:\n\n");
        }
        (Some(path), false) if start == end => {
            let _ = write!(out, "`{path}`, line {start}:\n\n");
        }
        (Some(path), false) => {
            let _ = write!(out, "`{path}`, lines {start}-{end}:\n\n");
        }
        (None, _) => {}
    }
    let mut info = match snippet.path {
        Some(path) if snippet.language.is_empty() => format!("text:{path}"),
        Some(path) => format!("{}:{path}", snippet.language),
        None => snippet.language.to_owned(),
    };
    let range = snippet.path.is_some() && snippet.from_disk && !whole;
    if range && start == end {
        let _ = write!(info, " lines={start}");
    } else if range {
        let _ = write!(info, " lines={start}-{end}");
    }
    let body = if whole {
        snippet.text.to_owned()
    } else {
        line_slice(snippet.text, start, end)
    };
    block(&mut out, &info, &body);
    if range {
        let _ = write!(
            out,
            "\nAnswer with the new text of these lines in one code block that keeps the info string `{info}`.\n"
        );
    }
    if !whole && snippet.context_lines > 0 {
        let above_from = start.saturating_sub(snippet.context_lines).max(1);
        let below_to = (end + snippet.context_lines).min(total);
        let above = line_slice(snippet.text, above_from, start - 1);
        let below = line_slice(snippet.text, end + 1, below_to);
        if !above.is_empty() || !below.is_empty() {
            let mut around = above;
            let _ = writeln!(around, "⋮ (lines {start}-{end}, sent above)");
            around.push_str(&below);
            let _ = write!(
                out,
                "\nAround it (lines {above_from}-{below_to}, for context only):\n\n"
            );
            block(&mut out, snippet.language, &around);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "a\nb\nc\nd\ne\nf\n";

    #[test]
    fn a_range_is_annotated_with_language_and_path_and_its_surroundings() {
        let out = format(&Snippet {
            path: Some("src/x.rs"),
            language: "rust",
            text: TEXT,
            lines: Some((3, 4)),
            context_lines: 1,
            prompt: Some("Explain"),
            from_disk: true,
        });
        assert_eq!(
            out,
            "Explain\n\n`src/x.rs`, lines 3-4:\n\n```rust:src/x.rs lines=3-4\nc\nd\n```\n\nAnswer with the new text of these lines in one code block that keeps the info string `rust:src/x.rs lines=3-4`.\n\nAround it (lines 2-5, for context only):\n\n```rust\nb\n⋮ (lines 3-4, sent above)\ne\n```\n"
        );
    }

    #[test]
    fn a_whole_file_has_no_context_and_a_fence_longer_than_its_backticks() {
        let out = format(&Snippet {
            path: Some("README.md"),
            language: "markdown",
            text: "```sh\nls\n```",
            context_lines: 3,
            ..Snippet::default()
        });
        assert_eq!(
            out,
            "`README.md`:\n\n````markdown:README.md\n```sh\nls\n```\n````\n"
        );
    }
}
