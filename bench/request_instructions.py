"""Instructions per request, for registration (row 4's upsert) and for /healthz, under callgrind: a count the
machine's noise cannot move, so a change to the request path can be judged by a few runs of one binary each
instead of many alternating wrk runs. User-space instructions only (the kernel's share is not counted).

    python3 bench/request_instructions.py [BINARY ...]      # default: this checkout's release build

Each binary serves from a fresh store under callgrind (`CallgrindServe` in tools.py, which also says how to
give SQLite's functions names: Debian's library has no symbols, so `apt-get source sqlite3`, then
`./configure && make libsqlite3.la`, and point SQLITE_LIBRARY_DIR at it); CONCURRENCY clients (16, as wrk's
connections in row 4) send N requests of each kind (default 4,000) after a warm-up, between a zeroing and a
dump of the counters. Prints instructions per request and the dump files for `callgrind_annotate`."""
import http.client
import json
import os
import random
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import HERALD
from tools import CallgrindServe

N = int(os.environ.get("N", "4000"))
CONCURRENCY = int(os.environ.get("CONCURRENCY", "16"))


def measure(binary):
    server = CallgrindServe(binary, os.path.basename(binary))
    serve = server.serve
    key = serve.keys["client"]

    def upsert(c):
        body = json.dumps({"deviceToken": "%064x" % random.getrandbits(256), "environment": "sandbox", "tags": ["wrk"]})
        c.request("POST", "/v1/installations", body, {"Content-Type": "application/json", "Authorization": f"Bearer {key}"})

    def healthz(c):
        c.request("GET", "/healthz")

    def client(send, count):
        c = http.client.HTTPConnection("127.0.0.1", serve.http)
        for _ in range(count):
            send(c)
            response = c.getresponse()
            response.read()
            assert response.status in (200, 201), response.status

    def run(send, count):
        threads = [threading.Thread(target=client, args=(send, count // CONCURRENCY)) for _ in range(CONCURRENCY)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    results = {}
    try:
        for kind, send in [("upsert", upsert), ("healthz", healthz)]:
            run(send, max(CONCURRENCY, N // 10))   # warm-up: statements prepared, caches filled
            server.zero()
            run(send, N)
            total, path = server.dump(kind)
            results[kind] = (total / (N // CONCURRENCY * CONCURRENCY), path)
    finally:
        server.stop()
    return results


def main():
    binaries = sys.argv[1:] or [HERALD]
    for binary in binaries:
        results = measure(binary)
        up, hz = results["upsert"][0], results["healthz"][0]
        print(f"{binary}: upsert {up:,.0f} instructions/request, /healthz {hz:,.0f} (ratio {hz / up:.3f})")
        for kind, (_, path) in results.items():
            print(f"  {kind}: callgrind_annotate --inclusive=yes {path}")


if __name__ == "__main__":
    main()
