#!/usr/bin/env bash
# The VS Code extension end to end, in a real VS Code (code-server 4.100.3 =
# VS Code 1.100.3) driven by a real browser (headless Chromium, Playwright):
#   1. installs what is missing (scripts/ensure-vscode.sh, into
#      ${RADIUM_E2E_CACHE:-$HOME/.cache/radium-e2e});
#   2. builds the addon, the extension's .vsix (carrying the native module)
#      and the e2e hook extension's .vsix;
#   3. installs both into a fresh code-server (fresh user data, extensions
#      and XDG folders, a temporary workspace and RADIUM_HOME with agents.toml)
#      on 127.0.0.1 at a free port;
#   4. runs bindings/vscode/e2e/run.js, which drives the UI and asserts;
#      screenshots go to target/vscode-e2e/.
# Exits non-zero when any step fails; stops every server and browser it
# started, also on failure. RADIUM_E2E_KEEP=1 keeps the scratch folder;
# RADIUM_E2E_NO_BUILD=1 skips the addon's build and uses the one built before.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)

step() { printf '\n==> %s\n' "$*"; }
die() { echo "test-vscode-e2e: $*" >&2; exit 1; }
started=$(date +%s)

step "tools (scripts/ensure-vscode.sh)"
tools=$(bash scripts/ensure-vscode.sh) || die "scripts/ensure-vscode.sh failed"
CODE_SERVER=$(sed -n 's/^CODE_SERVER=//p' <<<"$tools")
VSCE=$(sed -n 's/^VSCE=//p' <<<"$tools")
PLAYWRIGHT_CORE=$(sed -n 's/^PLAYWRIGHT_CORE=//p' <<<"$tools")
CHROMIUM=$(sed -n 's/^CHROMIUM=//p' <<<"$tools")
for v in CODE_SERVER VSCE PLAYWRIGHT_CORE CHROMIUM; do
  [ -n "${!v}" ] || die "scripts/ensure-vscode.sh did not report $v"
done

out="$repo/target/vscode-e2e"
rm -rf "$out"
mkdir -p "$out"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/radium-vscode-e2e.XXXXXX")
server_pid=""
cleanup() {
  local rc=$?
  rm -f "$repo/bindings/vscode/radium.node"
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 -- "-$server_pid" 2>/dev/null || true
  fi
  [ -f "$scratch/code-server.log" ] && cp "$scratch/code-server.log" "$out/code-server.log"
  if [ "${RADIUM_E2E_KEEP:-}" = 1 ]; then echo "scratch kept: $scratch"; else rm -rf "$scratch"; fi
  if [ $rc -ne 0 ]; then echo "test-vscode-e2e: FAILED (screenshots and logs in target/vscode-e2e/)" >&2; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "build: the addon, the extension's .vsix, the hook extension's .vsix"
[ -x bindings/node/node_modules/.bin/napi ] \
  || die "bindings/node/node_modules is missing: run 'bash scripts/test-node.sh' first (it installs the npm dev dependencies and builds the addon)"
# RADIUM_E2E_NO_BUILD=1 uses the addon already built (bindings/node/*.node),
# e.g. while the Rust side of the checkout does not compile.
if [ "${RADIUM_E2E_NO_BUILD:-}" = 1 ]; then
  ls bindings/node/radium.*.node >/dev/null 2>&1 || die "RADIUM_E2E_NO_BUILD=1 but no addon is built in bindings/node"
  echo "using the addon already built: $(ls bindings/node/radium.*.node)"
else
  bash bindings/node/build.sh
fi
(
  cd bindings/vscode
  [ -x node_modules/.bin/tsc ] || npm ci --no-audit --no-fund --loglevel=error
  rm -rf out
  node_modules/.bin/tsc -p .
  npm run --silent bundle-native
  "$VSCE" package --allow-missing-repository --skip-license -o "$scratch/radium.vsix" >"$scratch/vsce.log" 2>&1 \
    || { cat "$scratch/vsce.log"; exit 1; }
  # radium.node is for the .vsix only: the unit tests load ../node.
  rm -f radium.node
  cd e2e/hook-extension
  "$VSCE" package --allow-missing-repository --skip-license -o "$scratch/radium-e2e-hooks.vsix" >>"$scratch/vsce.log" 2>&1 \
    || { cat "$scratch/vsce.log"; exit 1; }
) || die "packaging failed"
listing=$(unzip -l "$scratch/radium.vsix")
grep -q 'extension/radium.node' <<<"$listing" || die "the .vsix does not carry radium.node"
ls -l "$scratch"/*.vsix

step "a fresh code-server"
mkdir -p "$scratch"/{user,extensions,xdg-config,xdg-data,xdg-cache,home,ws/src,browser}
export XDG_CONFIG_HOME="$scratch/xdg-config" XDG_DATA_HOME="$scratch/xdg-data" XDG_CACHE_HOME="$scratch/xdg-cache"
# The bundled module is what must load: no development override.
unset RADIUM_NODE_MODULE
"$CODE_SERVER" --user-data-dir "$scratch/user" --extensions-dir "$scratch/extensions" \
  --install-extension "$scratch/radium.vsix" --install-extension "$scratch/radium-e2e-hooks.vsix" \
  >"$scratch/install.log" 2>&1 || { cat "$scratch/install.log"; die "installing the .vsix files failed"; }
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
export RADIUM_E2E_SCRATCH="$scratch" RADIUM_E2E_OUT="$out" RADIUM_E2E_REPO="$repo" RADIUM_E2E_PORT="$port"
export RADIUM_E2E_PLAYWRIGHT="$PLAYWRIGHT_CORE" RADIUM_E2E_CHROMIUM="$CHROMIUM"
# The workspace, RADIUM_HOME (agents.toml) and the user settings.
node bindings/vscode/e2e/fixture.js
setsid "$CODE_SERVER" --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --user-data-dir "$scratch/user" --extensions-dir "$scratch/extensions" \
  "$scratch/ws" >"$scratch/code-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$scratch/code-server.log"; die "code-server exited"; }
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$scratch/code-server.log"; die "code-server did not answer on port $port"; }
echo "code-server (pid $server_pid) on 127.0.0.1:$port, $(( $(date +%s) - started )) s so far"

step "drive VS Code (bindings/vscode/e2e/run.js)"
timeout 420 node bindings/vscode/e2e/run.js
echo "vscode e2e: all steps passed in $(( $(date +%s) - started )) s (screenshots: target/vscode-e2e/)"
