#!/usr/bin/env bash
# Installs the real language servers the code-intelligence tests use, into
# ${RADIUM_LSP_CACHE:-$HOME/.cache/radium-lsp} when they are missing, and
# prints the folder to put on PATH (it holds `jedi-language-server` and
# `typescript-language-server`):
#   - jedi-language-server (PyPI) in a venv;
#   - typescript-language-server 5.3.0 with TypeScript 5.9 (npm; 6.x needs
#     Node 22, TypeScript 7 has no tsserver).
# Fails loudly when it cannot.
set -euo pipefail
cache=${RADIUM_LSP_CACHE:-$HOME/.cache/radium-lsp}
bin=$cache/bin
mkdir -p "$bin"
if ! "$cache/venv/bin/jedi-language-server" --version >/dev/null 2>&1; then
  command -v python3 >/dev/null || { echo "python3 is needed for jedi-language-server" >&2; exit 1; }
  echo "installing jedi-language-server (PyPI) into $cache/venv" >&2
  rm -rf "$cache/venv"
  python3 -m venv "$cache/venv" >&2
  "$cache/venv/bin/pip" install --quiet 'jedi-language-server>=0.41,<1' >&2 \
    || { echo "could not install jedi-language-server from PyPI" >&2; exit 1; }
fi
ln -sf "$cache/venv/bin/jedi-language-server" "$bin/jedi-language-server"
ts=$cache/ts
if [ ! -x "$ts/node_modules/.bin/typescript-language-server" ] || [ ! -f "$ts/node_modules/typescript/lib/tsserver.js" ]; then
  command -v npm >/dev/null || { echo "npm is needed for typescript-language-server" >&2; exit 1; }
  echo "installing typescript-language-server 5.3.0 and typescript 5.9 (npm) into $ts" >&2
  mkdir -p "$ts"
  (cd "$ts" && npm install --silent --no-audit --no-fund --prefix "$ts" \
    typescript-language-server@5.3.0 'typescript@~5.9.0' >&2) \
    || { echo "could not install typescript-language-server from npm" >&2; exit 1; }
fi
ln -sf "$ts/node_modules/.bin/typescript-language-server" "$bin/typescript-language-server"
echo "jedi-language-server $("$bin/jedi-language-server" --version 2>&1 | tail -1), typescript-language-server $("$bin/typescript-language-server" --version)" >&2
echo "$bin"
