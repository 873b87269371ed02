#!/usr/bin/env bash
# Builds the native module and puts it where Neovim's `require` finds it:
# bindings/lua/lua/radium_native.so. Works as a lazy.nvim `build` step.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
profile=${RADIUM_PROFILE:-release}
version=$(sed -n 's/^return "\(.*\)"/\1/p' "$here/lua/radium/version.lua")
if [ -n "${RADIUM_PREBUILT:-}" ]; then
  # The release build unpacked by scripts/unpack-release.sh (the test command
  # tests the binaries a release ships).
  [ "$(cat "$RADIUM_PREBUILT/VERSION" 2>/dev/null)" = "$version" ] \
    || { echo "build: RADIUM_PREBUILT=$RADIUM_PREBUILT holds no build of $version" >&2; exit 1; }
  # A name of its own, then renamed: two builds at once (the test command's
  # agent lanes) never write one file together.
  install -m 755 "$RADIUM_PREBUILT/radium_native.so" "$here/lua/radium_native.so.$$.tmp"
  mv "$here/lua/radium_native.so.$$.tmp" "$here/lua/radium_native.so"
  source=release profile=release
  echo "installed the release build from $RADIUM_PREBUILT"
else
  flag=()
  [ "$profile" = release ] && flag=(--release)
  cargo build --manifest-path "$root/Cargo.toml" -p radium-lua "${flag[@]}" --quiet
  # Where cargo put the module: $CARGO_TARGET_DIR when it is set.
  install -m 755 "${CARGO_TARGET_DIR:-$root/target}/$profile/libradium_native.so" "$here/lua/radium_native.so.$$.tmp"
  mv "$here/lua/radium_native.so.$$.tmp" "$here/lua/radium_native.so"
  source=cargo
  echo "built $here/lua/radium_native.so"
fi
# Where the module came from, for :checkhealth radium (and :RadiumInstall's record).
printf '{"version":"%s","source":"%s","profile":"%s"}\n' "$version" "$source" "$profile" >"$here/lua/radium_native.json.$$.tmp"
mv "$here/lua/radium_native.json.$$.tmp" "$here/lua/radium_native.json"
