//! test
use napi_derive::napi;

/// v
#[napi]
pub fn version() -> String { radium_core::VERSION.to_owned() }

struct Code(&'static str);
impl AsRef<str> for Code { fn as_ref(&self) -> &str { self.0 } }

/// fails
#[napi]
pub fn fails() -> Result<u32, napi::Error<Code>> { Err(napi::Error::new(Code("unknown_hook"), "nope")) }
