//! Fuzz target: the JSON request door: `Engine::handle_json_text` on a default engine.
//! The checks are in `radium_fuzz::request` (fuzz/src/lib.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| radium_fuzz::request(data));
