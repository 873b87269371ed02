#!/usr/bin/env bash
# bench-acp.sh — what `rad acp` adds to each message it relays, against the
# agent alone (tests/acp-proxy/bench.mjs: the official ACP TypeScript SDK as
# the editor, the example agent), and the resident size of `rad acp` over
# relayed updates. Release build; `--quick` for a short run.
#
# --floor: the same bench with, in place of `rad acp`, a relay that does
# nothing but pass bytes both ways (tests/acp-proxy/floor-relay.c, built
# with gcc): what any process in between costs on this machine. Its lines
# are printed under rad acp's names.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --floor ]; then
  shift
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  gcc -O2 -Wall -pthread -o "$tmp/floor-relay" tests/acp-proxy/floor-relay.c
  printf '#!/bin/sh\nexec "%s" node "%s"\n' "$tmp/floor-relay" "$PWD/examples/acp-agent/agent.mjs" >"$tmp/rad"
  chmod +x "$tmp/rad"
  modules=$(bash scripts/ensure-acp-sdk.sh | sed -n 's/^sdk_modules=//p')
  uptime
  RAD=$tmp/rad ACP_SDK_MODULES="$modules" node tests/acp-proxy/bench.mjs "$@"
  exit
fi
cargo build --release -q -p radium-cli
modules=$(bash scripts/ensure-acp-sdk.sh | sed -n 's/^sdk_modules=//p')
uptime
RAD=target/release/rad ACP_SDK_MODULES="$modules" node tests/acp-proxy/bench.mjs "$@"
