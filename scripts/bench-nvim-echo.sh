#!/usr/bin/env bash
# Key-echo delay of a real Neovim TUI (on a pseudo-terminal) while a chat
# answer floods in from the example ACP agent, drawn by radium and by two
# pure-Lua ACP clients (bindings/lua/bench/lua_client.lua), in turns in one
# run: the turn's time, the echo p50/p99/max and the Neovim server's CPU
# time (total and main thread). Figures in BENCHMARKS.md ("Neovim: key echo
# while an answer streams").
#   bash scripts/bench-nvim-echo.sh [path/to/nvim] [--rounds N] [--load] [--clients radium,percall,joined] [a b c d]
# --load keeps every core busy (busy loops) for the run; the client
# radium-before draws with the plugin copied to $RADIUM_BEFORE (a build
# before a change). The cases: bindings/lua/bench/echo.py.
set -euo pipefail
cd "$(dirname "$0")/.."
nvim=$(bash scripts/ensure-nvim.sh)
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ] && [ -x "$1" ]; then
  nvim=$1
  shift
fi
python3 -u bindings/lua/bench/echo.py "$nvim" "$@"
