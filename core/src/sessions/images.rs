//! Images as prompt context: an image file of the workspace sent to an agent
//! that takes images (`promptCapabilities.image`) as an ACP image block
//! (`{type: "image", mimeType, data}`, the bytes in base64). The file must be
//! inside the session's workspace, at most [`MAX_IMAGE_BYTES`], and of a
//! known image type; an agent that takes no images gets nothing.

use std::io::Read;
use std::path::Path;

use base64::Engine as _;
use serde_json::{json, Value};

use super::session::{lock, AgentSession};
use crate::error::{Error, Result};
use crate::support::paths::resolve;

/// The largest image a prompt may carry: 10 MiB.
pub const MAX_IMAGE_BYTES: u64 = 10 << 20;

/// The most images one prompt may carry.
pub const MAX_IMAGES: usize = 16;

/// The image types radium sends, by file extension.
const TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
];

/// The mime type of `path` by its extension, if radium sends that type.
pub fn image_mime_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    TYPES.iter().find(|(e, _)| *e == ext).map(|(_, t)| *t)
}

impl AgentSession {
    /// Whether the agent said it takes images (`promptCapabilities.image`).
    pub fn takes_images(&self) -> bool {
        lock(&self.state).takes_images
    }

    /// The image blocks for the files `paths` (relative to the workspace,
    /// or absolute inside it).
    pub fn image_blocks(&self, paths: &[String]) -> Result<Vec<Value>> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        if !self.takes_images() {
            return Err(Error::InvalidArgument(format!(
                "agent `{}` does not take images (its promptCapabilities.image is not true): nothing was sent",
                self.agent.id
            )));
        }
        if paths.len() > MAX_IMAGES {
            return Err(Error::InvalidArgument(format!(
                "{} images given, at most {MAX_IMAGES} go with one prompt",
                paths.len()
            )));
        }
        paths.iter().map(|p| self.image_block(p)).collect()
    }

    fn image_block(&self, path: &str) -> Result<Value> {
        if path.is_empty() || path.contains('\0') {
            return Err(Error::InvalidArgument(format!(
                "image `{path}`: not a file path"
            )));
        }
        let real = resolve(&self.workspace.join(path));
        let root = resolve(&self.workspace);
        if !real.starts_with(&root) {
            return Err(Error::OutsideProject(format!(
                "image `{path}` is outside the workspace `{}` (it resolves to `{}`)",
                root.display(),
                real.display()
            )));
        }
        let Some(mime) = image_mime_type(&real) else {
            return Err(Error::InvalidArgument(format!(
                "image `{path}`: not an image type radium sends (png, jpg, jpeg, gif, webp)"
            )));
        };
        let io = |source| Error::Io {
            path: real.clone(),
            source,
        };
        let file = std::fs::File::open(&real).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        if size > MAX_IMAGE_BYTES {
            return Err(Error::InvalidArgument(format!(
                "image `{path}` is {size} bytes, over the {MAX_IMAGE_BYTES}-byte limit of an image"
            )));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        // Read at most one byte past the cap, in case the file grew.
        file.take(MAX_IMAGE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > MAX_IMAGE_BYTES {
            return Err(Error::InvalidArgument(format!(
                "image `{path}` is over the {MAX_IMAGE_BYTES}-byte limit of an image"
            )));
        }
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        Ok(
            json!({"type": "image", "mimeType": mime, "data": data, "uri": format!("file://{}", real.display())}),
        )
    }
}
