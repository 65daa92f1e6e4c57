"""Where row 4's time goes, thread by thread: CPU, run-queue wait and context switches per request, for
registration (row 4's load) and for /healthz, with each CPU's idle share while it ran. The counters are the
kernel's (`/proc/<pid>/task/*/stat`, `status`, `schedstat`; `/proc/stat`), so this runs at full speed and
shows what a profiler does not: time spent waiting for a CPU, and a CPU left idle while threads wait.

    python3 bench/thread_cpu.py [BINARY ...]      # default: this checkout's release build

Each binary serves from a fresh store; wrk runs 16 connections for WRK_SECONDS (default 5) of each kind after a
warm-up. Threads are grouped by name: `herald-io-N` are the event loops, `*default-qos*` Swift's pool, and
`*overcommit*` libdispatch's workers, where SQLite's writer, reader and checkpointer queues run
(docs/performance.md, "Round 20"). BENCH_STORE=postgres serves from row 4's durable PostgreSQL cluster instead, where
libdispatch's workers run the pool's connections (docs/performance.md, "Round 25")."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import HERALD, WORK
from rows.r4_registration import PG_SCRIPT, durable_postgres, upsert_script
from tools import Serve, wrk

SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
POSTGRES = os.environ.get("BENCH_STORE") == "postgres"
ROLES = [("herald-io-", "event loops"), ("default-qos", "Swift's pool"),
         ("overcommit", "libdispatch workers (PostgreSQL's connections)" if POSTGRES else "libdispatch workers (SQLite)"),
         ("initiated-qos", "libdispatch workers (other)")]


def threads(pid):
    """Per thread: (name, CPU jiffies, voluntary switches, involuntary switches, run ns, run-queue wait ns)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                status = f.read()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                run, wait = (int(x) for x in f.read().split()[:2])
        except OSError:
            continue   # the thread ended meanwhile
        fields = stat[stat.rindex(")") + 2:].split()
        switches = dict(re.findall(r"^(voluntary_ctxt_switches|nonvoluntary_ctxt_switches):\s+(\d+)", status, re.M))
        out[tid] = (stat[stat.index("(") + 1:stat.rindex(")")], int(fields[11]) + int(fields[12]),
                    int(switches["voluntary_ctxt_switches"]), int(switches["nonvoluntary_ctxt_switches"]), run, wait)
    return out


def idle():
    """Per CPU: (idle + iowait jiffies, all jiffies)."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            name, *values = line.split()
            if name.startswith("cpu") and name != "cpu":
                values = [int(v) for v in values[:8]]
                out[name] = (values[3] + values[4], sum(values))
    return out


def role(name):
    return next((label for pattern, label in ROLES if pattern in name), name)


def measure(serve, kind, url, script):
    wrk(url, 1, script)   # warm-up
    before, cpus = threads(serve.proc.pid), idle()
    rate = wrk(url, SECONDS, script)
    after, cpus_after = threads(serve.proc.pid), idle()
    requests = rate * SECONDS
    jiffy_us = 1e6 / os.sysconf("SC_CLK_TCK")
    groups = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for tid, now in after.items():
        then = before.get(tid, (now[0], 0, 0, 0, 0, 0))
        group = groups[role(now[0])]
        group[0] += 1
        for i in range(1, 6):
            group[i] += now[i] - then[i]
    idle_share = " ".join(f"{cpu} {100 * (cpus_after[cpu][0] - cpus[cpu][0]) / max(1, cpus_after[cpu][1] - cpus[cpu][1]):.0f}%"
                          for cpu in sorted(cpus))
    print(f"  {kind}: {rate:,.0f} requests/s; idle {idle_share}")
    print(f"    {'threads':30} {'n':>3} {'CPU µs':>8} {'run-queue µs':>13} {'voluntary':>10} {'involuntary':>12}   (per request)")
    for name, (n, cpu, voluntary, involuntary, run, wait) in sorted(groups.items(), key=lambda g: -g[1][4]):
        if run > 0:
            print(f"    {name:30} {n:>3} {cpu * jiffy_us / requests:8.1f} {wait / 1e3 / requests:13.1f} "
                  f"{voluntary / requests:10.2f} {involuntary / requests:12.2f}")


def main():
    for binary in sys.argv[1:] or [HERALD]:
        data = tempfile.mkdtemp(dir=WORK)
        url, directory = durable_postgres() if POSTGRES else (None, None)
        serve = Serve(data, ["--store-url", url] if url else [], binary=binary)
        try:
            print(binary)
            measure(serve, "registration", f"{serve.url}/v1/installations", upsert_script(serve.keys["client"]))
            measure(serve, "/healthz", f"{serve.url}/healthz", None)
        finally:
            serve.stop()
            shutil.rmtree(data, ignore_errors=True)
            if directory:
                subprocess.run([PG_SCRIPT, "stop", directory], capture_output=True)


if __name__ == "__main__":
    main()
