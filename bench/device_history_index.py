"""What the index on deliveries by installation (`deliveries_installation ON deliveries(seq, id)`, SQLite
migration 12, PostgreSQL migration 8) buys and costs, on a deliveries table as Herald's migrations make it:

- the device page's lookup (`installationDeliveries`: one installation's 10 newest deliveries with their push)
  on a store of N deliveries, with the index and without it (the median of many lookups);
- what the index adds to writing deliveries as a fan-out does (pages of 1,000 rows per transaction), in CPU
  time of the process that writes (SQLite runs in this process, so its CPU time is the cost; load-independent
  enough to compare on a busy machine), and wall time for PostgreSQL.

    python3 bench/device_history_index.py sqlite [N]
    scripts/postgres-test.sh run python3 bench/device_history_index.py postgres [N]   # uses psql

N deliveries (default 1,000,000) = N/10 installations x 10 pushes, inserted push by push in seq order, as a
fan-out writes them. Runs each variant REPEAT times, alternating, and prints medians and spreads."""
import json, os, random, sqlite3, statistics, subprocess, sys, tempfile, time

STORE = sys.argv[1] if len(sys.argv) > 1 else "sqlite"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
PUSHES = 10
INSTALLATIONS = N // PUSHES
PAGE = 1000
REPEAT = int(os.environ.get("REPEAT", "3"))
LOOKUPS = 200

SQLITE_DDL = """
CREATE TABLE pushes (id TEXT PRIMARY KEY, app_id TEXT NOT NULL, request TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY, push_id TEXT NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL, installation_id TEXT NOT NULL, device_token TEXT NOT NULL,
    environment TEXT NOT NULL, variant TEXT NOT NULL, badge INTEGER,
    state INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, not_before REAL NOT NULL,
    apns_id TEXT, status INTEGER, reason TEXT, updated_at REAL NOT NULL, claimed_by TEXT);
CREATE INDEX deliveries_push ON deliveries(push_id, id);
CREATE INDEX deliveries_pending ON deliveries(push_id, not_before, id) WHERE state = 0;
CREATE INDEX deliveries_in_flight ON deliveries(push_id) WHERE state = 1;
"""
INDEX = "CREATE INDEX deliveries_installation ON deliveries(seq, id)"
LOOKUP = """SELECT d.id, d.push_id, p.status, p.created_at, p.request, d.state, d.attempts, d.status, d.reason, d.updated_at
FROM deliveries d JOIN pushes p ON p.id = d.push_id
WHERE d.seq = {seq} AND d.id < {before} AND p.app_id = 'app1' ORDER BY d.id DESC LIMIT 10"""


def push_id(p):
    return "%08x-0000-4000-8000-%012x" % (p, p)


def rows(p):
    for seq in range(1, INSTALLATIONS + 1):
        yield (push_id(p), seq, "in%011d" % seq, "%064x" % seq, "sandbox", "", None, 2, 1, 1.8e9, 200, None, 1.8e9)


def sqlite_run(with_index):
    path = os.path.join(tempfile.mkdtemp(prefix="herald-dhi-"), "d.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;" + SQLITE_DDL)
    if with_index:
        db.execute(INDEX)
    cpu = 0.0
    for p in range(PUSHES):
        db.execute("INSERT INTO pushes VALUES (?, 'app1', '{\"content\":{\"alert\":\"hi\"}}', 'done', ?)", (push_id(p), 1.8e9 + p))
        batch = []
        for r in rows(p):
            batch.append(r)
            if len(batch) == PAGE:
                started = time.process_time()
                db.execute("BEGIN")
                db.executemany("INSERT INTO deliveries (push_id, seq, installation_id, device_token, environment, variant, badge, state, attempts, not_before, status, reason, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", batch)
                db.execute("COMMIT")
                cpu += time.process_time() - started
                batch = []
    lookups = []
    rng = random.Random(1)
    for _ in range(LOOKUPS if with_index else 5):
        seq = rng.randint(1, INSTALLATIONS)
        started = time.perf_counter()
        got = db.execute(LOOKUP.format(seq=seq, before=2**62)).fetchall()
        lookups.append(time.perf_counter() - started)
        assert len(got) == 10, len(got)
    size = os.path.getsize(path) + os.path.getsize(path + "-wal") if os.path.exists(path + "-wal") else os.path.getsize(path)
    db.close()
    return cpu, statistics.median(lookups), size


def psql(url, sql):
    started = time.perf_counter()
    # From standard input, so each statement is its own transaction (psql -c would make them one).
    out = subprocess.run(["psql", url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-f", "-"], input=sql, check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - started, out


def postgres_run(url, with_index):
    ddl = (SQLITE_DDL.replace("INTEGER PRIMARY KEY", "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY").replace("REAL", "double precision")
           .replace("INTEGER", "bigint").replace("TEXT", "text"))
    psql(url, "DROP TABLE IF EXISTS deliveries; DROP TABLE IF EXISTS pushes;" + ddl + (INDEX + ";" if with_index else ""))
    wall = 0.0
    for p in range(PUSHES):
        psql(url, f"INSERT INTO pushes VALUES ('{push_id(p)}', 'app1', '{{}}', 'done', {1.8e9 + p})")
        # One statement (and transaction) per page of 1,000, as the fan-out writes a page; one psql per push.
        pages = ";\n".join(f"""INSERT INTO deliveries (push_id, seq, installation_id, device_token, environment, variant, badge, state,
                attempts, not_before, status, reason, updated_at)
                SELECT '{push_id(p)}', s, 'in' || lpad(s::text, 11, '0'), lpad(to_hex(s), 64, '0'), 'sandbox', '', NULL, 2, 1, 1.8e9, 200, NULL, 1.8e9
                FROM generate_series({start}, {min(start + PAGE - 1, INSTALLATIONS)}) s""" for start in range(1, INSTALLATIONS + 1, PAGE))
        t, _ = psql(url, pages)
        wall += t
    psql(url, "VACUUM ANALYZE deliveries; VACUUM ANALYZE pushes")
    rng = random.Random(1)
    times = []
    for _ in range(50 if with_index else 5):
        seq = rng.randint(1, INSTALLATIONS)
        _, out = psql(url, "EXPLAIN (ANALYZE, FORMAT JSON) " + LOOKUP.format(seq=seq, before=2**62))
        times.append(json.loads(out)[0]["Execution Time"] / 1000)
    _, size = psql(url, "SELECT pg_total_relation_size('deliveries')")
    return wall, statistics.median(times), int(size.strip())


def main():
    url = os.environ.get("HERALD_TEST_POSTGRES_URL")
    results = {True: [], False: []}
    for _ in range(REPEAT):
        for with_index in (False, True):
            r = sqlite_run(with_index) if STORE == "sqlite" else postgres_run(url, with_index)
            results[with_index].append(r)
            print(f"{STORE} index={with_index}: write {r[0]:.2f} s, lookup {r[1] * 1000:.3f} ms, size {r[2] / 2**20:.0f} MiB", flush=True)
    for with_index in (False, True):
        w = [r[0] for r in results[with_index]]
        l = [r[1] * 1000 for r in results[with_index]]
        print(f"{STORE} {N:,} deliveries, index={with_index}: write median {statistics.median(w):.2f} s (min {min(w):.2f}, max {max(w):.2f}); "
              f"lookup median {statistics.median(l):.3f} ms (min {min(l):.3f}, max {max(l):.3f}); size {results[with_index][-1][2] / 2**20:.0f} MiB")


main()
