#!/usr/bin/env bash
# ensure-vscode.sh — what the VS Code end-to-end suite needs, installed when
# missing into a cache folder (never into the repository):
#   - code-server 4.100.3 (VS Code 1.100.3; the newest release that runs on
#     Node 20), in $CACHE/code-server-4.100.3;
#   - playwright-core, in $CACHE/playwright-core-<version>;
#   - @vscode/vsce (packages the .vsix), in $CACHE/vsce-<version>;
#   - Chromium (apt `chromium`, /usr/bin/chromium), and curl and unzip (apt),
#     which scripts/test-vscode-e2e.sh uses.
# $CACHE is ${RADIUM_E2E_CACHE:-$HOME/.cache/radium-e2e}. On a warm machine
# nothing is fetched. It prints the paths, as shell assignments, on its last
# lines (CODE_SERVER=..., VSCE=..., PLAYWRIGHT_CORE=..., CHROMIUM=...). Any failure is
# loud: a message on stderr and a non-zero exit.
#
# The install traps (shared/TOOLCHAIN.md): code-server's install script
# refuses to run as root without npm_config_unsafe_perm=true; node-pty runs
# `npx node-gyp`, so npm_config_yes=true; its native modules build against
# /usr/include/node (apt build-essential pkg-config libkrb5-dev); and
# @vscode/ripgrep downloads `rg` at install unless its cache already holds
# it, so Debian's rg (apt ripgrep) is packed into that cache first.
set -euo pipefail
cd "$(dirname "$0")/.."

CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.56.1
VSCE_VERSION=3.9.2   # 4.x needs Node 22
RIPGREP_CACHE=vscode-ripgrep-cache-1.15.11
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz

die() { echo "ensure-vscode: $*" >&2; exit 1; }
say() { echo "ensure-vscode: $*" >&2; }

command -v node >/dev/null || die "node is required (Node.js 20: code-server $CODE_SERVER_VERSION runs on it)"
command -v npm >/dev/null || die "npm is required (it comes with Node.js)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" = 20 ] || say "warning: code-server $CODE_SERVER_VERSION is made for Node 20; this is $(node --version)"

cache=${RADIUM_E2E_CACHE:-$HOME/.cache/radium-e2e}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
repo=$(pwd -P)
case "$(realpath -m "$cache")/" in "$repo"/*) die "the cache folder $cache is inside the repository; set RADIUM_E2E_CACHE elsewhere" ;; esac
mkdir -p "$cache" || die "cannot create the cache folder $cache"

# --- Chromium -------------------------------------------------------------
bash scripts/ensure-apt.sh chromium:chromium curl:curl unzip:unzip setsid:util-linux \
  || die "could not install chromium, curl, unzip (apt)"
chromium=$(command -v chromium) || die "chromium is not on PATH after installing it"

# --- code-server ----------------------------------------------------------
cs_dir="$cache/code-server-$CODE_SERVER_VERSION"
cs_bin="$cs_dir/node_modules/.bin/code-server"
if [ ! -x "$cs_bin" ] || [ ! -f "$cs_dir/.complete" ]; then
  say "installing code-server $CODE_SERVER_VERSION into $cs_dir (about a minute)"
  bash scripts/ensure-apt.sh cc:build-essential make:build-essential g++:build-essential \
    pkg-config:pkg-config krb5-config:libkrb5-dev rg:ripgrep \
    || die "could not install code-server's build dependencies (apt build-essential pkg-config libkrb5-dev ripgrep)"
  [ -f /usr/include/node/node_api.h ] || [ -f /usr/include/node/node.h ] \
    || die "the Node headers (/usr/include/node) are missing; code-server's native modules build against them"
  staging="$cs_dir.partial"
  rm -rf "$staging" "$cs_dir"
  mkdir -p "$staging/tmp/$RIPGREP_CACHE"
  # @vscode/ripgrep's cache: Debian's rg, packed the way its download is.
  rgtmp=$(mktemp -d)
  cp "$(command -v rg)" "$rgtmp/rg"
  tar -C "$rgtmp" -czf "$staging/tmp/$RIPGREP_CACHE/$RIPGREP_ASSET" rg
  rm -rf "$rgtmp"
  echo '{"name":"radium-e2e-code-server","private":true}' >"$staging/package.json"
  log="$staging/install.log"
  if ! (cd "$staging" && env TMPDIR="$staging/tmp" npm_config_unsafe_perm=true npm_config_yes=true \
    npm install --no-audit --no-fund --no-save "code-server@$CODE_SERVER_VERSION" --foreground-scripts) >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "npm install code-server@$CODE_SERVER_VERSION failed (whole log: $log)"
  fi
  [ -x "$staging/node_modules/.bin/code-server" ] || { tail -n 30 "$log" >&2; die "code-server installed without its bin (log: $log)"; }
  rm -rf "$staging/tmp"
  mv "$staging" "$cs_dir"
  touch "$cs_dir/.complete"
fi
"$cs_bin" --version >/dev/null 2>&1 || die "$cs_bin does not run (remove $cs_dir to reinstall)"

# npm_tool DIR PACKAGE VERSION FILE: installs PACKAGE@VERSION into DIR (a
# private package of its own) unless DIR/FILE exists already.
npm_tool() {
  local dir=$1 package=$2 version=$3 file=$4
  [ -e "$dir/$file" ] && return 0
  say "installing $package $version into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  echo '{"name":"radium-e2e-tool","private":true}' >"$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --no-save --loglevel=error "$package@$version") >&2 \
    || { rm -rf "$dir"; die "npm install $package@$version failed"; }
}

# PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: the browser is Debian's chromium.
pw_dir="$cache/playwright-core-$PLAYWRIGHT_VERSION"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm_tool "$pw_dir" playwright-core "$PLAYWRIGHT_VERSION" \
  node_modules/playwright-core/package.json
vsce_dir="$cache/vsce-$VSCE_VERSION"
npm_tool "$vsce_dir" @vscode/vsce "$VSCE_VERSION" node_modules/.bin/vsce

echo "CODE_SERVER=$cs_bin"
echo "VSCE=$vsce_dir/node_modules/.bin/vsce"
echo "PLAYWRIGHT_CORE=$pw_dir/node_modules/playwright-core"
echo "CHROMIUM=$chromium"
