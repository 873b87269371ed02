#!/usr/bin/env bash
# The Neovim door's benchmark: a 5-hook Lua chain on a 4 KiB context, and the
# start-up time require("radium") adds (--startuptime, median of 10 runs),
# and a session's streamed chunks to a Lua handler, per chunk.
set -euo pipefail
cd "$(dirname "$0")/.."
nvim=$(bash scripts/ensure-nvim.sh)
bash bindings/lua/build.sh >/dev/null
timeout 300 "$nvim" --headless -u NONE -l bindings/lua/bench/bench.lua "${1:-2000}"
rtp="$PWD/bindings/lua"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
startup() { # prints the total start-up time in ms of one run
  "$nvim" --headless -u NONE --startuptime "$tmp/log" "$@" -c q >/dev/null 2>&1
  awk '/NVIM STARTED/ {t=$1} END {print t}' "$tmp/log"; rm -f "$tmp/log"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(for _ in $(seq 10); do startup --cmd "set rtp^=$rtp"; done | median)
with=$(for _ in $(seq 10); do startup --cmd "set rtp^=$rtp" --cmd "lua require('radium')"; done | median)
echo "startup: ${base} ms without, ${with} ms with require('radium') (median of 10)"
# A session's streamed chunks to a Lua handler on the main loop.
timeout 300 "$nvim" --headless -u NONE -l bindings/lua/bench/sessions.lua 20
