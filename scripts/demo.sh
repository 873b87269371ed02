#!/usr/bin/env bash
# Builds everything and runs the main job: an end-to-end tour of the engine.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "demo: cargo is required (https://rustup.rs)" >&2; exit 1; }

echo "==> building the workspace (engine, C library, Neovim module, rad)"
cargo build --workspace --exclude radium-node --quiet
echo "==> running the demo: an editor selection sent to the bundled example agent"
cargo run --quiet -p radium-core --example demo
echo "==> an agent session: a turn with the bundled example ACP agent (examples/acp-agent)"
command -v node >/dev/null || { echo "demo: node is required for the example ACP agent" >&2; exit 1; }
cargo run --quiet -p radium-core --example session_demo
