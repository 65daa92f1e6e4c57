"""Row 4 on PostgreSQL against what this machine allows: the budget of CPU per registration that the row's target
(0.3 of `/healthz`) leaves on its cores, and what the three processes sharing them spend.

    python3 bench/postgres_floor.py        # needs swift build -c release, postgresql-15 and pgbench (make deps)

On a durable throwaway cluster (row 12's: fsync and synchronous_commit on) it
1. runs row 4's load against a `herald serve` on the cluster (wrk, 16 connections, a new device per request) and
   `/healthz`, counting the CPU of herald, of PostgreSQL's processes and of wrk per request;
2. then, without herald, has pgbench (a C client whose own cost is small, prepared statements) insert the rows a
   registration of row 4 stores, in herald's schema: an installation and its tag, in transactions of G rows as a
   group commit of G registrations would, with two clients as herald's two registration lanes. No advisory locks,
   no lookup of the token: the least PostgreSQL can do for those rows. PostgreSQL's CPU is the machine's busy time
   less pgbench's own.

The budget is the machine's cores over 0.3 of the `/healthz` rate: what a registration may cost herald, PostgreSQL
and wrk together. docs/performance.md, "Round 25", has the figures and what they mean."""
import os
import re
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import WORK
from rows.r12_postgres import Postgres, cpu_seconds
from rows.r4_registration import upsert_script
from tools import Serve, wrk

SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
GROUPS = [int(g) for g in os.environ.get("GROUPS", "1,8,16,64").split(",")]
CORES = os.cpu_count()
TARGET = 0.3


def busy_seconds():
    """Seconds of CPU the whole machine spent busy (not idle, not waiting for I/O) since boot."""
    with open("/proc/stat") as f:
        user, nice, system, idle, iowait, irq, softirq = (int(v) for v in f.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def children_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(run, pids=lambda: []):
    """Runs `run` (which returns requests per second over SECONDS); returns the rate and the CPU seconds spent
    per request by the processes `pids()` (taken before and after: PostgreSQL starts backends as it goes), by this
    script's children (wrk, pgbench) and by the whole machine."""
    own, children, machine = cpu_seconds(pids()), children_seconds(), busy_seconds()
    rate = run()
    requests = rate * SECONDS
    return (rate, (cpu_seconds(pids()) - own) / requests, (children_seconds() - children) / requests,
            (busy_seconds() - machine) / requests)


def herald_under_row4(cluster):
    serve = Serve(os.path.join(WORK, "serve-floor"), ["--store-url", cluster.url])
    try:
        script = upsert_script(serve.keys["client"])
        wrk(f"{serve.url}/healthz", 1)   # warm-up
        pg_before = cpu_seconds(cluster.pids())
        rate, herald, wrk_cpu, machine = measured(
            lambda: wrk(f"{serve.url}/v1/installations", SECONDS, script), lambda: [serve.proc.pid])
        postgres = (cpu_seconds(cluster.pids()) - pg_before) / (rate * SECONDS)
        healthz, healthz_herald, healthz_wrk, _ = measured(lambda: wrk(f"{serve.url}/healthz", SECONDS),
                                                           lambda: [serve.proc.pid])
        return rate, herald, postgres, wrk_cpu, machine, healthz, healthz_herald, healthz_wrk
    finally:
        serve.stop()


def app_id(url):
    return subprocess.run(["psql", url, "-Atc", "SELECT id FROM apps LIMIT 1"], check=True, capture_output=True,
                          text=True).stdout.strip()


def insert_script(app, group):
    """pgbench's transaction: `group` new installations with one tag each, as row 4 registers them."""
    path = os.path.join(WORK, f"floor-{group}.sql")
    now = "extract(epoch from now())"
    with open(path, "w") as f:
        f.write(f"""BEGIN;
WITH inserted AS (
  INSERT INTO installations (installation_id, device_token, environment, id, app_id, created_at, updated_at,
                             last_seen_at, token_updated_at, properties)
  SELECT md5(random()::text), md5(random()::text) || md5(random()::text), 'sandbox', md5(random()::text), '{app}',
         {now}, {now}, {now}, {now}, '{{}}'
  FROM generate_series(1, {group}) RETURNING seq, app_id)
INSERT INTO installation_tags (app_id, tag, seq) SELECT app_id, 'wrk', seq FROM inserted;
COMMIT;
""")
    return path


def pgbench_rows(url, script, group):
    out = subprocess.run(["pgbench", "-n", "-M", "prepared", "-c", "2", "-j", "2", "-T", str(SECONDS), "-f", script,
                          url], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"tps = ([0-9.]+)", out).group(1)) * group


def main():
    cluster = Postgres()
    url = cluster.url
    try:
        rate, herald, postgres, wrk_cpu, machine, healthz, healthz_herald, healthz_wrk = herald_under_row4(cluster)
        budget = CORES / (TARGET * healthz)
        print(f"/healthz: {healthz:,.0f}/s; herald {healthz_herald * 1e6:.1f} µs and wrk {healthz_wrk * 1e6:.1f} µs "
              f"of CPU per request", flush=True)
        print(f"the target, {TARGET} of /healthz, is {TARGET * healthz:,.0f} registrations/s: "
              f"{budget * 1e6:.0f} µs of CPU per registration on {CORES} cores, for herald, PostgreSQL and wrk")
        print(f"row 4 on this cluster: {rate:,.0f} registrations/s ({rate / healthz:.2f} of /healthz); per registration "
              f"herald {herald * 1e6:.0f} µs, PostgreSQL {postgres * 1e6:.0f} µs, wrk {wrk_cpu * 1e6:.0f} µs; the machine "
              f"{machine * rate:.2f} of {CORES} cores busy", flush=True)
        app = app_id(url)
        print("PostgreSQL alone (pgbench, 2 clients), new installations with one tag, G per transaction:")
        for group in GROUPS:
            script = insert_script(app, group)
            rows, _, pgbench, machine = measured(lambda: pgbench_rows(url, script, group))
            floor = machine - pgbench
            print(f"  G={group:>3}: {rows:,.0f} rows/s, PostgreSQL {floor * 1e6:.0f} µs of CPU per row, pgbench "
                  f"{pgbench * 1e6:.0f} µs; the machine {machine * rows:.2f} of {CORES} cores busy", flush=True)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
