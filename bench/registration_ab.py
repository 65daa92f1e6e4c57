"""Row 4's load, this build against a reference binary, alternating: each round starts a server of each binary on a
store of its own, runs wrk's registrations (row 4's script) and `/healthz` on it for WRK_SECONDS each, and stops it.
A change to registration moves its rate by a few percent while the machine moves single runs by ±10%, so judge one
by the pairs (how many rounds it won) and by many rounds, not by one row-4 run (docs/performance.md, "Round 21").

    python3 bench/registration_ab.py REFERENCE_BINARY [ROUNDS]     # needs swift build -c release; ROUNDS: 6

STORE_N=1000000 runs each round on a copy of one store of that many installations, after a tag push to all of
them (row 4's store in `make bench`), made once with this build; without it, each server starts from an empty
store. WRK_SECONDS defaults to 5."""
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import HERALD, WORK, http_json
from rows.r3_fanout import import_file, wait_push
from rows.r4_registration import upsert_script
from tools import Serve, serve_accept_all_flags, wrk

REFERENCE = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
STORE_N = int(os.environ.get("STORE_N", "0"))
SECONDS = int(os.environ.get("WRK_SECONDS", "5"))


def seed_store():
    """A store of STORE_N installations after a push to all of them, and its keys; None for empty stores."""
    if not STORE_N:
        return None, None
    seed = os.path.join(WORK, "registration-ab-seed")
    serve = Serve(seed, serve_accept_all_flags() or [])
    keys = dict(serve.keys)
    serve.import_jsonl(import_file(STORE_N, STORE_N))
    status, push = http_json("POST", f"{serve.url}/v1/pushes", key=keys["master"],
                             body={"target": {"tags": ["bench"]}, "content": {"alert": "hi"}})
    wait_push(serve, push["id"], timeout=600)
    serve.stop()
    return seed, keys


def measure(binary, seed, keys, registrations_first):
    data = os.path.join(WORK, "registration-ab")
    shutil.rmtree(data, ignore_errors=True)
    if seed:
        shutil.copytree(seed, data)
    serve = Serve(data, serve_accept_all_flags() or [], binary=binary, keys=keys)
    try:
        script = upsert_script(serve.keys["client"])
        register = lambda: wrk(f"{serve.url}/v1/installations", SECONDS, script)
        healthz = lambda: wrk(f"{serve.url}/healthz", SECONDS)
        wrk(f"{serve.url}/healthz", 1)   # warm-up
        if registrations_first:
            r = register()
            return r, healthz()
        h = healthz()
        return register(), h
    finally:
        serve.stop()
        shutil.rmtree(data, ignore_errors=True)


def main():
    seed, keys = seed_store()
    binaries = [("reference", REFERENCE), ("this build", HERALD)]
    results = {name: [] for name, _ in binaries}
    for round_ in range(ROUNDS):
        for name, binary in (binaries if round_ % 2 == 0 else list(reversed(binaries))):
            r, h = measure(binary, seed, keys, registrations_first=round_ % 2 == 0)
            results[name].append((r, h))
            print(f"{name}: {r:,.0f} registrations/s, /healthz {h:,.0f}/s, ratio {r / h:.3f}", flush=True)
    for name, runs in results.items():
        print(f"{name}: median {statistics.median(r for r, _ in runs):,.0f} registrations/s, /healthz "
              f"{statistics.median(h for _, h in runs):,.0f}/s, ratio {statistics.median(r / h for r, h in runs):.3f}")
    won = sum(1 for a, b in zip(results["reference"], results["this build"]) if b[0] > a[0])
    print(f"this build registered faster in {won} of {ROUNDS} rounds")


if __name__ == "__main__":
    main()
