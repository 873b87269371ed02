#!/usr/bin/env bash
# Builds the native module and puts it where Neovim's `require` finds it:
# bindings/lua/lua/radium_native.so. Works as a lazy.nvim `build` step.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
profile=${RADIUM_PROFILE:-release}
flag=()
[ "$profile" = release ] && flag=(--release)
cargo build --manifest-path "$root/Cargo.toml" -p radium-lua "${flag[@]}" --quiet
# Where cargo put the module: $CARGO_TARGET_DIR when it is set.
install -m 755 "${CARGO_TARGET_DIR:-$root/target}/$profile/libradium_native.so" "$here/lua/radium_native.so"
echo "built $here/lua/radium_native.so"
