#!/usr/bin/env bash
# bench-acp.sh — what `rad acp` adds to each message it relays, against the
# agent alone (tests/acp-proxy/bench.mjs: the official ACP TypeScript SDK as
# the editor, the example agent), and the resident size of `rad acp` over
# relayed updates. Release build; `--quick` for a short run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p radium-cli
modules=$(bash scripts/ensure-acp-sdk.sh | sed -n 's/^sdk_modules=//p')
uptime
RAD=target/release/rad ACP_SDK_MODULES="$modules" node tests/acp-proxy/bench.mjs "$@"
