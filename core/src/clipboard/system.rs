//! The system clipboard (X11 or Wayland, through `arboard`).
//!
//! On X11 a text lives only while the program that set it runs (without a
//! clipboard manager): an editor's engine keeps one clipboard for its whole
//! life, so what it copied stays available while the editor runs; a
//! short-lived program (`rad clipboard send`) hands the text to a small
//! process of its own that keeps it until another program takes the
//! clipboard ([`hold`]).

use std::sync::Mutex;
#[cfg(feature = "clipboard")]
use std::sync::PoisonError;

use crate::error::{Error, Result};

/// Why there is no clipboard, in words a user can act on.
#[cfg(feature = "clipboard")]
fn unavailable(e: &dyn std::fmt::Display) -> Error {
    let display = std::env::var_os("DISPLAY").is_some();
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some();
    let why = if display || wayland {
        format!("the clipboard cannot be reached: {e}")
    } else {
        "no clipboard: neither DISPLAY (X11) nor WAYLAND_DISPLAY (Wayland) is set; run inside a graphical session (or under xvfb-run), or use `print` to get the text without the clipboard".to_owned()
    };
    Error::Clipboard(why)
}

#[cfg(feature = "clipboard")]
fn read_error(e: &arboard::Error) -> Error {
    match e {
        arboard::Error::ContentNotAvailable => Error::Clipboard(
            "the clipboard holds no text (it is empty, or holds an image or other data)".into(),
        ),
        arboard::Error::ConversionFailure => {
            Error::Clipboard("the clipboard's text is not valid UTF-8".into())
        }
        // X11 answers a request for text with another type when the
        // clipboard holds an image or other data.
        arboard::Error::Unknown { description } if description.contains("incorrect type") => {
            Error::Clipboard("the clipboard holds no text (it holds an image or other data)".into())
        }
        other => unavailable(other),
    }
}

/// One clipboard connection, opened on first use and kept.
#[derive(Default)]
pub struct SystemClipboard {
    #[cfg(feature = "clipboard")]
    inner: Mutex<Option<arboard::Clipboard>>,
    #[cfg(not(feature = "clipboard"))]
    inner: Mutex<()>,
    /// A digest of the last text this clipboard put there.
    sent: Mutex<Option<u64>>,
}

fn digest(text: &str) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

impl SystemClipboard {
    /// The clipboard's text as an answer to read: an error while it is
    /// still the text this clipboard put there itself (nothing was copied
    /// since), so a prompt is never read back as its own answer.
    pub fn answer_text(&self) -> Result<String> {
        let text = self.get_text()?;
        let sent = *self
            .sent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if sent == Some(digest(&text)) {
            return Err(Error::Clipboard(
                "the clipboard still holds the text radium copied, not an answer: copy the agent's answer, then receive again".into(),
            ));
        }
        Ok(text)
    }

    #[cfg_attr(not(feature = "clipboard"), allow(dead_code))]
    fn remember(&self, text: &str) {
        *self
            .sent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(digest(text));
    }
}

impl std::fmt::Debug for SystemClipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SystemClipboard")
    }
}

#[cfg(feature = "clipboard")]
impl SystemClipboard {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut arboard::Clipboard) -> std::result::Result<T, arboard::Error>,
    ) -> Result<T> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.is_none() {
            *inner = Some(arboard::Clipboard::new().map_err(|e| unavailable(&e))?);
        }
        let Some(clipboard) = inner.as_mut() else {
            return Err(Error::Clipboard("the clipboard is not open".into()));
        };
        f(clipboard).map_err(|e| {
            if !matches!(
                e,
                arboard::Error::ContentNotAvailable | arboard::Error::ConversionFailure
            ) {
                // A connection that failed is opened again next time.
                *inner = None;
            }
            read_error(&e)
        })
    }

    /// The clipboard's text.
    pub fn get_text(&self) -> Result<String> {
        self.with(arboard::Clipboard::get_text)
    }

    /// Puts `text` on the clipboard; it stays while this clipboard lives
    /// (or until another program takes the clipboard).
    pub fn set_text(&self, text: &str) -> Result<()> {
        self.with(|c| c.set_text(text))?;
        self.remember(text);
        Ok(())
    }
}

#[cfg(not(feature = "clipboard"))]
impl SystemClipboard {
    /// The clipboard's text: not built in.
    pub fn get_text(&self) -> Result<String> {
        let _ = &self.inner;
        Err(Error::Clipboard(
            "this build has no clipboard support (the `clipboard` feature is off); pass the text in the request".into(),
        ))
    }

    /// Puts `text` on the clipboard: not built in.
    pub fn set_text(&self, _text: &str) -> Result<()> {
        self.get_text().map(drop)
    }
}

/// Puts `text` on the clipboard and keeps it there until another program
/// takes the clipboard (blocks until then): for a process whose only job is
/// to hold a short-lived program's text.
pub fn hold(text: &str) -> Result<()> {
    #[cfg(all(feature = "clipboard", target_os = "linux"))]
    {
        use arboard::SetExtLinux as _;
        let mut clipboard = arboard::Clipboard::new().map_err(|e| unavailable(&e))?;
        clipboard
            .set()
            .wait()
            .text(text.to_owned())
            .map_err(|e| unavailable(&e))
    }
    #[cfg(not(all(feature = "clipboard", target_os = "linux")))]
    {
        SystemClipboard::default().set_text(text)
    }
}
