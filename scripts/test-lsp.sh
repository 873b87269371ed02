#!/usr/bin/env bash
# Code intelligence against real language servers: jedi-language-server
# (PyPI) and typescript-language-server 5.3.0 with TypeScript 5.9 (npm),
# installed into a cache by scripts/ensure-lsp.sh; then `rad read-var`,
# `rad modify-var`, `rad rename-file` and `rad lsp list` through the daemon.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(bash scripts/ensure-lsp.sh)
RADIUM_LSP_BIN=$bin cargo test --workspace --test code --quiet -- --ignored --test-threads 2

# The same through `rad`, with the servers on PATH as a user has them.
cargo build --workspace --bins --quiet   # --workspace: the test build's features, nothing compiled again
rad=$PWD/target/debug/rad
work=$(mktemp -d)
export RADIUM_HOME=$work/home RADIUM_DAEMON_IDLE=60
trap '"$rad" shutdown >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mkdir -p "$work/p/shop"
cd "$work/p"
: > shop/__init__.py
printf '# total: the sum\ntotal = 10\n\n\ndef add(n):\n    return total + n\n' > shop/prices.py
printf 'from shop.prices import total, add\n\nprint("total", add(total))\n' > cart.py
fail() { echo "test-lsp: $*" >&2; exit 1; }
PATH=$bin:$PATH
# Python servers run the workspace's interpreter: untrusted, the syntax
# fallback answers and says why.
out=$("$rad" read-var cart.py --var total 2>&1)
grep -q 'jedi-language-server` is not started' <<<"$out" || fail "untrusted read-var: $out"
"$rad" trust >/dev/null
out=$("$rad" lsp list)
grep -q '^python .*jedi-language-server .*installed' <<<"$out" || fail "lsp list: $out"
out=$("$rad" read-var cart.py --var total)
grep -q '^engine: lsp (jedi-language-server)' <<<"$out" || fail "read-var: $out"
grep -q '^--- definition (line 2) --- shop/prices.py' <<<"$out" || fail "read-var: $out"
grep -q '^cart.py:3:20: print' <<<"$out" || fail "read-var: $out"
"$rad" lsp list | grep -q '^python .*running (pid' || fail "the server does not stay warm in the daemon"
"$rad" modify-var shop/prices.py --from total --to grand_total >/dev/null
grep -q 'print("total", add(grand_total))' cart.py || fail "modify-var: $(cat cart.py)"
"$rad" rename-file shop/prices.py shop/pricing.py >/dev/null
grep -q '^from shop.pricing import grand_total, add' cart.py || fail "rename-file: $(cat cart.py)"
"$rad" undo >/dev/null && "$rad" undo >/dev/null
[ -f shop/prices.py ] && grep -q '^from shop.prices import total, add' cart.py || fail "undo: $(cat cart.py)"
"$rad" read-var cart.py --var nothing 2>"$work/err" && fail "a missing name exits 0"
grep -q 'does not occur' "$work/err" || fail "read-var error: $(cat "$work/err")"
echo "real language servers: ok"
