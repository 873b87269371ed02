#!/usr/bin/env bash
# The send-selection round trip (before_tool: editor-context + 5 no-op hooks on
# a 4 KiB context; after_tool: code-apply on a 4 KiB answer with 3 blocks) from
# every door, beside the same two requests made by spawning `rad request`
# from that door (and from a shell), twice: with the same 5 hooks as the
# script hooks of an extension (the same work: a spawned `rad` can run an
# editor's hooks only as processes, as the original editor integration did),
# and with no hooks at all (less work than in-process).
#
# First, the doors against each other, in turns in one run: each turn runs
# every door's program (in-process only, 15 rounds, best round) one after the
# other, the order rotating from turn to turn, so every door samples the same
# minutes of this machine. The table gives each door's best and median turn
# and its ratio to the Rust API on parsed values of the same run (the goals:
# C, Lua and Node <= 2x, Rust JSON text <= 1.5x).
#
#   bash scripts/bench-roundtrip.sh [--doors]   (--doors: skip the spawning part)
#   TURNS=9 bash scripts/bench-roundtrip.sh     (turns; default 7)
set -euo pipefail
doors_only=0
[ "${1:-}" = --doors ] && doors_only=1
cd "$(dirname "$0")/.."
vectors=$PWD/tests/vectors/roundtrip.txt
cargo build --release --quiet -p radium-core --example roundtrip
cargo build --release --quiet -p radium-ffi -p radium-cli
bash bindings/lua/build.sh >/dev/null
nvim=$(bash scripts/ensure-nvim.sh 2>/dev/null)
bash bindings/node/build.sh >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gcc -O2 -std=c11 -I include tests/c/bench_roundtrip.c -o "$tmp/c" -L target/release -lradium -Wl,-rpath,"$PWD/target/release"

repo=$PWD
bare_home=$tmp/bare
mkdir -p "$bare_home" "$tmp/ws"

# The doors in turns. Each program prints its in-process figure(s) (Rust:
# JSON text, then parsed values) when given no spawning arguments.
turns=${TURNS:-7}
per_turn=3000
run_door() {
  case $1 in
    rust) "$repo/target/release/examples/roundtrip" "$vectors" $per_turn ;;
    c) "$tmp/c" "$vectors" $per_turn ;;
    lua) timeout 600 "$nvim" --headless -u NONE -l "$repo/bindings/lua/bench/roundtrip.lua" "$vectors" $per_turn 2>&1 | tail -1 | tr -d '\r' ;;
    node) node "$repo/bindings/node/bench/roundtrip.js" "$vectors" $per_turn | tail -1 ;;
  esac
}
order=(rust c lua node)
: >"$tmp/turns"
for t in $(seq 0 $((turns - 1))); do
  for k in 0 1 2 3; do
    door=${order[$(((t + k) % 4))]}
    figures=$(cd "$tmp/ws" && RADIUM_HOME=$bare_home run_door "$door")
    [[ $figures =~ ^[0-9] ]] || { echo "no figure from the $door door: $figures" >&2; exit 1; }
    case $door in
      rust) read -r json values <<<"$figures"
        echo "$t rust_json $json" >>"$tmp/turns"
        echo "$t rust_values $values" >>"$tmp/turns" ;;
      *) echo "$t $door $figures" >>"$tmp/turns" ;;
    esac
  done
done
# Per door: best turn, median turn, their ratios to Rust on parsed values,
# and the median of the per-turn ratios (each turn's figure over that turn's
# Rust-values figure).
echo "The doors in turns ($turns turns, µs per round trip; ratio to the Rust API on parsed values):"
awk '
  { v[$2, $1] = $3 + 0; if (!($2 in seen)) { seen[$2] = 1; names[++n] = $2 }; t = $1 + 1 > t ? $1 + 1 : t }
  function median(a, m,   i, j, x) {
    for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  function stats(d,   i, a, r) {
    best[d] = 1e300
    for (i = 0; i < t; i++) { a[i + 1] = v[d, i]; if (v[d, i] < best[d]) best[d] = v[d, i]; r[i + 1] = v[d, i] / v["rust_values", i] }
    med[d] = median(a, t); mratio[d] = median(r, t)
  }
  END {
    label["rust_values"] = "Rust API on parsed values"; goal["rust_values"] = 0
    label["rust_json"] = "Rust, handle_json_text"; goal["rust_json"] = 1.5
    label["c"] = "C, radium_request"; goal["c"] = 2
    label["lua"] = "Lua in Neovim, engine:request"; goal["lua"] = 2
    label["node"] = "Node, engine.request"; goal["node"] = 2
    split("rust_values rust_json c lua node", ds, " ")
    for (i = 1; i <= 5; i++) stats(ds[i])
    printf "%-31s %8s %8s %11s %13s %13s %6s\n", "door", "best", "median", "best ratio", "median ratio", "turn ratio*", "goal"
    for (i = 1; i <= 5; i++) {
      d = ds[i]; rb = best[d] / best["rust_values"]; rm = med[d] / med["rust_values"]
      g = goal[d] ? sprintf("<=%.1fx %s", goal[d], mratio[d] <= goal[d] ? "met" : "NOT met") : "-"
      printf "%-31s %8.1f %8.1f %10.2fx %12.2fx %12.2fx   %s\n", label[d], best[d], med[d], rb, rm, mratio[d], g
    }
    print "* the median over turns of the door over that turn'"'"'s Rust-values figure"
  }' "$tmp/turns"
[ "$doors_only" = 1 ] && exit 0
echo

rad=$PWD/target/release/rad
n=60   # spawning is slow: fewer iterations (15 rounds of 4)

# Two homes for the spawned `rad`: one with no extension, one with an
# extension whose 5 before_tool hooks are the cheapest script there is
# (`sh` that exits 0: "continue"). Each spawn runs in an empty workspace.
mkdir -p "$tmp/hooked" "$tmp/noop/hooks"
printf '{"name": "noop", "version": "1.0.0", "components": {"hooks": ["hooks/*.toml"]}}\n' >"$tmp/noop/radium-extension.json"
printf '#!/bin/sh\nexit 0\n' >"$tmp/noop/noop.sh"
chmod +x "$tmp/noop/noop.sh"
for i in 1 2 3 4 5; do
  printf '[[hooks]]\nname = "noop-%s"\ntype = "before_tool"\nscript = "noop.sh"\n\n' "$i"
done >"$tmp/noop/hooks/noop.toml"
RADIUM_HOME=$tmp/hooked "$rad" ext install "$tmp/noop" >/dev/null
hooks=$(cd "$tmp/ws" && RADIUM_HOME=$tmp/hooked "$rad" request "$(sed -n 1p "$vectors")" | grep -o '"name":"noop-[0-9]","status":"continued"' | wc -l)
[ "$hooks" = 5 ] || { echo "the spawned rad did not run the 5 script hooks ($hooks)" >&2; exit 1; }

# Each program measures in-process and spawning (with each home) in turns,
# 15 rounds, best round each, so both sides sample the same moments. The
# in-process engines see the bare home (no extensions).
export RADIUM_HOME=$bare_home
spawn_args=("$rad" "$tmp/hooked" "$tmp/bare" $n)
read -r rust rust_values rust_hooked rust_bare < <(cd "$tmp/ws" && "$repo/target/release/examples/roundtrip" "$vectors" 3000 "${spawn_args[@]}")
read -r c c_hooked c_bare < <(cd "$tmp/ws" && "$tmp/c" "$vectors" 3000 "${spawn_args[@]}")
read -r lua lua_hooked lua_bare < <(cd "$tmp/ws" && timeout 600 "$nvim" --headless -u NONE -l "$repo/bindings/lua/bench/roundtrip.lua" "$vectors" 2000 "${spawn_args[@]}" 2>&1 | tail -1)
read -r node node_hooked node_bare < <(cd "$tmp/ws" && node "$repo/bindings/node/bench/roundtrip.js" "$vectors" 3000 "${spawn_args[@]}" | tail -1)
# From a shell: two `rad request` processes per round trip.
before=$(sed -n 1p "$vectors"); after=$(sed -n 2p "$vectors")
for home in hooked bare; do
  start=$(date +%s%N)
  for _ in $(seq $n); do
    (cd "$tmp/ws" && RADIUM_HOME=$tmp/$home "$rad" request "$before" >/dev/null)
    (cd "$tmp/ws" && RADIUM_HOME=$tmp/$home "$rad" request "$after" >/dev/null)
  done
  declare "shell_$home=$(awk -v s="$start" -v e="$(date +%s%N)" -v n=$n 'BEGIN {printf "%.1f", (e - s) / 1000 / n}')"
done
for v in rust rust_values c lua node rust_hooked c_hooked lua_hooked node_hooked rust_bare c_bare lua_bare node_bare; do
  [ -n "${!v:-}" ] || { echo "no figure for $v" >&2; exit 1; }
done

# Each door against spawning `rad` from that same door.
ratio() { awk -v s="$1" -v u="$2" 'BEGIN { if (u + 0 > 0) printf "%.0f×", s / u; else print "-" }'; }
printf '%-31s %10s | %-25s | %-25s\n' "" "" "spawning rad, 5 script hooks" "spawning rad, no hooks"
printf '%-31s %10s | %-25s | %-25s\n' "door (µs per round trip)" "in-process" "   (the same work) : ratio" "   (less work)   : ratio"
row() { printf '%-31s %10s | %17s %7s | %17s %7s\n' "$1" "$2" "$3" "$(ratio "$3" "$2")" "$4" "$(ratio "$4" "$2")"; }
row "Rust API on parsed values" "$rust_values" "$rust_hooked" "$rust_bare"
row "Rust, handle_json_text" "$rust" "$rust_hooked" "$rust_bare"
row "C, radium_request" "$c" "$c_hooked" "$c_bare"
row "Lua in Neovim, engine:request" "$lua" "$lua_hooked" "$lua_bare"
row "Node, engine.request" "$node" "$node_hooked" "$node_bare"
row "(shell: bash runs rad twice)" "-" "$shell_hooked" "$shell_bare"
