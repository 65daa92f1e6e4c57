"""Row 12: PostgreSQL. A throwaway cluster on this machine (scripts/postgres-test.sh, with the durability of
a production server: fsync, synchronous_commit and full_page_writes on), `herald serve` nodes on it and one
on SQLite, all delivering to the same counting simulator:
  - import of N installations into PostgreSQL (the row 3 file, one POST), as a rate against 50,000/s, with
    the CPU seconds PostgreSQL and herald spent on it (load-independent: what the store costs per row);
  - a tag push to all N on PostgreSQL vs the same push on SQLite, alternating (target >= 0.5);
  - the same push on PostgreSQL with two nodes vs one, alternating (target >= 1.0), with what PostgreSQL's
    backends were waiting on meanwhile (sampled from pg_stat_activity and pg_locks) and the CPU each node spent:
    direct evidence of lock contention between nodes, or of its absence, beside the noisy ratio.
N: BENCH_PG_N, else BENCH_FANOUT_N (1,000,000; 50,000 with BENCH_QUICK). Pairs: BENCH_PG_FANOUT_PAIRS (3) for
PostgreSQL vs SQLite, BENCH_PG_PAIRS (5; 0 skips them) for two nodes vs one: at 1,000,000 each push takes
minutes on 2 shared cores."""
import base64, collections, importlib.util, os, re, statistics, subprocess, threading, time

from harness import FANOUT_N, HERALD, ROOT, WORK, http_json, pair, ratio_row, value_row

TITLE = "12 PostgreSQL"
SELECT = ("12",)
NEEDS = ("counting",)
N = int(os.environ.get("BENCH_PG_N", FANOUT_N))
IMPORT_TARGET = 50_000
SCRIPT = os.path.join(ROOT, "scripts", "postgres-test.sh")
TOPIC = "com.example.herald"
# The server's settings: durable commits as a production server has them (the test script turns them off),
# and room for the 1,000,000-row working set (docs/deploy.md, "PostgreSQL performance").
SETTINGS = " -c shared_buffers=512MB -c max_wal_size=4GB -c checkpoint_timeout=15min"


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


class WaitSampler:
    """Samples, every `interval` s while running, what PostgreSQL's active client backends wait on
    (pg_stat_activity's wait event; "CPU" when none) and how many lock requests are not granted (pg_locks)."""
    QUERY = ("SELECT coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-'), count(*) FROM pg_stat_activity "
             "WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid() GROUP BY 1 "
             "UNION ALL SELECT 'ungranted locks', count(*) FROM pg_locks WHERE NOT granted")

    def __init__(self, url, interval=0.5):
        self.url, self.interval = url, interval
        self.counts, self.samples, self.ungranted_samples = collections.Counter(), 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.wait(self.interval):
            out = subprocess.run(["psql", "-At", "-F", "|", self.url, "-c", self.QUERY], capture_output=True, text=True).stdout
            self.samples += 1
            for line in out.splitlines():
                name, _, n = line.rpartition("|")
                if name == "ungranted locks":
                    self.ungranted_samples += int(n) > 0
                elif name:
                    self.counts[name] += int(n)

    def lock_waits(self):
        return sum(n for name, n in self.counts.items() if name.startswith("Lock:"))

    def summary(self):
        top = ", ".join(f"{name} {n}" for name, n in self.counts.most_common(6))
        return f"{self.samples} samples: {top or 'idle'}; heavyweight-lock waits {self.lock_waits()}, samples with an ungranted lock {self.ungranted_samples}"


class Postgres:
    """A cluster of its own, stopped and removed by `stop`."""

    def __init__(self):
        out = subprocess.run([SCRIPT, "start"], capture_output=True, text=True, check=True).stdout
        env = dict(re.findall(r"export (\w+)='([^']*)'", out))
        self.url, self.dir = env["HERALD_TEST_POSTGRES_URL"], env["HERALD_TEST_POSTGRES_DIR"]
        options = os.path.join(self.dir, "options")
        with open(options) as f:
            text = f.read().strip()
        for fast in (" -c fsync=off", " -c synchronous_commit=off", " -c full_page_writes=off"):
            text = text.replace(fast, "")
        with open(options, "w") as f:
            f.write(text + SETTINGS + "\n")
        subprocess.run([SCRIPT, "down", self.dir], capture_output=True, check=True)
        subprocess.run([SCRIPT, "up", self.dir], capture_output=True, check=True)

    def pids(self):
        """The postmaster and every process it started (backends, WAL writer, checkpointer)."""
        with open(os.path.join(self.dir, "data", "postmaster.pid")) as f:
            root = f.readline().strip()
        children = [p for p in os.listdir("/proc") if p.isdigit() and self._parent(p) == root]
        return [root] + children

    @staticmethod
    def _parent(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[1]
        except OSError:
            return None

    def stop(self):
        subprocess.run([SCRIPT, "stop", self.dir], capture_output=True)


def row3():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("bench_row_r3_for_r12", os.path.join(here, "r3_fanout.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(sim):
    from tools import Serve
    r3 = row3()
    print(f"12. PostgreSQL: import {N:,} installations; a tag push to all of them on PostgreSQL vs SQLite, "
          f"and on two PostgreSQL nodes vs one", flush=True)
    pg = Postgres()
    nodes = []
    try:
        secret = base64.b64encode(os.urandom(32)).decode()
        # With the built-in simulator off a first start makes no app: the row makes one on each store.
        admin = "hk_admin_bench_" + os.urandom(16).hex()
        common = ["--simulator-enabled", "false", "--apns-sandbox-endpoint", sim.host, "--apns-ca-file", sim.ca,
                  "--secrets-key", secret, "--admin-key", admin]
        on_pg = common + ["--store-url", pg.url]
        a = Serve(os.path.join(WORK, "pg-node-a"), on_pg + ["--cluster-node", "a"], keys={"admin": admin})
        nodes.append(a)
        lite = Serve(os.path.join(WORK, "pg-sqlite"), common, keys={"admin": admin})
        nodes.append(lite)
        key_dir = os.path.join(WORK, "pg-keys")
        os.makedirs(key_dir, exist_ok=True)
        out = subprocess.run([HERALD, "sim", "key", "--bundle-id", TOPIC, "--out", key_dir, "--sim", sim.url],
                             capture_output=True, text=True, check=True)
        p8 = next(os.path.join(key_dir, f) for f in os.listdir(key_dir) if f.endswith(".p8"))
        key_id = re.search(r"AuthKey_(\w+)\.p8", p8).group(1)
        team_id = (re.search(r"[Tt]eam[ _-]?[Ii][Dd]\W+(\w+)", out.stdout + out.stderr) or [None, "SIMTEAM001"])[1]
        with open(p8) as f:
            pem = f.read()
        for serve in (a, lite):
            status, app = http_json("POST", f"{serve.url}/v1/apps", key=admin, body={"name": "Bench", "topic": TOPIC})
            if status not in (200, 201):
                raise RuntimeError(f"creating the app answered {status}: {app}")
            serve.keys["master"] = app["keys"]["master"]
            status, answer = http_json("PUT", f"{serve.url}/v1/apps/{app['id']}/credentials/sandbox", key=serve.keys["master"],
                                       body={"type": "token", "keyId": key_id, "teamId": team_id, "key": pem})
            if status != 200:
                raise RuntimeError(f"credentials answered {status}: {answer}")

        jsonl = r3.import_file(N, N)

        def load(serve, watched):
            before = [cpu_seconds(p) for p in watched]
            started = time.time()
            serve.import_jsonl(jsonl, timeout=3600)
            seconds = time.time() - started
            return seconds, [cpu_seconds(p) - b for p, b in zip(watched, before)]

        pg_s, (pg_cpu, pg_herald_cpu) = load(a, [pg.pids(), [a.proc.pid]])
        lite_s, (lite_cpu,) = load(lite, [[lite.proc.pid]])
        ratio_row(f"12 import {N:,} installations into PostgreSQL (JSON lines, one POST)", 1.0, N / pg_s, IMPORT_TARGET,
                  "target", "installations/s")
        value_row("12 import CPU: PostgreSQL's processes / herald", f"{pg_cpu:.1f} / {pg_herald_cpu:.1f}", "s",
                  f"{pg_s:.1f} s wall; {N / max(pg_cpu, 0.01):,.0f} rows per PostgreSQL CPU second")
        value_row(f"12 import {N:,} installations into SQLite (the same file)", round(lite_s, 1), "s",
                  f"{N / lite_s:,.0f}/s, herald CPU {lite_cpu:.1f} s")

        def push(serve):
            started = time.time()
            status, answer = http_json("POST", f"{serve.url}/v1/pushes", key=serve.keys["master"],
                                       body={"target": {"tags": ["bench"]}, "content": {"alert": "hi"}})
            if status not in (200, 201, 202):
                raise RuntimeError(f"push answered {status}: {answer}")
            done = r3.wait_push(serve, answer["id"], timeout=1800)
            seconds = time.time() - started
            if done.get("counts", {}).get("sent") != N:
                raise RuntimeError(f"push {answer['id']} ended {done['status']} with {done.get('counts')}")
            return N / seconds

        pair(f"12 tag push to {N:,}: PostgreSQL vs SQLite (one node each)", 0.5, lambda: push(a), lambda: push(lite),
             "SQLite", "notif/s", repeats=int(os.environ.get("BENCH_PG_FANOUT_PAIRS", "3")))
        lite.stop()
        nodes.remove(lite)

        b = None
        waits = {"two": [], "one": []}
        cpu = {"two": [], "one": []}   # (node a, node b, PostgreSQL) CPU seconds per push

        def sampled(kind, fn, watched):
            before = [cpu_seconds(p) for p in watched]
            with WaitSampler(pg.url) as sampler:
                rate = fn()
            waits[kind].append(sampler)
            cpu[kind].append([cpu_seconds(p) - x for p, x in zip(watched, before)])
            return rate

        def two_nodes():
            nonlocal b
            b = Serve(os.path.join(WORK, "pg-node-b"), on_pg + ["--cluster-node", "b"], keys=a.keys)
            nodes.append(b)
            time.sleep(2)  # joined the cluster and listening for work
            try:
                return sampled("two", lambda: push(a), [[a.proc.pid], [b.proc.pid], pg.pids()])
            finally:
                b.stop()
                nodes.remove(b)

        def one_node():
            return sampled("one", lambda: push(a), [[a.proc.pid], [], pg.pids()])

        # More repeats: a push takes the second node's start-up out of the timing, but this pair is the noisier.
        repeats = int(os.environ.get("BENCH_PG_PAIRS", "5"))
        if repeats < 1:
            return
        row = pair(f"12 tag push to {N:,} on PostgreSQL: two nodes vs one", 1.0, two_nodes, one_node, "one node", "notif/s",
                   repeats=repeats)
        per_pair = [x / y for x, y in zip(row["herald_runs"], row["reference_runs"])]
        value_row("12 two nodes vs one, median of the per-pair ratios", round(statistics.median(per_pair), 3), "",
                  "pairs " + ", ".join(f"{r:.2f}" for r in per_pair) + f"; load average {os.getloadavg()[0]:.1f} at the end")
        for kind, label in (("two", "two nodes"), ("one", "one node")):
            runs = cpu[kind]
            value_row(f"12 {label}: CPU s per push, node a / node b / PostgreSQL (median)",
                      " / ".join(f"{statistics.median(c[i] for c in runs):.1f}" for i in range(3)), "s")
            merged = WaitSampler(pg.url)
            for sampler in waits[kind]:
                merged.counts.update(sampler.counts)
                merged.samples += sampler.samples
                merged.ungranted_samples += sampler.ungranted_samples
            value_row(f"12 {label}: PostgreSQL backends' wait events during the pushes", merged.lock_waits(), "lock waits",
                      merged.summary())
    finally:
        for serve in nodes:
            serve.stop()
        pg.stop()
