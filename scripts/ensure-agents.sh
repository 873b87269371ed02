#!/usr/bin/env bash
# ensure-agents.sh — the two real ACP agents scripts/test-agents.sh runs,
# installed with npm when missing into a cache folder (never into the
# repository), pinned:
#   - Claude Code through Zed's adapter, @zed-industries/claude-agent-acp 0.23.1;
#   - Gemini CLI, @google/gemini-cli 0.61.0 (`gemini --acp`).
# Each goes into $CACHE/<name>@<version>, where $CACHE is
# ${XDG_CACHE_HOME:-$HOME/.cache}/radium-agents; a finished install is marked
# with a .complete file, so a second run fetches nothing. It prints the entry
# points (JavaScript files to run with node), as shell assignments, on its
# last lines:
#   claude=/.../node_modules/@zed-industries/claude-agent-acp/dist/index.js
#   gemini=/.../node_modules/@google/gemini-cli/<its bin>
# Any failure is loud: a message on stderr and a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_PACKAGE=@zed-industries/claude-agent-acp
CLAUDE_VERSION=0.23.1
GEMINI_PACKAGE=@google/gemini-cli
GEMINI_VERSION=0.61.0

die() { echo "ensure-agents: $*" >&2; exit 1; }
say() { echo "ensure-agents: $*" >&2; }

command -v node >/dev/null || die "node is required (Node.js 20 or later: https://nodejs.org)"
command -v npm >/dev/null || die "npm is required (it comes with Node.js)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "Node.js 20 or later is required; this is $(node --version)"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/radium-agents
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
repo=$(pwd -P)
case "$(realpath -m "$cache")/" in "$repo"/*) die "the cache folder $cache is inside the repository; set XDG_CACHE_HOME elsewhere" ;; esac
mkdir -p "$cache" || die "cannot create the cache folder $cache"

# install_pinned PACKAGE VERSION: prints the folder PACKAGE@VERSION is installed in
# (a private package of its own), installing it unless it is there already.
install_pinned() {
  local package=$1 version=$2
  local dir="$cache/${package##*/}@$version"
  if [ -f "$dir/.complete" ] && [ -f "$dir/node_modules/$package/package.json" ]; then
    echo "$dir"
    return 0
  fi
  say "installing $package@$version into $dir (npm; about a minute)"
  local staging="$dir.partial"
  rm -rf "$staging" "$dir"
  mkdir -p "$staging" || die "cannot create $staging"
  echo '{"name":"radium-agent","private":true}' >"$staging/package.json"
  local log="$staging/install.log"
  if ! (cd "$staging" && timeout 900 npm install --no-audit --no-fund --no-save --loglevel=error \
    "$package@$version") >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "npm install $package@$version failed (whole log: $log)"
  fi
  local got
  got=$(node -p "require('$staging/node_modules/$package/package.json').version" 2>/dev/null) \
    || { tail -n 30 "$log" >&2; die "$package is missing after npm install (log: $log)"; }
  [ "$got" = "$version" ] || die "npm installed $package $got, not $version"
  mv "$staging" "$dir" || die "cannot move $staging to $dir"
  touch "$dir/.complete"
  echo "$dir"
}

# entry DIR PACKAGE BIN: the absolute path of PACKAGE's executable BIN (its
# package.json's "bin"), or its only one when BIN is empty.
entry() {
  local dir=$1 package=$2 bin=$3
  local pkg="$dir/node_modules/$package"
  local rel
  rel=$(node -e '
    const p = require(process.argv[1] + "/package.json"), name = process.argv[2];
    const bin = typeof p.bin === "string" ? { [p.name]: p.bin } : (p.bin || {});
    const keys = Object.keys(bin);
    const key = name || (keys.length === 1 ? keys[0] : "");
    if (!bin[key]) { console.error("no bin " + JSON.stringify(name) + " among " + JSON.stringify(keys)); process.exit(1); }
    console.log(bin[key]);
  ' "$pkg" "$bin") || die "cannot find the executable of $package in $pkg/package.json (remove $dir to reinstall)"
  local path
  path=$(realpath -e "$pkg/$rel") || die "$package's executable $pkg/$rel is missing (remove $dir to reinstall)"
  echo "$path"
}

claude_dir=$(install_pinned "$CLAUDE_PACKAGE" "$CLAUDE_VERSION")
gemini_dir=$(install_pinned "$GEMINI_PACKAGE" "$GEMINI_VERSION")
claude=$(entry "$claude_dir" "$CLAUDE_PACKAGE" "")
gemini=$(entry "$gemini_dir" "$GEMINI_PACKAGE" gemini)

# Both must at least load: a broken install fails here, not in the middle of
# a test. Gemini CLI writes into $HOME/.gemini even for --version: a throwaway HOME.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for js in "$claude" "$gemini"; do
  node --check "$js" 2>/dev/null || die "$js does not parse (remove its folder under $cache to reinstall)"
done
HOME=$scratch timeout 60 node "$gemini" --version >/dev/null 2>&1 \
  || die "$gemini --version fails (remove $gemini_dir to reinstall)"

echo "claude=$claude"
echo "gemini=$gemini"
