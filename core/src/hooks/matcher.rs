//! [`ToolMatcher`]: which tools a tool hook applies to.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// Selects tools by name for `before_tool`, `after_tool` and `tool_selection` hooks.
///
/// A pattern is one or more alternatives separated by `|`. Each alternative
/// is an exact tool name, or a glob where `*` matches any run of characters
/// and `?` matches exactly one: `str-replace`, `edit|create`, `mcp__*`,
/// `*`. Matching is case-sensitive and covers the whole name.
///
/// The tool name is read from the context's `tool_name` field; a tool hook
/// with a matcher is skipped (and not listed in the outcome) for a context
/// without a `tool_name` or with one that does not match.
#[derive(Clone, PartialEq, Eq)]
pub struct ToolMatcher {
    pattern: String,
    alternatives: Vec<Alternative>,
}

#[derive(Clone, PartialEq, Eq)]
enum Alternative {
    Any,
    Exact(String),
    Glob(Vec<char>),
}

impl ToolMatcher {
    /// Parses a pattern. Empty patterns and empty alternatives (`a||b`) are errors.
    pub fn new(pattern: &str) -> Result<Self> {
        let invalid = |reason: &str| Error::InvalidMatcher {
            pattern: pattern.to_owned(),
            reason: reason.to_owned(),
        };
        if pattern.trim().is_empty() {
            return Err(invalid("the pattern is empty"));
        }
        let mut alternatives = Vec::new();
        for part in pattern.split('|') {
            let part = part.trim();
            if part.is_empty() {
                return Err(invalid("an alternative between `|` is empty"));
            }
            if part.chars().any(char::is_control) {
                return Err(invalid("control characters are not allowed"));
            }
            alternatives.push(if part == "*" {
                Alternative::Any
            } else if part.contains(['*', '?']) {
                Alternative::Glob(part.chars().collect())
            } else {
                Alternative::Exact(part.to_owned())
            });
        }
        Ok(ToolMatcher {
            pattern: pattern.to_owned(),
            alternatives,
        })
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether `tool_name` matches.
    pub fn matches(&self, tool_name: &str) -> bool {
        self.alternatives.iter().any(|alt| match alt {
            Alternative::Any => true,
            Alternative::Exact(name) => name == tool_name,
            Alternative::Glob(glob) => {
                let name: Vec<char> = tool_name.chars().collect();
                glob_match(glob, &name)
            }
        })
    }
}

/// Iterative wildcard match with single backtracking point (linear in practice).
fn glob_match(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == name[n]) {
            p += 1;
            n += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

impl fmt::Debug for ToolMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolMatcher").field(&self.pattern).finish()
    }
}

impl fmt::Display for ToolMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pattern)
    }
}

impl std::str::FromStr for ToolMatcher {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        ToolMatcher::new(s)
    }
}

impl Serialize for ToolMatcher {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.pattern)
    }
}

impl<'de> Deserialize<'de> for ToolMatcher {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let pattern = String::deserialize(deserializer)?;
        ToolMatcher::new(&pattern).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str) -> ToolMatcher {
        ToolMatcher::new(p).expect("valid pattern")
    }

    #[test]
    fn exact_alternatives_and_globs() {
        assert!(m("view").matches("view"));
        assert!(!m("view").matches("viewer"));
        assert!(m("edit|create").matches("create"));
        assert!(!m("edit|create").matches("view"));
        assert!(m("mcp__*").matches("mcp__github__search"));
        assert!(!m("mcp__*").matches("mcp_x"));
        assert!(m("*").matches(""));
        assert!(m("s?r-*").matches("str-replace"));
        assert!(m("*-var").matches("read-var"));
        assert!(!m("*-var").matches("read-vars"));
        assert!(m("a*b*c").matches("aXbYbZc"));
        assert!(!m("a*b*c").matches("aXbYbZ"));
    }

    #[test]
    fn bad_patterns_are_errors() {
        for bad in ["", "  ", "a||b", "|a", "a\nb"] {
            let err = ToolMatcher::new(bad).expect_err(bad);
            assert!(err.to_string().contains("invalid tool matcher"), "{err}");
        }
    }
}
