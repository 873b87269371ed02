#!/usr/bin/env bash
# ensure-apt.sh CMD:PACKAGE ... — installs each Debian PACKAGE whose CMD is
# missing (apt-get update once, non-interactive). Fails loudly if it cannot.
set -euo pipefail
missing=()
for pair in "$@"; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || { echo "apt-get update failed; cannot install ${missing[*]}" >&2; exit 1; }
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
  || { echo "could not install ${missing[*]}" >&2; exit 1; }
