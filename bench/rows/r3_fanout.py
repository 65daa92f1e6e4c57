"""Rows 3 and 5: N installations imported into herald serve (the import time), the resident set of a fresh
process over that store, then one tag push to all of them, timed from the API call until the push reads
`done`, as a rate against `herald send` 4x100 on the counting simulator (row 1's load), run just before and
just after the push; the peak resident set meanwhile."""
import os, time

from harness import FANOUT_N, QUICK, SIM_CLIENT_N, RSSSampler, WORK, http_json, ratio_row, value_row
from tools import herald_send

TITLE = "3 fan-out"
SELECT = ("3", "5")
NEEDS = ("bulk_serve", "tls", "counting")
# Without a counting-mode simulator in herald serve every token is rejected and retired: slow and not
# comparable, so that fallback pushes to a part of the installations only.
FALLBACK_FANOUT_N = 10_000 if QUICK else 100_000


def import_file(n, part):
    """n installations tagged "bench"; the first `part` of them also "part"."""
    path = os.path.join(WORK, f"installations-{n}.jsonl")
    with open(path, "w") as f:
        for i in range(n):
            tags = '"bench","part"' if i < part else '"bench"'
            f.write('{"deviceToken":"%064x","environment":"sandbox","tags":[%s]}\n' % (0x1000000 + i, tags))
    return path


def wait_push(serve, push_id, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        status, push = http_json("GET", f"{serve.url}/v1/pushes/{push_id}", key=serve.keys["master"])
        if status == 200 and push["status"] in ("done", "failed", "cancelled"):
            return push
        time.sleep(0.1)
    raise RuntimeError(f"push {push_id} not done after {timeout} s: {push}")


def run(serve, tls, counting):
    accept_all = serve.accept_all
    fanout_n = FANOUT_N if accept_all else min(FANOUT_N, FALLBACK_FANOUT_N)
    print(f"3. Fan-out: tag push to {fanout_n:,} of {FANOUT_N:,} installations through herald serve to its simulator"
          + ("" if accept_all else " (validating: no accept-all setting in this build)"), flush=True)
    jsonl = import_file(FANOUT_N, fanout_n)
    started = time.time()
    serve.import_jsonl(jsonl)
    import_s = time.time() - started
    value_row(f"3 import {FANOUT_N:,} installations (JSON lines)", round(import_s, 1), "s",
              f"{FANOUT_N / import_s:,.0f}/s")

    # BENCH_FANOUT_DROP_INDEX=name: the same fan-out without one index, to measure what it costs (an A/B on one build).
    if os.environ.get("BENCH_FANOUT_DROP_INDEX"):
        import sqlite3
        with sqlite3.connect(os.path.join(serve.dir, "herald.sqlite"), timeout=60) as db:
            db.execute("DROP INDEX " + os.environ["BENCH_FANOUT_DROP_INDEX"])
    # At rest: a fresh process over the same store, after start-up settles.
    serve.restart()
    time.sleep(3)
    value_row(f"5 RSS at rest, {FANOUT_N:,} installations", round(serve.rss() / 1024), "MiB",
              "fresh process, after start")

    # The reference on either side of the push: this machine's speed moves by a third within minutes, and
    # row 1's rate, measured a minute or more earlier, compared the push with another moment.
    def send():
        return herald_send(counting.host, counting.ca, tls[2], SIM_CLIENT_N, 4, 100)
    send_before = send()
    sampler = RSSSampler(serve.proc.pid)
    sampler.start()
    started = time.time()
    status, push = http_json("POST", f"{serve.url}/v1/pushes", key=serve.keys["master"],
                             body={"target": {"tags": ["bench" if accept_all else "part"]}, "content": {"alert": "hi"}})
    if status not in (200, 201, 202):
        raise RuntimeError(f"push answered {status}: {push}")
    done = wait_push(serve, push["id"], timeout=600)
    fanout_s = time.time() - started
    peak = max(sampler.finish(), serve.rss("VmHWM"))
    counts = {k: v for k, v in done.get("counts", {}).items() if v}
    rate = fanout_n / fanout_s
    send_after = send()
    reference = (send_before + send_after) / 2
    note = ""
    if not accept_all:
        note = (f"herald serve has no setting to run its simulator in accept-all mode, so all "
                f"{fanout_n:,} tokens were answered BadDeviceToken and retired")
    elif counts.get("sent") != fanout_n:
        note = f"only {counts.get('sent')} of {fanout_n} sent: {counts}"
    value_row(f"3 fan-out {fanout_n:,}: API call to last ack", round(fanout_s, 1), "s", f"counts {counts}")
    ratio_row("3 fan-out rate vs herald send 4x100 on the simulator, before and after", 0.6, rate, reference,
              "herald send", "notif/s", note, spread=[rate / send_before, rate / send_after])
    value_row("5 peak RSS during fan-out", round(peak / 1024), "MiB", "herald serve incl. its simulator")
