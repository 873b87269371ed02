//! The committed `include/radium.h` is exactly what cbindgen generates now.

#[test]
fn committed_header_matches_the_generated_one() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/radium.h"));
    let committed_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../include/radium.h");
    let committed = std::fs::read_to_string(committed_path)
        .unwrap_or_else(|e| panic!("cannot read {committed_path}: {e}"));
    assert!(
        generated == committed,
        "include/radium.h is out of date: regenerate it with \
         `RADIUM_BLESS_HEADER=1 cargo build -p radium-ffi` and commit it"
    );
}
