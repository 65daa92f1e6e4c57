#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages named as arguments when any is missing.
# On macOS it prints the Homebrew line instead of installing.
set -euo pipefail
if [ "$(uname)" = "Darwin" ]; then
  command -v pkg-config >/dev/null || echo "Install the libraries with: brew install openssl@3 nghttp2 sqlite libpq pkg-config"
  exit 0
fi
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing missing packages: ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
