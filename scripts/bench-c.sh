#!/usr/bin/env bash
# C host benchmark: a 5-hook chain of C callbacks on a 4 KiB context, per call.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p radium-ffi --quiet
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
gcc -O2 -std=c11 -Wall -Wextra -Werror -I include tests/c/bench_radium.c -o "$out/bench" \
  -L target/release -lradium -Wl,-rpath,"$PWD/target/release"
"$out/bench" "${1:-20000}"
