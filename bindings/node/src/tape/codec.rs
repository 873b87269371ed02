//! The codec of the current environment: compiled from `script` on first
//! use, its references, what it was told (names, text, context, shapes),
//! and forgetting it all when the environment goes.

use std::ptr;

use napi::sys;

use super::names::COMMON;
use super::script::CODEC;
use crate::js::{Js, JsResult, Kind, Raw};

/// The codec of one environment, and the tape it decodes from.
pub(super) struct Codec {
    pub(super) env: sys::napi_env,
    decode: sys::napi_ref,
    encode: sys::napi_ref,
    invoke: sys::napi_ref,
    /// The realm's `JSON.stringify`, as the codec found it.
    stringify: sys::napi_ref,
    /// The codec's current decoding tape (none until the first decode).
    pub(super) tape: Option<sys::napi_ref>,
    pub(super) data: *mut f64,
    pub(super) capacity: usize,
    /// The names the codec remembers, with their numbers.
    pub(super) keys: rustc_hash::FxHashMap<Box<str>, usize>,
    /// The revision of the hook context the codec decoded last (it keeps a
    /// pristine copy of it).
    pub(super) context: Option<u64>,
    /// The shapes of hook contexts met, numbered for the codec's copiers
    /// (numbers are never reused).
    pub(super) shapes: rustc_hash::FxHashMap<Vec<u64>, u32>,
    pub(super) next_shape: u32,
    /// The text of the last tape the codec decoded (it keeps it too).
    pub(super) last_text: String,
}

impl Codec {
    /// Forgets what the codec was told (names, text, context, shapes) and
    /// hands it a new tape next time: used when the environment goes, when
    /// the codec is made, and when a call into it failed midway.
    pub(super) fn start_over(&mut self) {
        self.capacity = 0;
        self.keys.clear();
        self.last_text.clear();
        self.context = None;
        self.shapes.clear();
    }
}

/// What `codec` answers: the references to use now.
#[derive(Clone, Copy)]
pub(super) struct CodecRefs {
    pub(super) decode: sys::napi_ref,
    pub(super) encode: sys::napi_ref,
    pub(super) invoke: sys::napi_ref,
    /// The realm's `JSON.stringify`, as the codec found it.
    pub(super) stringify: sys::napi_ref,
    pub(super) capacity: usize,
}

thread_local! {
    /// The codec of this thread's environment.
    pub(super) static CODEC_REFS: std::cell::RefCell<Codec> = const {
        std::cell::RefCell::new(Codec {
            env: ptr::null_mut(),
            decode: ptr::null_mut(),
            encode: ptr::null_mut(),
            invoke: ptr::null_mut(),
            stringify: ptr::null_mut(),
            tape: None,
            data: ptr::null_mut(),
            capacity: 0,
            keys: std::collections::HashMap::with_hasher(rustc_hash::FxBuildHasher),
            context: None,
            shapes: std::collections::HashMap::with_hasher(rustc_hash::FxBuildHasher),
            next_shape: 0,
            last_text: String::new(),
        })
    };
}

/// The environment is going away: its references go with it.
unsafe extern "C" fn forget_codec(_arg: *mut std::ffi::c_void) {
    let _ = std::panic::catch_unwind(|| {
        CODEC_REFS.with_borrow_mut(|c| {
            c.env = ptr::null_mut();
            c.tape = None;
            c.data = ptr::null_mut();
            c.start_over();
        });
    });
}

/// The realm's `JSON.stringify` (the one the codec found when it was made).
pub(crate) fn json_stringify(js: Js) -> JsResult<Raw> {
    js.reference_value(codec(js)?.stringify)
}

/// The codec of the current environment, compiled on first use.
pub(super) fn codec(js: Js) -> JsResult<CodecRefs> {
    let known = CODEC_REFS.with_borrow(|c| {
        (c.env == js.env()).then_some(CodecRefs {
            decode: c.decode,
            encode: c.encode,
            invoke: c.invoke,
            stringify: c.stringify,
            capacity: c.capacity,
        })
    });
    if let Some(refs) = known {
        return Ok(refs);
    }
    let names: Vec<String> = COMMON.iter().map(|name| format!("'{name}'")).collect();
    let pair = js.run_script(&format!("{CODEC}([{}])", names.join(",")))?;
    let decode = js.get_element(pair, 0)?;
    let encode = js.get_element(pair, 1)?;
    let invoke = js.get_element(pair, 2)?;
    let stringify = js.get_element(pair, 3)?;
    if [decode, encode, invoke, stringify]
        .iter()
        .any(|&f| js.kind(f) != Kind::Function)
    {
        return Err("the data codec did not compile".to_owned());
    }
    let refs = CodecRefs {
        decode: js.reference(decode)?,
        encode: js.reference(encode)?,
        invoke: js.reference(invoke)?,
        stringify: js.reference(stringify)?,
        capacity: 0,
    };
    // SAFETY: live environment; `forget_codec` takes no data.
    let status =
        unsafe { sys::napi_add_env_cleanup_hook(js.env(), Some(forget_codec), ptr::null_mut()) };
    if status != sys::Status::napi_ok {
        return Err("cannot watch the environment's teardown".to_owned());
    }
    {
        CODEC_REFS.with_borrow_mut(|c| {
            c.env = js.env();
            c.decode = refs.decode;
            c.encode = refs.encode;
            c.invoke = refs.invoke;
            c.stringify = refs.stringify;
            c.tape = None;
            c.data = ptr::null_mut();
            c.start_over();
        });
    }
    Ok(refs)
}
