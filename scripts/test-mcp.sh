#!/usr/bin/env bash
# `rad mcp` driven by a real MCP client: the reference Python client (PyPI
# `mcp` 2.x, installed by scripts/ensure-mcp.sh into a cache) over stdio.
# Each test starts its own server in a fresh workspace and RADIUM_HOME.
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(bash scripts/ensure-mcp.sh)
cargo build --workspace --bins --quiet   # --workspace: the test build's features, nothing compiled again
timeout 600 "$python" tests/mcp/test_rad_mcp.py "$PWD/target/debug/rad"
