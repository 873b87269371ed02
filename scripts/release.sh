#!/usr/bin/env bash
# Builds the release binaries for Linux into dist/ (docs/release.md):
#   bash scripts/release.sh VERSION        (VERSION = the workspace version, e.g. 0.1.0)
# For x86_64 and aarch64, linked against glibc 2.17 (cargo-zigbuild), plus a
# static musl `rad` for x86_64:
#   radium_native-VERSION-linux-ARCH-gnu.so   the Neovim module (LuaJIT)
#   rad-VERSION-linux-ARCH-gnu, rad-VERSION-linux-x86_64-musl
#   radium-c-VERSION-linux-ARCH.tar.gz        libradium.so/.a, radium.h, radium.pc
#   radium-node-*.tgz                         napi-rs packages: the main one and one per platform
#   radium-VERSION-linux-x64.vsix, -linux-arm64.vsix   the extension with its module and `rad`
#   SHA256SUMS
# ziglang and cargo-zigbuild (PyPI) are installed into .cache/release-venv when
# missing; the Rust targets with rustup. Cargo's output goes to
# $CARGO_TARGET_DIR (default target/release-dist), dist/ to $RADIUM_DIST.
# RADIUM_RELEASE_ARCHS (default "x86_64 aarch64") narrows the architectures.
# RADIUM_RELEASE_HOST_OUT=DIR: as soon as this machine's architecture is
# built (it is built first), its binaries go into DIR, laid out as
# scripts/unpack-release.sh lays them out, with DIR/VERSION written last:
# the test command tests them while the other targets build.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
die() { echo "release: $*" >&2; exit 1; }
step() { printf '==> %s\n' "$*" >&2; }

[ $# -eq 1 ] || die "usage: bash scripts/release.sh VERSION"
version=${1#v}
crate_version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
[ "$version" = "$crate_version" ] \
  || die "VERSION $version is not the workspace version $crate_version (Cargo.toml): the plugin downloads the build of its own version"
lua_version=$(sed -n 's/^return "\(.*\)"/\1/p' bindings/lua/lua/radium/version.lua)
[ "$lua_version" = "$crate_version" ] \
  || die "bindings/lua/lua/radium/version.lua says $lua_version, Cargo.toml $crate_version: make them equal"
archs=${RADIUM_RELEASE_ARCHS:-x86_64 aarch64}
# This machine's architecture first (its binaries are wanted first).
host_arch=$(uname -m)
case " $archs " in *" $host_arch "*) archs="$host_arch ${archs//$host_arch/}" ;; esac
host_out=${RADIUM_RELEASE_HOST_OUT:-}
dist=${RADIUM_DIST:-$repo/dist}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target/release-dist}

step "tools: ziglang and cargo-zigbuild (.cache/release-venv), rustup targets"
venv=$repo/.cache/release-venv
if [ ! -x "$venv/bin/cargo-zigbuild" ] || ! "$venv/bin/python" -m ziglang version >/dev/null 2>&1; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet ziglang==0.17.1 cargo-zigbuild==0.24.1 >&2 \
    || die "could not install ziglang and cargo-zigbuild from PyPI"
fi
export PATH="$venv/bin:$PATH"
targets=(x86_64-unknown-linux-musl)
for a in $archs; do targets+=("$a-unknown-linux-gnu"); done
missing=()
installed=$(rustup target list --installed)
for t in "${targets[@]}"; do grep -qx "$t" <<<"$installed" || missing+=("$t"); done
[ ${#missing[@]} -eq 0 ] || rustup target add "${missing[@]}" >&2

rm -rf "$dist"
mkdir -p "$dist"
stage=$(mktemp -d "${TMPDIR:-/tmp}/radium-release.XXXXXX")
cleanup() {
  rm -rf "$stage"
}
trap cleanup EXIT

# Node's names for an architecture (napi-rs and vsce use them).
node_arch() { case $1 in x86_64) echo x64 ;; aarch64) echo arm64 ;; *) die "unknown arch $1" ;; esac; }

# napi-rs's own build drives cargo-zigbuild, so the Node module's loader and
# types (index.js, index.d.ts) come out of the very build that ships: they
# must equal the committed ones. The other three crates go in the same cargo
# run (one feature resolution, each dependency compiled once per target).
napi=bindings/node/node_modules/.bin/napi
[ -x "$napi" ] || (cd bindings/node && npm ci --no-audit --no-fund --loglevel=error >&2) \
  || die "npm ci in bindings/node failed (the napi-rs CLI builds the Node module)"
# The Neovim module links the system's unwinder (libgcc_s.so.1) first:
# bindings/lua/build.rs says why. The library is copied alone into a folder
# of its own, so nothing else of the build machine's libc is found there.
gcc_s_of() { case $1 in x86_64) echo /lib/x86_64-linux-gnu/libgcc_s.so.1 ;; aarch64) echo /usr/aarch64-linux-gnu/lib/libgcc_s.so.1 ;; esac; }
# Symbols are kept (a panic's backtrace names its functions; valgrind's
# suppressions match them): zig's linker would strip them with the debug
# info, so cargo strips nothing and binutils' `objcopy --strip-debug` (Debian's
# binutils, binutils-aarch64-linux-gnu for aarch64) takes the
# debug info out afterwards.
export CARGO_PROFILE_RELEASE_STRIP=none
strip_debug() { # FILE ARCH
  local objcopy=objcopy
  [ "$2" = aarch64 ] && objcopy=aarch64-linux-gnu-objcopy
  "$objcopy" --strip-debug "$1" "$1.stripped" && mv "$1.stripped" "$1"
}
bash scripts/ensure-apt.sh objcopy:binutils >&2
case " $archs " in *" aarch64 "*) bash scripts/ensure-apt.sh aarch64-linux-gnu-objcopy:binutils-aarch64-linux-gnu >&2 ;; esac
for a in $archs; do
  step "build $a-unknown-linux-gnu (glibc 2.17): radium-lua, radium-cli, radium-ffi, radium-node"
  gcc_s=$(gcc_s_of "$a")
  [ -f "$gcc_s" ] || die "$gcc_s is missing (Debian: libgcc-s1$([ "$a" = aarch64 ] && echo -arm64-cross))"
  mkdir -p "$CARGO_TARGET_DIR/gcc_s/$a"
  install -m 644 "$gcc_s" "$CARGO_TARGET_DIR/gcc_s/$a/libgcc_s.so.1"
  export RADIUM_LINK_GCC_S=$CARGO_TARGET_DIR/gcc_s/$a
  napi_out=$stage/napi-$a
  mkdir -p "$napi_out"
  (cd bindings/node && CARGO_TERM_QUIET=true node_modules/.bin/napi build --platform --release --cross-compile \
    --target "$a-unknown-linux-gnu.2.17" --target-dir "$CARGO_TARGET_DIR" --output-dir "$napi_out" \
    -- -p radium-lua -p radium-cli -p radium-ffi -p radium-node) >"$stage/napi-$a.log" 2>&1 \
    || { cat "$stage/napi-$a.log" >&2; die "the $a build failed"; }
  for f in index.js index.d.ts; do
    cmp -s "$napi_out/$f" "bindings/node/$f" \
      || die "bindings/node/$f is not what the build generates: run 'RADIUM_BLESS=1 bash bindings/node/build.sh' and commit it"
  done
  out=$CARGO_TARGET_DIR/$a-unknown-linux-gnu/release
  install -m 755 "$out/libradium_native.so" "$dist/radium_native-$version-linux-$a-gnu.so"
  install -m 755 "$out/rad" "$dist/rad-$version-linux-$a-gnu"
  strip_debug "$dist/radium_native-$version-linux-$a-gnu.so" "$a"
  strip_debug "$dist/rad-$version-linux-$a-gnu" "$a"
  c=radium-c-$version-linux-$a
  mkdir -p "$stage/$c/lib/pkgconfig" "$stage/$c/include"
  install -m 644 include/radium.h "$stage/$c/include/"
  install -m 755 "$out/libradium.so" "$stage/$c/lib/"
  strip_debug "$stage/$c/lib/libradium.so" "$a"
  install -m 644 "$out/libradium.a" "$stage/$c/lib/"
  # Relocatable: the prefix is found from where radium.pc lies.
  sed -e 's|@PREFIX@|${pcfiledir}/../..|' -e "s|@VERSION@|$version|" ffi/radium.pc.in >"$stage/$c/lib/pkgconfig/radium.pc"
  tar -C "$stage" -czf "$dist/$c.tar.gz" "$c"
  install -m 755 "$napi_out/radium.linux-$(node_arch "$a")-gnu.node" "$stage/radium.linux-$(node_arch "$a")-gnu.node"
  strip_debug "$stage/radium.linux-$(node_arch "$a")-gnu.node" "$a"
  if [ -n "$host_out" ] && [ "$a" = "$host_arch" ]; then
    # The very files dist/ gets (the Node module as its package will hold
    # it); VERSION last, so DIR is whole once it is there.
    rm -rf "$host_out"
    mkdir -p "$host_out/sdk"
    install -m 755 "$dist/radium_native-$version-linux-$a-gnu.so" "$host_out/radium_native.so"
    install -m 755 "$dist/rad-$version-linux-$a-gnu" "$host_out/rad"
    install -m 755 "$stage/radium.linux-$(node_arch "$a")-gnu.node" "$host_out/"
    tar -C "$host_out/sdk" -xzf "$dist/$c.tar.gz" --strip-components=1
    echo "$version" >"$host_out/VERSION.tmp" && mv "$host_out/VERSION.tmp" "$host_out/VERSION"
    step "this machine's binaries ($a) are in $host_out"
  fi
done

step "build x86_64-unknown-linux-musl (static): rad"
unset RADIUM_LINK_GCC_S
# Only `rad`, but with the features resolved for the four crates, as in the
# glibc builds: the same `rad`, and the build's own tools (proc macros, build
# scripts: about 43 CPU-seconds) are those aarch64's build compiled, not a
# third set. (x86_64's are its own: for the machine's own triple,
# cargo-zigbuild keeps the target's linker off them with a setting cargo
# hashes into their names.)
cargo zigbuild --release --quiet --target x86_64-unknown-linux-musl \
  -p radium-lua -p radium-cli -p radium-ffi -p radium-node --bin rad >&2
install -m 755 "$CARGO_TARGET_DIR/x86_64-unknown-linux-musl/release/rad" "$dist/rad-$version-linux-x86_64-musl"
strip_debug "$dist/rad-$version-linux-x86_64-musl" x86_64

step "Node: napi-rs packages (the main one, one per platform)"
bash scripts/release-node.sh "$version" "$stage" "$dist" "$archs"

step "VS Code: one .vsix per platform"
bash scripts/release-vsix.sh "$version" "$stage" "$dist" "$archs"

step "SHA256SUMS"
(cd "$dist" && sha256sum -- * >SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
cat "$dist/SHA256SUMS" >&2
echo "release $version: $(ls "$dist" | wc -l) files in $dist"
