#!/usr/bin/env bash
# ensure-acp-sdk.sh — the official ACP TypeScript SDK (@agentclientprotocol/sdk,
# pinned to 1.9.0: the 1.x line has `ClientSideConnection`, which the tests of
# `rad acp` drive as an editor would), installed with npm when missing into
# ${XDG_CACHE_HOME:-$HOME/.cache}/radium-agents/acp-sdk@1.9.0 (never into the
# repository); a finished install is marked with a .complete file. Prints, on
# its last line, the folder whose node_modules holds it:
#   sdk_modules=/.../acp-sdk@1.9.0/node_modules
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGE=@agentclientprotocol/sdk
VERSION=1.9.0

die() { echo "ensure-acp-sdk: $*" >&2; exit 1; }
command -v node >/dev/null || die "node is required (Node.js 20 or later)"
command -v npm >/dev/null || die "npm is required (it comes with Node.js)"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/radium-agents
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
repo=$(pwd -P)
case "$(realpath -m "$cache")/" in "$repo"/*) die "the cache folder $cache is inside the repository; set XDG_CACHE_HOME elsewhere" ;; esac
dir="$cache/acp-sdk@$VERSION"
if ! { [ -f "$dir/.complete" ] && [ -f "$dir/node_modules/$PACKAGE/package.json" ]; }; then
  echo "ensure-acp-sdk: installing $PACKAGE@$VERSION into $dir (npm)" >&2
  staging="$dir.partial"
  rm -rf "$staging" "$dir"
  mkdir -p "$staging"
  echo '{"name":"radium-acp-sdk","private":true}' >"$staging/package.json"
  if ! (cd "$staging" && timeout 600 npm install --no-audit --no-fund --no-save --loglevel=error \
    "$PACKAGE@$VERSION") >"$staging/install.log" 2>&1; then
    tail -n 30 "$staging/install.log" >&2
    die "npm install $PACKAGE@$VERSION failed (log: $staging/install.log)"
  fi
  got=$(node -p "require('$staging/node_modules/$PACKAGE/package.json').version")
  [ "$got" = "$VERSION" ] || die "npm installed $PACKAGE $got, not $VERSION"
  touch "$staging/.complete"
  mv "$staging" "$dir"
fi
echo "sdk_modules=$dir/node_modules"
