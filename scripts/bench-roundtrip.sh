#!/usr/bin/env bash
# The send-selection round trip (before_tool: editor-context + 5 no-op hooks on
# a 4 KiB context; after_tool: code-apply on a 4 KiB answer with 3 blocks) from
# every door, beside the same two requests made by spawning `rad request`
# from that door (and from a shell).
set -euo pipefail
cd "$(dirname "$0")/.."
vectors=tests/vectors/roundtrip.txt
cargo build --release --quiet -p radium-core --example roundtrip
cargo build --release --quiet -p radium-ffi -p radium-cli
bash bindings/lua/build.sh >/dev/null
nvim=$(bash scripts/ensure-nvim.sh 2>/dev/null)
bash bindings/node/build.sh >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gcc -O2 -std=c11 -I include tests/c/bench_roundtrip.c -o "$tmp/c" -L target/release -lradium -Wl,-rpath,"$PWD/target/release"

rad=$PWD/target/release/rad
n=40   # spawning is slow: fewer iterations
rust=$(target/release/examples/roundtrip "$vectors" 3000)
rust_spawn=$(target/release/examples/roundtrip "$vectors" $n --spawn "$rad")
rust_values=$(target/release/examples/roundtrip "$vectors" 3000 --values)
c=$("$tmp/c" "$vectors" 3000)
c_spawn=$("$tmp/c" "$vectors" $n "$rad")
lua=$(timeout 300 "$nvim" --headless -u NONE -l bindings/lua/bench/roundtrip.lua "$PWD/$vectors" 1000 2>&1 | tail -1)
lua_spawn=$(timeout 300 "$nvim" --headless -u NONE -l bindings/lua/bench/roundtrip.lua "$PWD/$vectors" $n "$rad" 2>&1 | tail -1)
node=$(node bindings/node/bench/roundtrip.js "$vectors" 3000 | tail -1)
node_spawn=$(node bindings/node/bench/roundtrip.js "$vectors" $n "$rad" | tail -1)
# From a shell: two `rad request` processes per round trip.
before=$(sed -n 1p "$vectors"); after=$(sed -n 2p "$vectors")
start=$(date +%s%N)
for _ in $(seq $n); do
  "$rad" request "$before" >/dev/null
  "$rad" request "$after" >/dev/null
done
shell=$(awk -v s="$start" -v e="$(date +%s%N)" -v n=$n 'BEGIN {printf "%.1f", (e - s) / 1000 / n}')

# Each door against spawning `rad` from that same door (the 5 no-op hooks
# exist only in-process, which favours the spawning side).
ratio() { awk -v s="$1" -v u="$2" 'BEGIN { if (u + 0 > 0) printf "%.0f×", s / u; else print "-" }'; }
printf '%-34s %12s %16s %9s %12s\n' "door (µs per round trip)" "in-process" "spawning rad" "ratio" "vs shell"
row() { printf '%-34s %12s %16s %9s %12s\n' "$1" "$2" "$3" "$(ratio "$3" "$2")" "$(ratio "$shell" "$2")"; }
row "Rust API on parsed values" "$rust_values" "$rust_spawn"
row "Rust, handle_json_text" "$rust" "$rust_spawn"
row "C, radium_request" "$c" "$c_spawn"
row "Lua in Neovim, engine:request" "$lua" "$lua_spawn"
row "Node, engine.request" "$node" "$node_spawn"
printf '%-34s %12s %16s\n' "shell (bash runs rad twice)" "-" "$shell"
