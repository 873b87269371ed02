#!/usr/bin/env bash
# Code-intelligence figures for BENCHMARKS.md, through `rad` (the daemon
# keeps the servers warm between calls), on a fixture project per server:
#   - cold: the first read-var (the server starts, initializes, answers);
#   - warm: the median of 20 read-vars with the server running;
#   - the server's memory (VmRSS) after them;
#   - the syntax fallback (--engine syntax) on a 10 MB tree of Python.
# Usage: bash scripts/bench-lsp.sh   (installs the servers with ensure-lsp.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(bash scripts/ensure-lsp.sh)
cargo build -p radium-cli --release --quiet
rad=$PWD/target/release/rad
work=$(mktemp -d)
export RADIUM_HOME=$work/home PATH=$bin:$PATH
trap '"$rad" shutdown >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
now() { date +%s%N; }
ms() { echo "$(( ($(date +%s%N) - $1) / 100000 ))" | sed 's/.$/.&/'; }

measure() { # name dir file var
  local name=$1 dir=$2 file=$3 var=$4 t
  cd "$dir"
  t=$(now); "$rad" read-var "$file" --var "$var" --json >/dev/null; local cold; cold=$(ms "$t")
  local times=()
  for _ in $(seq 20); do
    t=$(now); "$rad" read-var "$file" --var "$var" --json >/dev/null; times+=("$(ms "$t")")
  done
  local median; median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 10p)
  local pid; pid=$("$rad" lsp list --json | python3 -c 'import json,sys; print([s["pid"] for s in json.load(sys.stdin)["servers"] if s["running"]][0])')
  local rss; rss=$(awk '/VmRSS/{print $2}' "/proc/$pid/status")
  # The server's children (tsserver) count too.
  for child in $(pgrep -g "$pid" || true); do
    [ "$child" = "$pid" ] || rss=$((rss + $(awk '/VmRSS/{print $2}' "/proc/$child/status" 2>/dev/null || echo 0)))
  done
  printf '%-28s cold %7s ms   warm (median of 20) %6s ms   memory %6s MiB\n' "$name" "$cold" "$median" "$((rss / 1024))"
  cd - >/dev/null
}

py=$work/py; mkdir -p "$py/shop"; : > "$py/shop/__init__.py"
printf '# total\ntotal = 10\n\n\ndef add(n):\n    return total + n\n' > "$py/shop/prices.py"
for i in $(seq 30); do printf 'from shop.prices import total, add\n\n\ndef f%d():\n    return add(total)\n' "$i" > "$py/m$i.py"; done
measure "jedi-language-server" "$py" m1.py total

ts=$work/ts; mkdir -p "$ts/src"
echo '{"compilerOptions": {"strict": true}, "include": ["src"]}' > "$ts/tsconfig.json"
printf 'export const count = 1;\nexport function bump(n: number) { return count + n; }\n' > "$ts/src/math.ts"
for i in $(seq 30); do printf 'import { count, bump } from "./math";\nexport const v%d = bump(count);\n' "$i" > "$ts/src/m$i.ts"; done
measure "typescript-language-server" "$ts" src/m1.ts count
"$rad" shutdown >/dev/null 2>&1 || true

big=$work/big; mkdir -p "$big"
python3 - "$big" <<'PY'
import os, sys
root = sys.argv[1]
body = "".join(f"def fn{i}(total, x):\n    # total of x, fn7 in a comment\n    return total + x * {i}\n\n" for i in range(200))
size = 0; n = 0
while size < 10 * 1024 * 1024:
    d = os.path.join(root, f"pkg{n // 100}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"m{n}.py"), "w") as f:
        f.write(body)
    size += len(body); n += 1
print(f"syntax tree fixture: {n} files, {size / 1048576:.1f} MiB", file=sys.stderr)
PY
cd "$big"
t=$(now); n=$("$rad" read-var pkg0/m0.py --var fn7 --engine syntax --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["occurrences"]))'); took=$(ms "$t")
printf '%-28s %s occurrences in %s ms\n' "syntax fallback, 10 MB" "$n" "$took"
