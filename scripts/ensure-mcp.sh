#!/usr/bin/env bash
# Prints the path of a Python with the MCP client package (PyPI `mcp` 2.x,
# the reference client) for the `rad mcp` tests, installing it into
# ${RADIUM_MCP_CACHE:-$HOME/.cache/radium-mcp}/venv when it is missing.
# Fails loudly when it cannot.
set -euo pipefail
cache=${RADIUM_MCP_CACHE:-$HOME/.cache/radium-mcp}
venv=$cache/venv
python=$venv/bin/python
if ! "$python" -c 'import mcp.client.stdio' 2>/dev/null; then
  command -v python3 >/dev/null || { echo "python3 is needed for the MCP client" >&2; exit 1; }
  echo "installing the MCP client (PyPI mcp>=2,<3) into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet 'mcp>=2,<3' >&2 || { echo "could not install mcp from PyPI" >&2; exit 1; }
fi
"$python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))' >&2
echo "$python"
