//! Fuzz target: the `.radium/hooks.toml`: `HookConfigFile::parse`, then `HookRegistry::apply_config`.
//! The checks are in `radium_fuzz::hooks_toml` (fuzz/src/lib.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| radium_fuzz::hooks_toml(data));
