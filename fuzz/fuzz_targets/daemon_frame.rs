//! Fuzz target: the daemon's frames: `daemon::read_frame`, then each payload answered like the daemon does.
//! The checks are in `radium_fuzz::daemon_frame` (fuzz/src/lib.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| radium_fuzz::daemon_frame(data));
