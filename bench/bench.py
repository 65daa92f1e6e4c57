#!/usr/bin/env python3
"""Herald's benchmarks: each comparison runs Herald and a reference in the same run, alternating, and
reports the ratio of medians with its spread over repeats. Writes a table to stdout and JSON to
bench-results/latest.json (and the table as Markdown to bench-results/latest.md).

Rows (see BENCHMARKS.md), one file each in bench/rows/, run in row order (r9 before r10):
  1. APNs client: herald send vs h2load on nghttpd and on the simulator (counting mode); herald send vs aioapns.
  2. Simulator: h2load on the simulator (counting) vs nghttpd; validating with JWT vs counting.
  3. Fan-out: a tag push to N installations through herald serve to its simulator, vs row 1's rate; import time.
  4. Registration API: wrk on the installation upsert vs /healthz.
  5. Memory: peak RSS of herald serve during the fan-out, and at rest with N installations.
  6. Latency: one push through the API to receipt at a simulated device, p50/p99 over sequential pushes.
  8. Webhooks: row 3's fan-out with 10% of tokens answering 410, with a webhook (retired + delivery.failed) vs none.
  9. LeanCloud compat: the /1.1 installation upsert and push accept vs the native routes, same server (<= 1.3x cost).
  10. JPush push accept: wrk on POST /v3/push vs POST /v1/pushes with the same push.
  11. Web console: first-load bytes and compose time to interactive in headless Chromium, large store.
  12. PostgreSQL: import rate (vs 50,000/s), a tag push on PostgreSQL vs SQLite, two nodes vs one (BENCH_PG_N).
  L. Large mode (BENCH_LARGE=1 only): 10,000,000 installations imported and pushed to; rates, memory, disk.

BENCH_QUICK=1 runs a short version (about 2 minutes); BENCH_ROWS=1,6 only some rows; BENCH_HERALD=path runs
another build of herald (an A/B of two builds, each in runs of its own).
"""
import os, signal, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import tools  # noqa: E402,F401 - registers the shared fixtures

if __name__ == "__main__":
    # A stopped run still stops its servers and removes its files.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        harness.main(harness.load_rows(os.path.join(harness.HERE, "rows")))
    finally:
        harness.cleanup()
