#!/usr/bin/env bash
# Builds everything and runs the main job: an end-to-end tour of the engine.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "demo: cargo is required (https://rustup.rs)" >&2; exit 1; }

echo "==> building the workspace (engine, C library, Neovim and Node modules, rad, the examples)"
# One cargo run over the whole workspace: the same feature resolution as the
# tests' build (scripts/test.sh), so nothing is compiled twice; the examples
# are then run from the build (`cargo run -p` would resolve features for one
# package and compile the engine again).
cargo build --workspace --lib --bins --examples --quiet
examples=${CARGO_TARGET_DIR:-target}/debug/examples
echo "==> running the demo: an editor selection sent to the bundled example agent"
"$examples/demo"
echo "==> an agent session: a turn with the bundled example ACP agent (examples/acp-agent)"
command -v node >/dev/null || { echo "demo: node is required for the example ACP agent" >&2; exit 1; }
"$examples/session_demo"
