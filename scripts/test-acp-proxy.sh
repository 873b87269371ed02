#!/usr/bin/env bash
# test-acp-proxy.sh — `rad acp` driven by the official ACP TypeScript SDK
# (@agentclientprotocol/sdk 1.x, from the cache scripts/ensure-acp-sdk.sh
# fills) as an editor drives it, with the example ACP agent behind it:
# tests/acp-proxy/proxy.test.mjs (each test cut at 3 minutes, its `rad acp`
# children ended whatever happens). Builds `rad` first (RADIUM_PROFILE=release
# for a release build; the default is debug).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${RADIUM_PROFILE:-debug}
if [ "$profile" = release ]; then
  cargo build -q -p radium-cli --release
else
  cargo build -q --workspace --bins   # --workspace: the test build's features, nothing compiled again
fi
modules=$(bash scripts/ensure-acp-sdk.sh | sed -n 's/^sdk_modules=//p')
RAD="target/$profile/rad" ACP_SDK_MODULES="$modules" \
  node --test --test-concurrency=1 tests/acp-proxy/proxy.test.mjs
# The relay's benchmark, once in test mode (a second or two).
RAD="target/$profile/rad" ACP_SDK_MODULES="$modules" \
  node tests/acp-proxy/bench.mjs --quick
