//! Sets the linker flags a Node addon needs (undefined N-API symbols resolved by node).

fn main() {
    napi_build::setup();
}
