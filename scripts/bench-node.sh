#!/usr/bin/env bash
# The Node door's benchmark: a 5-hook JS chain on a 4 KiB context, per call,
# for execute() and executeAsync() (release build of the addon); and a
# session's streamed chunks to the JS thread, per chunk.
#   bash scripts/bench-node.sh [iterations]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "bench-node: node is required" >&2; exit 1; }
if [ ! -x bindings/node/node_modules/.bin/napi ]; then
  (cd bindings/node && { npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error; })
fi
bash bindings/node/build.sh >/dev/null
node --version
timeout 600 node bindings/node/bench/bench.js "${1:-20000}"
# A session's streamed chunks to the JS thread.
timeout 300 node bindings/node/bench/sessions.js 20
