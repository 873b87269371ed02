//! A server's stderr, said in one line in the errors radium shows.

/// What a server's stderr says, in one line: its first error line (a
/// rustup proxy's "Unknown binary", a missing module) or else its last
/// line, at most 300 characters; with the fix when rustup says the
/// component is missing.
pub(super) fn stderr_summary(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let line = lines
        .iter()
        .find(|l| l.to_ascii_lowercase().starts_with("error"))
        .or(lines.last())
        .copied()
        .unwrap_or_default();
    let mut out: String = line.chars().take(300).collect();
    if line.contains("Unknown binary") {
        if let Some(name) = line.split('\'').nth(1) {
            out = format!("{out} (install it: rustup component add {name})");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::stderr_summary;

    #[test]
    fn a_server_s_stderr_is_said_in_one_line() {
        let rustup = "error: Unknown binary 'rust-analyzer' in official toolchain 'stable'.\n\nStack backtrace:\n   0: anyhow::kind::Adhoc::new\n  15: <unknown>\n";
        assert_eq!(
            stderr_summary(rustup),
            "error: Unknown binary 'rust-analyzer' in official toolchain 'stable'. (install it: rustup component add rust-analyzer)"
        );
        assert_eq!(
            stderr_summary("starting\nlistening\nno workspace found\n"),
            "no workspace found"
        );
        assert_eq!(stderr_summary(""), "");
        assert_eq!(stderr_summary(&"x".repeat(1000)).len(), 300);
    }
}
