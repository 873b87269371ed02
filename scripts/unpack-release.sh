#!/usr/bin/env bash
# Unpacks this machine's release binaries from dist/ (scripts/release.sh) into
# one folder, for the door scripts to use instead of building their own:
#   bash scripts/unpack-release.sh [DIST [OUT]]   (default dist/, target/release-prebuilt)
# OUT then holds, for this machine's architecture (glibc builds):
#   radium_native.so            the Neovim module
#   radium.linux-<cpu>-gnu.node the Node module
#   rad                         the CLI
#   sdk/{include,lib}           the C SDK (libradium.so, libradium.a, radium.h)
# and the path of OUT is printed. With RADIUM_PREBUILT=OUT in the environment,
# bindings/lua/build.sh, bindings/node/build.sh and scripts/install-c.sh
# install these instead of running cargo: the test command tests the very
# binaries a release ships, built once.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
die() { echo "unpack-release: $*" >&2; exit 1; }
dist=${1:-$repo/dist}
out=${2:-$repo/target/release-prebuilt}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
arch=$(uname -m)
case $arch in x86_64) cpu=x64 ;; aarch64) cpu=arm64 ;; *) die "no release build for $arch" ;; esac
[ -f "$dist/SHA256SUMS" ] || die "$dist/SHA256SUMS is missing: run scripts/release.sh $version first"
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || die "$dist does not match its SHA256SUMS"
rm -rf "$out"
mkdir -p "$out/sdk" "$out/npm"
install -m 755 "$dist/radium_native-$version-linux-$arch-gnu.so" "$out/radium_native.so"
install -m 755 "$dist/rad-$version-linux-$arch-gnu" "$out/rad"
tar -C "$out/npm" -xzf "$dist/radium-node-linux-$cpu-gnu-$version.tgz"
install -m 755 "$out/npm/package/radium.linux-$cpu-gnu.node" "$out/"
rm -rf "$out/npm"
tar -C "$out/sdk" -xzf "$dist/radium-c-$version-linux-$arch.tar.gz" --strip-components=1
echo "$version" >"$out/VERSION"
echo "$out"
