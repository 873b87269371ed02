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
# Where the module came from, for :checkhealth radium (and :RadiumInstall's record).
version=$(sed -n 's/^return "\(.*\)"/\1/p' "$here/lua/radium/version.lua")
printf '{"version":"%s","source":"cargo","profile":"%s"}\n' "$version" "$profile" >"$here/lua/radium_native.json.tmp"
mv "$here/lua/radium_native.json.tmp" "$here/lua/radium_native.json"
