//! Fuzz target: the code blocks of an agent's answer: `ExtractedAnswer::from_answer`, `extract_code_blocks`.
//! The checks are in `radium_fuzz::extract` (fuzz/src/lib.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| radium_fuzz::extract(data));
