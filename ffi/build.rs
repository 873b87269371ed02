//! Generates the C header with cbindgen into `OUT_DIR`; `RADIUM_BLESS_HEADER=1`
//! also writes it to `include/radium.h` (the committed copy a test compares).

use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=RADIUM_BLESS_HEADER");
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate radium.h");
    bindings.write_to_file(out_dir.join("radium.h"));
    if std::env::var_os("RADIUM_BLESS_HEADER").is_some_and(|v| v == "1") {
        bindings.write_to_file(crate_dir.join("../include/radium.h"));
    }
}
