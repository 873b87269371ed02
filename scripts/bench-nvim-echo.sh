#!/usr/bin/env bash
# Key-echo delay of a real Neovim TUI (on a pseudo-terminal) while a chat
# answer streams at a high rate from the example ACP agent, against the
# same Neovim idle. Figures in BENCHMARKS.md ("Neovim: key echo while an
# answer streams").
#   bash scripts/bench-nvim-echo.sh [path/to/nvim]
set -euo pipefail
cd "$(dirname "$0")/.."
nvim=${1:-$(bash scripts/ensure-nvim.sh)}
echo "== 400000 chunks of 64 B (25.6 MB)"
python3 bindings/lua/bench/echo.py "$nvim" 400000 64 300
echo "== 200000 chunks of 1 KiB (205 MB)"
python3 bindings/lua/bench/echo.py "$nvim" 200000 1024 300
