//! Images as prompt context, sent to an agent that takes images
//! (`promptCapabilities.image`) as ACP image blocks (`{type: "image",
//! mimeType, data}`, the bytes in base64). An image is a file inside the
//! session's workspace, or inline data (`{data, mimeType}`: a pasted image,
//! base64); each at most [`MAX_IMAGE_BYTES`], of a known image type, at most
//! [`MAX_IMAGES`] a prompt; an agent that takes no images gets nothing.
//!
//! The checks that need no reading (count, type, place, size) run when the
//! prompt is given, so a bad image is refused at once; reading and encoding
//! run on the engine's runtime ([`read_images`], off the caller's thread: an
//! editor's main loop is not held by a large image).

use std::io::Read;
use std::path::{Path, PathBuf};

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

/// An image of a prompt that passed the checks, not read yet.
#[derive(Debug, Clone)]
pub enum PendingImage {
    /// A file of the workspace: its real path and mime type.
    File {
        /// The path as given, for errors.
        given: String,
        /// The resolved path inside the workspace.
        real: PathBuf,
        /// Its mime type, by extension.
        mime: &'static str,
    },
    /// Inline data (a pasted image): base64 and its mime type.
    Inline {
        /// Its place in the prompt's list (from 1), for errors.
        index: usize,
        /// The bytes, base64 (checked when read).
        data: String,
        /// Its mime type, one radium sends.
        mime: &'static str,
    },
}

impl AgentSession {
    /// Whether the agent said it takes images (`promptCapabilities.image`).
    pub fn takes_images(&self) -> bool {
        lock(&self.state).takes_images
    }

    /// The image blocks for the files `paths` (relative to the workspace,
    /// or absolute inside it), read on this thread.
    pub fn image_blocks(&self, paths: &[String]) -> Result<Vec<Value>> {
        let images: Vec<Value> = paths.iter().map(|p| json!(p)).collect();
        read_images(self.check_images(&images)?)
    }

    /// Checks the images of a prompt without reading them: each a file path
    /// (string) or inline data (`{data, mimeType}`). Refuses them all when
    /// the agent takes no images, there are too many, or one is bad.
    pub fn check_images(&self, images: &[Value]) -> Result<Vec<PendingImage>> {
        if images.is_empty() {
            return Ok(Vec::new());
        }
        if !self.takes_images() {
            return Err(Error::InvalidArgument(format!(
                "agent `{}` does not take images (its promptCapabilities.image is not true): nothing was sent",
                self.agent.id
            )));
        }
        if images.len() > MAX_IMAGES {
            return Err(Error::InvalidArgument(format!(
                "{} images given, at most {MAX_IMAGES} go with one prompt",
                images.len()
            )));
        }
        images
            .iter()
            .enumerate()
            .map(|(i, image)| match image {
                Value::String(path) => self.check_file(path),
                Value::Object(_) => check_inline(i + 1, image),
                other => Err(Error::InvalidArgument(format!(
                    "image {}: must be a file path or `{{data, mimeType}}`, got {}",
                    i + 1,
                    crate::support::json::json_kind(other)
                ))),
            })
            .collect()
    }

    fn check_file(&self, path: &str) -> Result<PendingImage> {
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
        let size = std::fs::metadata(&real)
            .map_err(|source| Error::Io {
                path: real.clone(),
                source,
            })?
            .len();
        if size > MAX_IMAGE_BYTES {
            return Err(Error::InvalidArgument(format!(
                "image `{path}` is {size} bytes, over the {MAX_IMAGE_BYTES}-byte limit of an image"
            )));
        }
        Ok(PendingImage::File {
            given: path.to_owned(),
            real,
            mime,
        })
    }
}

/// Checks inline image `index` (`{data, mimeType}`) without decoding it.
fn check_inline(index: usize, image: &Value) -> Result<PendingImage> {
    let bad = |why: String| Error::InvalidArgument(format!("image {index} (inline data): {why}"));
    let given = image.get("mimeType").and_then(Value::as_str);
    let Some(given) = given else {
        return Err(bad(
            "missing `mimeType` (image/png, image/jpeg, image/gif or image/webp)".into(),
        ));
    };
    let Some(mime) = TYPES.iter().map(|(_, t)| *t).find(|t| *t == given) else {
        return Err(bad(format!(
            "`{given}` is not an image type radium sends (image/png, image/jpeg, image/gif, image/webp)"
        )));
    };
    let Some(data) = image.get("data").and_then(Value::as_str) else {
        return Err(bad("missing `data` (the image's bytes in base64)".into()));
    };
    if data.is_empty() {
        return Err(bad("`data` is empty".into()));
    }
    // The decoded size, from the length: no decoding on this thread.
    let size = (data.len() as u64 / 4) * 3;
    if size > MAX_IMAGE_BYTES {
        return Err(bad(format!(
            "about {size} bytes, over the {MAX_IMAGE_BYTES}-byte limit of an image"
        )));
    }
    Ok(PendingImage::Inline {
        index,
        data: data.to_owned(),
        mime,
    })
}

/// Reads and encodes checked images into ACP image blocks: the slow part,
/// run where it may block (the engine's runtime, or a command line).
pub fn read_images(images: Vec<PendingImage>) -> Result<Vec<Value>> {
    images.into_iter().map(read_image).collect()
}

fn read_image(image: PendingImage) -> Result<Value> {
    match image {
        PendingImage::Inline { index, data, mime } => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data.as_bytes())
                .map_err(|e| {
                    Error::InvalidArgument(format!(
                        "image {index} (inline data): `data` is not base64: {e}"
                    ))
                })?;
            if bytes.len() as u64 > MAX_IMAGE_BYTES {
                return Err(Error::InvalidArgument(format!(
                    "image {index} (inline data) is {} bytes, over the {MAX_IMAGE_BYTES}-byte limit of an image",
                    bytes.len()
                )));
            }
            Ok(json!({"type": "image", "mimeType": mime, "data": data}))
        }
        PendingImage::File { given, real, mime } => {
            let io = |source| Error::Io {
                path: real.clone(),
                source,
            };
            let file = std::fs::File::open(&real).map_err(io)?;
            let mut bytes = Vec::new();
            // At most one byte past the cap, in case the file grew.
            file.take(MAX_IMAGE_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            if bytes.len() as u64 > MAX_IMAGE_BYTES {
                return Err(Error::InvalidArgument(format!(
                    "image `{given}` is over the {MAX_IMAGE_BYTES}-byte limit of an image"
                )));
            }
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            Ok(
                json!({"type": "image", "mimeType": mime, "data": data, "uri": format!("file://{}", real.display())}),
            )
        }
    }
}
