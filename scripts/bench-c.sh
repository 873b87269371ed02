#!/usr/bin/env bash
# C host benchmarks: a 5-hook chain of C callbacks on a 4 KiB context, per
# call; and a session's streamed chunks to a C callback, per chunk.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p radium-ffi --quiet
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
gcc -O2 -std=c11 -Wall -Wextra -Werror -I include tests/c/bench_radium.c -o "$out/bench" \
  -L target/release -lradium -Wl,-rpath,"$PWD/target/release"
"$out/bench" "${1:-20000}"
# A session's streamed chunks to a C callback (the example ACP agent).
gcc -O2 -std=c11 -Wall -Wextra -Werror -pthread -I include tests/c/bench_sessions.c -o "$out/bench_sessions" \
  -L target/release -lradium -Wl,-rpath,"$PWD/target/release"
"$out/bench_sessions" "$PWD/examples/acp-agent/agent.mjs" 20
