#!/usr/bin/env bash
# The send-selection round trip (before_tool: editor-context + 5 no-op hooks on
# a 4 KiB context; after_tool: code-apply on a 4 KiB answer with 3 blocks) from
# every door, beside spawning `rad request` twice per round trip.
set -euo pipefail
cd "$(dirname "$0")/.."
vectors=tests/vectors/roundtrip.txt
cargo build --release --quiet -p radium-core --example roundtrip
cargo build --release --quiet -p radium-ffi -p radium-cli
bash bindings/lua/build.sh >/dev/null
nvim=$(bash scripts/ensure-nvim.sh 2>/dev/null)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gcc -O2 -std=c11 -I include tests/c/bench_roundtrip.c -o "$tmp/c" -L target/release -lradium -Wl,-rpath,"$PWD/target/release"

rust=$(target/release/examples/roundtrip "$vectors" 3000)
rust_values=$(target/release/examples/roundtrip "$vectors" 3000 --values)
c=$("$tmp/c" "$vectors" 3000)
lua=$(timeout 300 "$nvim" --headless -u NONE -l bindings/lua/bench/roundtrip.lua "$PWD/$vectors" 1000 2>&1 | tail -1)
node="n/a"
if [ -f bindings/node/bench/roundtrip.js ] && ls bindings/node/*.node >/dev/null 2>&1; then
  node=$(node bindings/node/bench/roundtrip.js "$vectors" 3000 | tail -1)
fi
# Spawning: two `rad request` processes per round trip (the 5 no-op hooks
# exist only in-process, which favours the spawning side).
before=$(sed -n 1p "$vectors"); after=$(sed -n 2p "$vectors")
n=40
start=$(date +%s%N)
for _ in $(seq $n); do
  target/release/rad request "$before" >/dev/null
  target/release/rad request "$after" >/dev/null
done
spawn=$(awk -v s="$start" -v e="$(date +%s%N)" -v n=$n 'BEGIN {printf "%.1f", (e - s) / 1000 / n}')

printf '%-28s %14s %10s\n' "door" "µs/round trip" "vs spawn"
for row in "Rust API (parsed values):$rust_values" "Rust (JSON text in/out):$rust" "C (radium_request):$c" "Lua in Neovim:$lua" "Node:$node" "spawning rad (2 per trip):$spawn"; do
  name=${row%%:*}; us=${row##*:}
  ratio=$(awk -v s="$spawn" -v u="$us" 'BEGIN { if (u + 0 > 0) printf "%.0f×", s / u; else print "-" }')
  printf '%-28s %14s %10s\n' "$name" "$us" "$ratio"
done
