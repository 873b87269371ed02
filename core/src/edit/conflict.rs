//! Git conflict markers, 2-way (`<<<<<<<`, `=======`, `>>>>>>>`) and diff3
//! (with `|||||||` and the base).

use serde::Serialize;

use crate::error::{Error, Result};

/// One conflict region.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// Its id (1, 2, ... in file order).
    pub id: u64,
    /// The line of its `<<<<<<<` marker (1-based).
    pub line: usize,
    /// Our side.
    pub ours: String,
    /// The base (diff3 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Their side.
    pub theirs: String,
    /// Byte range of the whole region, markers included.
    #[serde(skip)]
    pub start: usize,
    /// End of the region (exclusive).
    #[serde(skip)]
    pub end: usize,
}

/// The conflicts of `text`, in order. An unterminated region is an error.
pub fn find_conflicts(text: &str) -> Result<Vec<Conflict>> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut line_no = 0;
    // (start, line, part, ours, base, theirs)
    let mut open: Option<(usize, usize, u8, String, Option<String>, String)> = None;
    for line in text.split_inclusive('\n') {
        line_no += 1;
        let start = offset;
        offset += line.len();
        let marker = |m: &str| {
            line.starts_with(m)
                && line[m.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c == ' ' || c == '\n' || c == '\r')
        };
        match &mut open {
            None if marker("<<<<<<<") => {
                open = Some((start, line_no, 0, String::new(), None, String::new()));
            }
            None => {}
            Some(state) => {
                if marker("|||||||") && state.2 == 0 {
                    state.2 = 1;
                    state.4 = Some(String::new());
                } else if marker("=======") && state.2 < 2 {
                    state.2 = 2;
                } else if marker(">>>>>>>") && state.2 == 2 {
                    let (s, l, _, ours, base, theirs) = open.take().unwrap_or_default();
                    out.push(Conflict {
                        id: out.len() as u64 + 1,
                        line: l,
                        ours,
                        base,
                        theirs,
                        start: s,
                        end: offset,
                    });
                } else {
                    match state.2 {
                        0 => state.3.push_str(line),
                        1 => state.4.get_or_insert_with(String::new).push_str(line),
                        _ => state.5.push_str(line),
                    }
                }
            }
        }
    }
    if let Some((_, l, ..)) = open {
        return Err(Error::Edit(format!(
            "the conflict starting at line {l} has no end marker (>>>>>>>)"
        )));
    }
    Ok(out)
}
