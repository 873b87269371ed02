#!/usr/bin/env bash
# The C ABI tested as hosts use it: the header compiled alone (C and C++),
# exported symbols, the C and C++ test programs linked against the shared and
# the static library (found through pkg-config), each run under valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-apt.sh valgrind:valgrind pkg-config:pkg-config gcc:gcc g++:g++ nm:binutils

# Every valgrind run uses --fair-sched=yes: valgrind runs one thread at a
# time, and without a fair lock a thread that waits by spinning (the
# engine's runtime, a parked worker) can keep the others from running: the
# static C test took 2 s to 12 min (measured 2026-11-26), 2.5 s every time
# with it.
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
bash scripts/install-c.sh "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cflags=$(pkg-config --cflags radium)
libs=$(pkg-config --libs radium)
warn=(-Wall -Wextra -Werror)

echo "--- header compiles alone"
echo '#include "radium.h"' | gcc -std=c11 "${warn[@]}" -pedantic $cflags -x c -fsyntax-only -
echo '#include "radium.h"' | g++ -std=c++17 "${warn[@]}" -pedantic $cflags -x c++ -fsyntax-only -

echo "--- exported symbols are only radium_*"
others=$(nm -D --defined-only "$prefix/lib/libradium.so" | awk '{print $NF}' | grep -v '^radium_' || true)
if [ -n "$others" ]; then echo "unexpected exported symbols:"; echo "$others"; exit 1; fi
nm -D --defined-only "$prefix/lib/libradium.so" | grep -c ' radium_' | sed 's/^/radium_ symbols: /'

build() { # name compiler std source
  local name=$1 cc=$2 std=$3 src=$4
  $cc -std="$std" "${warn[@]}" -pthread $cflags "$src" -o "$work/$name-shared" $libs -Wl,-rpath,"$prefix/lib"
  $cc -std="$std" "${warn[@]}" -pthread $cflags "$src" -o "$work/$name-static" "$prefix/lib/libradium.a" -lpthread -ldl -lm
  if ldd "$work/$name-static" | grep -q libradium; then echo "$name-static links libradium.so"; exit 1; fi
}
build c gcc c11 tests/c/test_radium.c
gcc -std=c11 "${warn[@]}" $cflags tests/c/vectors.c -o "$work/vectors" $libs -Wl,-rpath,"$prefix/lib"
build cpp g++ c++17 tests/cpp/test_radium.cpp
gcc -std=c11 "${warn[@]}" -pthread $cflags tests/c/test_hardening.c -o "$work/hardening" $libs -Wl,-rpath,"$prefix/lib"
gcc -std=c11 "${warn[@]}" -pthread $cflags tests/c/test_sessions.c -o "$work/sessions" $libs -Wl,-rpath,"$prefix/lib"
gcc -std=c11 "${warn[@]}" $cflags tests/c/test_code.c -o "$work/code" $libs -Wl,-rpath,"$prefix/lib"

echo "--- the README's C example"
awk '/^```c$/{on=1;next} /^```$/{on=0} on' README.md > "$work/readme.c"
gcc -std=c11 "${warn[@]}" $cflags "$work/readme.c" -o "$work/readme-example" $libs -Wl,-rpath,"$prefix/lib"
"$work/readme-example" | grep -q '"stopped_by":{"hook":"guard"' || { echo "README example output changed"; "$work/readme-example"; exit 1; }

echo "--- shared vectors and an agent step through the C JSON door"
valgrind -q --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
  --suppressions=tests/c/valgrind.supp "$work/vectors" tests/vectors/requests.txt "$PWD/examples/agents/example-agent.sh"

echo "--- inputs that once crashed a C host (deep JSON, SIGPIPE) under valgrind"
valgrind -q --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
  --suppressions=tests/c/valgrind.supp "$work/hardening" "$(command -v true)"

echo "--- an agent session from C (events on a callback) under valgrind"
valgrind -q --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
  --suppressions=tests/c/valgrind.supp "$work/sessions" "$PWD/examples/acp-agent/agent.mjs"

echo "--- code intelligence from C (a language server the engine starts and stops) under valgrind"
valgrind -q --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
  --suppressions=tests/c/valgrind.supp "$work/code" "$PWD/tests/lsp/scripted_server.py"

status=0
for bin in c-shared c-static cpp-shared cpp-static readme-example; do
  echo "--- $bin under valgrind"
  if ! valgrind -q --fair-sched=yes --leak-check=full --show-leak-kinds=definite,indirect,possible \
       --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
       --suppressions=tests/c/valgrind.supp "$work/$bin"; then
    echo "FAILED: $bin"; status=1
  fi
done
exit $status
