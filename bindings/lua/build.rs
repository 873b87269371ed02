//! The Neovim module of a release links the system's unwinder first.
//!
//! `scripts/release.sh` builds with cargo-zigbuild, which links zig's own
//! libunwind into each binary, hidden. LuaJIT raises a Lua error by
//! unwinding through the module's Rust frames with Neovim's `libgcc_s`, and
//! the module's personality routine then called into its private unwinder
//! with the other one's state: Neovim crashed. With `RADIUM_LINK_GCC_S`
//! naming a folder that holds (only) `libgcc_s.so.1`, the module is linked
//! against it before the standard library's own `-lgcc_s` (which
//! cargo-zigbuild turns into zig's libunwind), so it uses the process's one
//! unwinder, as a gcc-linked build does. A cargo build leaves it unset.

fn main() {
    println!("cargo:rerun-if-env-changed=RADIUM_LINK_GCC_S");
    if let Some(dir) = std::env::var_os("RADIUM_LINK_GCC_S").filter(|d| !d.is_empty()) {
        println!("cargo:rustc-link-search=native={}", dir.to_string_lossy());
        println!("cargo:rustc-link-lib=dylib:+verbatim=libgcc_s.so.1");
    }
}
