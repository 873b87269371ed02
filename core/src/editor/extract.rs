//! Code blocks in an agent's answer, found with a real CommonMark parser.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One fenced code block of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeBlock {
    /// The first word of the info string (`rust` for ```` ```rust:src/main.rs ````), or "".
    pub language: String,
    /// The block's text, exactly as it should land in a file.
    pub content: String,
    /// The block's position among the answer's blocks, from 0.
    pub index: usize,
    /// The file the agent said the block is for, when it said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// True for a last fence that was never closed (a streamed answer cut short).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
    /// The 1-based inclusive lines of the file the block stands for, when
    /// its info string says so (```` ```rust:src/main.rs lines=10-20 ````,
    /// as `clipboard-send` writes a range); None: the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<(usize, usize)>,
}

/// The structured form of an answer that the `code-apply` hook produces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractedAnswer {
    /// The answer as the agent wrote it.
    pub original_output: String,
    /// Its fenced code blocks, in order.
    pub code_blocks: Vec<CodeBlock>,
    /// How many there are.
    pub block_count: usize,
}

impl CodeBlock {
    /// The JSON form, moving the texts instead of copying them.
    pub fn into_json(self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("language".into(), Value::String(self.language));
        map.insert("content".into(), Value::String(self.content));
        map.insert("index".into(), Value::from(self.index));
        if let Some(path) = self.file_path {
            map.insert("file_path".into(), Value::String(path));
        }
        if self.incomplete {
            map.insert("incomplete".into(), Value::Bool(true));
        }
        if let Some((start, end)) = self.range {
            map.insert("range".into(), serde_json::json!([start, end]));
        }
        Value::Object(map)
    }
}

impl ExtractedAnswer {
    /// The JSON form, moving the texts instead of copying them.
    pub fn into_json(self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert(
            "original_output".into(),
            Value::String(self.original_output),
        );
        map.insert(
            "code_blocks".into(),
            Value::Array(
                self.code_blocks
                    .into_iter()
                    .map(CodeBlock::into_json)
                    .collect(),
            ),
        );
        map.insert("block_count".into(), Value::from(self.block_count));
        Value::Object(map)
    }

    /// Extracts the code blocks of `answer`.
    pub fn from_answer(answer: &str) -> Self {
        let code_blocks = extract_code_blocks(answer);
        ExtractedAnswer {
            original_output: answer.to_owned(),
            block_count: code_blocks.len(),
            code_blocks,
        }
    }
}

/// The fence that opens the line starting at `start` (after any container
/// prefix): its character, its length, and the raw info string.
fn opening_fence(source: &str, start: usize) -> Option<(char, usize, &str)> {
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |i| start + i);
    let line = &source[start..line_end];
    let trimmed = line.trim_start_matches([' ', '\t']);
    let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == fence_char).count();
    (len >= 3).then(|| {
        let info = trimmed[len..].trim_matches([' ', '\t', '\r']);
        (fence_char, len, info)
    })
}

/// Whether the block spanning `range` ends with a closing fence.
fn is_closed(source: &str, range: &std::ops::Range<usize>, fence: char, len: usize) -> bool {
    let text = source[range.clone()].trim_end_matches(['\n', '\r']);
    let Some(last_line) = text.rsplit('\n').next() else {
        return false;
    };
    if !text.contains('\n') {
        return false; // only the opening line
    }
    // Strip container markers (`>` of block quotes) and indentation.
    let body = last_line.trim_start_matches([' ', '\t', '>']);
    let count = body.chars().take_while(|c| *c == fence).count();
    count >= len && body[count * fence.len_utf8()..].trim().is_empty()
}

/// A file path written in the info string: `rust:src/main.rs`,
/// `rust path=src/main.rs`, `title="src/main.rs"`, `file=...`.
fn path_from_info(info: &str) -> Option<String> {
    let first = info.split_whitespace().next().unwrap_or("");
    if let Some((_, path)) = first.split_once(':') {
        if looks_like_path(path) {
            return Some(path.to_owned());
        }
    }
    for key in ["path=", "file=", "title=", "filename="] {
        if let Some(at) = info.find(key) {
            let rest = &info[at + key.len()..];
            let value = if let Some(quoted) = rest.strip_prefix('"') {
                quoted.split('"').next().unwrap_or("")
            } else if let Some(quoted) = rest.strip_prefix('\'') {
                quoted.split('\'').next().unwrap_or("")
            } else {
                rest.split_whitespace().next().unwrap_or("")
            };
            if looks_like_path(value) {
                return Some(value.to_owned());
            }
        }
    }
    None
}

/// The `lines=START-END` (or `lines=N`) word of an info string: 1-based,
/// START <= END; anything else is no range.
fn range_from_info(info: &str) -> Option<(usize, usize)> {
    let word = info
        .split_whitespace()
        .skip(1)
        .find_map(|w| w.strip_prefix("lines="))?;
    let number = |s: &str| s.parse::<usize>().ok().filter(|n| *n >= 1);
    let (start, end) = match word.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => (number(word)?, number(word)?),
    };
    (start <= end).then_some((start, end))
}

fn looks_like_path(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 4096
        && !text.contains(char::is_whitespace)
        && !text.contains(['`', '*', '<', '>', '|', '"'])
        && (text.contains('/')
            || text.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty() && !ext.is_empty() && ext.chars().all(char::is_alphanumeric)
            }))
}

/// A `File: path` comment on the block's first line.
fn path_from_first_line(line: &str) -> Option<String> {
    let line = line.trim();
    let inner = if let Some(rest) = line.strip_prefix("<!--") {
        rest.strip_suffix("-->")?
    } else if let Some(rest) = line.strip_prefix("/*") {
        rest.strip_suffix("*/")?
    } else {
        ["//", "#", "--", ";"]
            .iter()
            .find_map(|marker| line.strip_prefix(marker))?
    };
    let inner = inner.trim();
    let path = inner
        .strip_prefix("File:")
        .or_else(|| inner.strip_prefix("file:"))
        .or_else(|| inner.strip_prefix("Filename:"))?
        .trim();
    looks_like_path(path).then(|| path.to_owned())
}

/// A path alone on the line just before the fence (one blank line between
/// is allowed): `src/main.rs`, `` `src/main.rs` ``, `**src/main.rs**`,
/// optionally followed by `:`.
fn path_from_line_before(source: &str, fence_start: usize) -> Option<String> {
    let line_start = source[..fence_start].rfind('\n')?;
    let mut before = &source[..line_start];
    let mut prev_start = before.rfind('\n').map_or(0, |i| i + 1);
    if before[prev_start..].trim().is_empty() && prev_start > 0 {
        before = &source[..prev_start - 1];
        prev_start = before.rfind('\n').map_or(0, |i| i + 1);
    }
    let mut text = before[prev_start..].trim();
    text = text.trim_start_matches(['>', ' ']).trim();
    text = text.strip_suffix(':').unwrap_or(text).trim();
    for (open, close) in [("**", "**"), ("`", "`"), ("__", "__"), ("*", "*")] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            text = inner.trim();
            break;
        }
    }
    let text = text
        .strip_prefix('`')
        .and_then(|t| t.strip_suffix('`'))
        .unwrap_or(text);
    looks_like_path(text).then(|| text.to_owned())
}

/// Extracts the fenced code blocks of a Markdown answer, in document order,
/// including those inside list items and block quotes. Indented code blocks
/// are not fenced blocks and are not returned.
///
/// Annotations: a file path in the info string, in a `File:` comment on the
/// block's first line (that line is then removed from `content`), or alone on
/// the line just before the fence, in that order of preference.
pub fn extract_code_blocks(answer: &str) -> Vec<CodeBlock> {
    let parser = Parser::new_ext(answer, Options::empty()).into_offset_iter();
    let mut blocks = Vec::new();
    let mut current: Option<(std::ops::Range<usize>, String)> = None;
    for (event, range) in parser {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                current = Some((range, String::new()));
            }
            Event::Text(text) => {
                if let Some((_, content)) = current.as_mut() {
                    content.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((range, content)) = current.take() {
                    blocks.push(finish_block(answer, &range, content, blocks.len()));
                }
            }
            _ => {}
        }
    }
    blocks
}

fn finish_block(
    source: &str,
    range: &std::ops::Range<usize>,
    mut content: String,
    index: usize,
) -> CodeBlock {
    let (fence, len, info) = opening_fence(source, range.start).unwrap_or(('`', 3, ""));
    let language = info.split([' ', '\t']).next().unwrap_or("");
    let language = language.split(':').next().unwrap_or(language).to_owned();
    let mut file_path = path_from_info(info);
    if file_path.is_none() {
        let first_line = content.lines().next().unwrap_or("");
        if let Some(path) = path_from_first_line(first_line) {
            file_path = Some(path);
            content = content
                .split_once('\n')
                .map_or_else(String::new, |(_, rest)| rest.to_owned());
        }
    }
    if file_path.is_none() {
        file_path = path_from_line_before(source, range.start);
    }
    CodeBlock {
        language,
        content,
        index,
        range: file_path.as_ref().and_then(|_| range_from_info(info)),
        file_path,
        incomplete: !is_closed(source, range, fence, len),
    }
}
