#!/usr/bin/env bash
# `rad mcp` benchmark: start-up time and a `view` round trip over stdio
# (release build), with a raw JSON-RPC client so the figure is the server's.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p radium-cli --quiet
python3 tests/mcp/bench_rad_mcp.py "$PWD/target/release/rad" "$@"
