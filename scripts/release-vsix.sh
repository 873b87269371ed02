#!/usr/bin/env bash
# Part of scripts/release.sh: one .vsix per platform (the rust-analyzer way),
# each carrying the native module (radium.node) and `rad` (bin/rad).
#   bash scripts/release-vsix.sh VERSION STAGE DIST "ARCHS"
# STAGE holds radium.linux-<x64|arm64>-gnu.node; DIST rad-VERSION-linux-ARCH-gnu.
# vsce (@vscode/vsce, the version scripts/ensure-vscode.sh pins) is
# installed into the same cache folder when missing; nothing else of the
# VS Code test tools (code-server, Chromium) is needed here.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 4 ] || { echo "usage: release-vsix.sh VERSION STAGE DIST ARCHS" >&2; exit 1; }
version=$1 stage=$2 dist=$3 archs=$4
vsce_version=$(sed -n 's/^VSCE_VERSION=\([^ ]*\).*/\1/p' scripts/ensure-vscode.sh)
[ -n "$vsce_version" ] || { echo "release-vsix: no VSCE_VERSION in scripts/ensure-vscode.sh" >&2; exit 1; }
vsce_dir=${RADIUM_E2E_CACHE:-$HOME/.cache/radium-e2e}/vsce-$vsce_version
VSCE=$vsce_dir/node_modules/.bin/vsce
if [ ! -x "$VSCE" ]; then
  rm -rf "$vsce_dir"
  mkdir -p "$vsce_dir"
  echo '{"name":"radium-e2e-tool","private":true}' >"$vsce_dir/package.json"
  (cd "$vsce_dir" && npm install --no-audit --no-fund --no-save --loglevel=error "@vscode/vsce@$vsce_version") >&2 \
    || { rm -rf "$vsce_dir"; echo "release-vsix: npm install @vscode/vsce@$vsce_version failed" >&2; exit 1; }
fi
# The extension is packed from a copy in STAGE: nothing is written into the
# source tree, so the tests that build and pack it there (test-node.sh,
# test-vscode-e2e.sh) can run while a release builds.
pack=$stage/vscode-pack
rm -rf "$pack"
mkdir -p "$pack"
cp -R bindings/vscode/{package.json,README.md,.vscodeignore,media} "$pack/"
[ -x bindings/vscode/node_modules/.bin/tsc ] || (cd bindings/vscode && npm ci --no-audit --no-fund --loglevel=error >&2)
bindings/vscode/node_modules/.bin/tsc -p bindings/vscode --outDir "$pack/out" >&2
cd "$pack"
for a in $archs; do
  case $a in x86_64) cpu=x64 ;; aarch64) cpu=arm64 ;; *) echo "release-vsix: unknown arch $a" >&2; exit 1 ;; esac
  install -m 755 "$stage/radium.linux-$cpu-gnu.node" radium.node
  mkdir -p bin
  install -m 755 "$dist/rad-$version-linux-$a-gnu" bin/rad
  "$VSCE" package --allow-missing-repository --skip-license --target "linux-$cpu" \
    -o "$dist/radium-$version-linux-$cpu.vsix" >"$stage/vsce-$cpu.log" 2>&1 \
    || { cat "$stage/vsce-$cpu.log" >&2; exit 1; }
  listing=$(unzip -l "$dist/radium-$version-linux-$cpu.vsix")
  for f in extension/radium.node extension/bin/rad; do
    grep -q "$f" <<<"$listing" || { echo "release-vsix: the linux-$cpu .vsix does not carry $f" >&2; exit 1; }
  done
done
