#!/usr/bin/env bash
# Builds libradium (release) and installs the header, both libraries and
# radium.pc under PREFIX (default /usr/local):
#   bash scripts/install-c.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
# With RADIUM_PREBUILT (scripts/unpack-release.sh), the release's libraries
# are installed instead of building them.
prefix=${1:-/usr/local}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
if [ -n "${RADIUM_PREBUILT:-}" ]; then
  [ "$(cat "$RADIUM_PREBUILT/VERSION" 2>/dev/null)" = "$version" ] \
    || { echo "install-c: RADIUM_PREBUILT=$RADIUM_PREBUILT holds no build of $version" >&2; exit 1; }
  libs=$RADIUM_PREBUILT/sdk/lib
  cmp -s include/radium.h "$RADIUM_PREBUILT/sdk/include/radium.h" \
    || { echo "install-c: the release's radium.h is not include/radium.h" >&2; exit 1; }
else
  cargo build --release -p radium-ffi --quiet
  # Where cargo put the libraries: $CARGO_TARGET_DIR when it is set.
  libs=${CARGO_TARGET_DIR:-target}/release
fi
install -d "$prefix/lib/pkgconfig" "$prefix/include"
install -m 644 include/radium.h "$prefix/include/"
install -m 755 "$libs/libradium.so" "$prefix/lib/"
install -m 644 "$libs/libradium.a" "$prefix/lib/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" ffi/radium.pc.in > "$prefix/lib/pkgconfig/radium.pc"
echo "installed radium $version under $prefix (pkg-config: PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs radium)"
