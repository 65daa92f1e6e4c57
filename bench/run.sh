#!/usr/bin/env bash
# `make bench`: runs bench/bench.py with the release build. Results: a table on stdout and
# bench-results/latest.json.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/bench.py "$@"
