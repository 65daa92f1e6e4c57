#!/usr/bin/env bash
# Creates (once) the virtual environment of the third-party Python clients the tests run against Herald:
# real APNs provider libraries (the simulator is checked against what users' code actually sends), and
# LeanCloud's and JPush's server SDKs (the compatible APIs are checked against the SDKs users already run), and
# selenium, which drives headless Chromium for the web console's browser test (Tests/ConsoleBrowser).
# Prints the environment's python on stdout. The versions are pinned so a test run is repeatable.
set -euo pipefail
venv="${1:-.build/python-clients}"
packages=(kalyke-apns==1.5.0 leancloud==3.0.2 jpush==3.4.1 selenium==4.27.1)
stamp="$venv/.installed-$(printf '%s\n' "${packages[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}" >&2
  touch "$stamp"
fi
echo "$(cd "$venv" && pwd)/bin/python"
