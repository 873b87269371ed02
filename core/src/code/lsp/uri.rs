//! `file:` URIs, percent-encoded the way servers write them, to and from
//! paths.

use std::path::{Path, PathBuf};

/// The `file:` URI of an absolute `path`.
pub fn path_uri(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map_or_else(|()| format!("file://{}", path.display()), |u| u.to_string())
}

/// The path a `file:` URI names (`None` for another scheme or a bad URI).
pub fn uri_path(uri: &str) -> Option<PathBuf> {
    url::Url::parse(uri).ok()?.to_file_path().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_and_non_ascii_round_trip() {
        let path = Path::new("/tmp/a dir/é#1.py");
        let uri = path_uri(path);
        assert_eq!(uri, "file:///tmp/a%20dir/%C3%A9%231.py");
        assert_eq!(uri_path(&uri).as_deref(), Some(path));
        assert_eq!(uri_path("untitled:Untitled-1"), None);
    }
}
