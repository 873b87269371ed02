#!/usr/bin/env bash
# Builds libradium (release) and installs the header, both libraries and
# radium.pc under PREFIX (default /usr/local):
#   bash scripts/install-c.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
cargo build --release -p radium-ffi --quiet
# Where cargo put the libraries: $CARGO_TARGET_DIR when it is set.
target=${CARGO_TARGET_DIR:-target}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
install -d "$prefix/lib/pkgconfig" "$prefix/include"
install -m 644 include/radium.h "$prefix/include/"
install -m 755 "$target/release/libradium.so" "$prefix/lib/"
install -m 644 "$target/release/libradium.a" "$prefix/lib/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" ffi/radium.pc.in > "$prefix/lib/pkgconfig/radium.pc"
echo "installed radium $version under $prefix (pkg-config: PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs radium)"
