#!/usr/bin/env bash
# Part of scripts/release.sh: packs the Node module the napi-rs way.
#   bash scripts/release-node.sh VERSION STAGE DIST "ARCHS"
# STAGE holds radium.linux-<x64|arm64>-gnu.node (built by release.sh). Writes
# into DIST, with `npm pack`:
#   radium-node-linux-<x64|arm64>-gnu-VERSION.tgz  one package per platform
#     (os/cpu/libc set, so npm installs only the one that fits);
#   radium-node-VERSION.tgz  the main package: the loader (index.js), the types,
#     and the platform packages as optionalDependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 4 ] || { echo "usage: release-node.sh VERSION STAGE DIST ARCHS" >&2; exit 1; }
version=$1 stage=$2 dist=$3 archs=$4
pkgs=()
for a in $archs; do
  case $a in x86_64) cpu=x64 ;; aarch64) cpu=arm64 ;; *) echo "release-node: unknown arch $a" >&2; exit 1 ;; esac
  name=radium-node-linux-$cpu-gnu
  dir=$stage/npm/$name
  mkdir -p "$dir"
  install -m 755 "$stage/radium.linux-$cpu-gnu.node" "$dir/"
  node -e '
    const [name, version, cpu] = process.argv.slice(1)
    const pkg = {
      name, version,
      description: `radium for Node.js: the native module for Linux ${cpu} (glibc 2.17 or newer).`,
      license: "MIT OR Apache-2.0",
      os: ["linux"], cpu: [cpu], libc: ["glibc"],
      main: `radium.linux-${cpu}-gnu.node`,
      files: [`radium.linux-${cpu}-gnu.node`],
      engines: { node: ">=20" },
    }
    require("fs").writeFileSync(process.argv[4], JSON.stringify(pkg, null, 2) + "\n")
  ' "$name" "$version" "$cpu" "$dir/package.json"
  pkgs+=("$name")
  (cd "$dir" && npm pack --silent --pack-destination "$dist" >/dev/null)
done
main=$stage/npm/radium-node
mkdir -p "$main"
cp bindings/node/{index.js,index.d.ts,session.js,session.d.ts,README.md} "$main/"
node -e '
  const fs = require("fs")
  const [src, dst, version, ...platforms] = process.argv.slice(1)
  const pkg = JSON.parse(fs.readFileSync(src, "utf8"))
  delete pkg.private
  delete pkg.scripts
  delete pkg.devDependencies
  pkg.version = version
  pkg.files = pkg.files.filter((f) => !f.endsWith(".node"))
  pkg.optionalDependencies = Object.fromEntries(platforms.map((p) => [p, version]))
  const triple = { x64: "x86_64-unknown-linux-gnu", arm64: "aarch64-unknown-linux-gnu" }
  pkg.napi.targets = platforms.map((p) => triple[p.split("-")[3]])
  fs.writeFileSync(dst, JSON.stringify(pkg, null, 2) + "\n")
' bindings/node/package.json "$main/package.json" "$version" "${pkgs[@]}"
(cd "$main" && npm pack --silent --pack-destination "$dist" >/dev/null)
ls "$dist"/radium-node-*.tgz >&2
