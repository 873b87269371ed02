#!/usr/bin/env bash
# The Node door and the VS Code extension, as a fresh clone needs them:
#   1. the npm dev dependencies of bindings/node and bindings/vscode (npm ci,
#      only when node_modules is missing or older than the lockfile);
#   2. the addon, built with @napi-rs/cli (release), and a check that the
#      committed index.js / index.d.ts are what the build generates (with
#      RADIUM_PREBUILT, the release build's addon: scripts/release.sh made
#      that check);
#   3. the node --test suites; 4. tsc --noEmit on test/usage.ts against the
#      generated types; 5. the extension compiled by tsc, and its tests.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
die() { echo "test-node: $*" >&2; exit 1; }

command -v node >/dev/null || die "node is required (Node.js 20 or later: https://nodejs.org)"
command -v npm >/dev/null || die "npm is required (it comes with Node.js)"
command -v cargo >/dev/null || die "cargo is required (https://rustup.rs)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "Node.js 20 or later is required; this is $(node --version)"

# npm ci when node_modules is missing or stale (the lockfile or package.json
# changed since the last install, which wrote node_modules/.package-lock.json).
npm_deps() {
  local dir=$1 stamp=$1/node_modules/.package-lock.json
  [ -f "$dir/package-lock.json" ] || die "$dir/package-lock.json is missing"
  if [ -f "$stamp" ] && [ "$stamp" -nt "$dir/package-lock.json" ] && [ "$stamp" -nt "$dir/package.json" ]; then
    echo "$dir: node_modules is up to date"
    return
  fi
  echo "$dir: npm ci"
  local log
  log=$(mktemp)
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
    grep -m 3 -v '^npm error *$' "$log" | sed 's/^/  /' || true
    # npm ci refuses a lockfile that lacks entries for optional packages the
    # registry does not have (a partial mirror lacks @napi-rs/cli's
    # non-Linux helpers). npm install installs the same locked versions; the
    # lockfile must come out unchanged.
    echo "$dir: npm ci refused the lockfile; installing the locked versions with npm install"
    local before
    before=$(cksum <"$dir/package-lock.json")
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error) || die "npm install failed in $dir"
    if [ "$(cksum <"$dir/package-lock.json")" != "$before" ]; then
      die "$dir/package-lock.json changed during npm install: package.json and the lockfile disagree (run npm install there and commit the lockfile)"
    fi
  else
    cat "$log"
  fi
  rm -f "$log"
  touch "$stamp"
}

step "npm dev dependencies"
npm_deps bindings/node
npm_deps bindings/vscode

step "Node door: the addon (napi build --platform --release, or the release build with RADIUM_PREBUILT)"
bash bindings/node/build.sh

step "Node door: node --test"
(cd bindings/node && timeout 600 node --test test/*.test.js)

step "Node door: tsc --noEmit on test/usage.ts against the generated index.d.ts"
(cd bindings/node && node_modules/.bin/tsc --version && node_modules/.bin/tsc --noEmit -p test/tsconfig.json)

step "VS Code extension: tsc, then its tests (loader and command, without VS Code)"
(cd bindings/vscode && rm -rf out && node_modules/.bin/tsc -p . && timeout 120 node --test test/*.test.js)

echo
echo "node door: all tests passed"
