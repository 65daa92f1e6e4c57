"""Instructions per delivery of row 3's push (every installation, through `herald serve` to its accept-all
simulator), under callgrind: a count the machine's noise cannot move, for judging a change to the fan-out's
path (the store, the engine, the APNs client, HTTP/2 at both ends) by one run of each binary.

    python3 bench/fanout_instructions.py [BINARY ...]      # default: this checkout's release build

Each binary serves from a fresh store of N installations (default 24,000) under callgrind (`CallgrindServe`
in tools.py, which also says how to give SQLite's and nghttp2's functions names); the first push warms up
(statements prepared, connections open), and the counters cover the second. User-space instructions only,
both ends of the APNs traffic included (the simulator runs in the server's process). Prints instructions per
delivery and the dump for `callgrind_annotate`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import HERALD, http_json
from tools import CallgrindServe
from rows.r3_fanout import import_file, wait_push

N = int(os.environ.get("N", "24000"))


def measure(binary, jsonl):
    server = CallgrindServe(binary, os.path.basename(binary) + "-fanout")
    serve = server.serve
    try:
        serve.import_jsonl(jsonl)

        def push():
            _, p = http_json("POST", f"{serve.url}/v1/pushes", key=serve.keys["master"],
                             body={"target": {"tags": ["bench"]}, "content": {"alert": "hi"}})
            wait_push(serve, p["id"], 1800)

        push()
        server.zero()
        push()
        total, path = server.dump("fanout")
        return total / N, path
    finally:
        server.stop()


def main():
    jsonl = import_file(N, N)
    for binary in sys.argv[1:] or [HERALD]:
        per, path = measure(binary, jsonl)
        print(f"{binary}: {per:,.0f} instructions/delivery\n  callgrind_annotate --inclusive=yes {path}", flush=True)


if __name__ == "__main__":
    main()
