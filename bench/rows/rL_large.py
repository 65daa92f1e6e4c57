"""Large mode (issue #19, "scale beyond one million"): only with BENCH_LARGE=1 (or BENCH_ROWS=large).
N installations (10,000,000; BENCH_LARGE_N) imported into a `herald serve` of its own with one
`POST /v1/installations/import?format=jsonl`, then one tag push to all of them. Reports the import and
fan-out rates, the resident set of `herald serve` (its built-in simulator included) at rest and at peak
(targets <= 64 MiB and <= 128 MiB), how it moves as the fan-out goes on (flat: memory must not grow with
the audience) and the disk used per installation."""
import os, time

from harness import RSSSampler, WORK, http_json, value_row
from tools import Serve, serve_accept_all_flags

TITLE = "large (BENCH_LARGE=1)"
SELECT = ("large",)
NEEDS = ()
# Not in the default run: it takes ~10 minutes on 2 cores and ~9 GB of disk (10,000,000 rows).
DEFAULT = os.environ.get("BENCH_LARGE") == "1"
N = int(os.environ.get("BENCH_LARGE_N", 10_000_000))
REST_TARGET_MIB, PEAK_TARGET_MIB = 64, 128
TIMEOUT_S = 3 * 3600


def import_file(n):
    """n installations tagged "large", written in chunks so the generator's own memory stays small."""
    path = os.path.join(WORK, f"large-{n}.jsonl")
    with open(path, "w") as f:
        for start in range(0, n, 100_000):
            f.write("".join('{"deviceToken":"%064x","environment":"sandbox","tags":["large"]}\n' % (0x2000000 + i)
                            for i in range(start, min(n, start + 100_000))))
    return path


def store_bytes(data_dir):
    """Bytes of the SQLite files (database, WAL, shared memory) in the data directory."""
    return sum(os.path.getsize(os.path.join(data_dir, f)) for f in os.listdir(data_dir)
               if ".sqlite" in f or f.endswith((".db", ".db-wal", ".db-shm")))


def mib(kib):
    return round(kib / 1024)


def run():
    accept_all = serve_accept_all_flags()
    if accept_all is None:
        raise RuntimeError("this build's herald serve cannot run its simulator in accept-all mode")
    print(f"Large: import {N:,} installations, then a tag push to all of them (herald serve, SQLite)", flush=True)
    jsonl = import_file(N)
    data_dir = os.path.join(WORK, "serve-large")
    # The file is over the import route's default limit (256 MiB): a user importing it raises the limit.
    serve = Serve(data_dir, accept_all + ["--api-import-max-body-bytes", str(os.path.getsize(jsonl) + 1)])
    try:
        sampler = RSSSampler(serve.proc.pid)
        sampler.start()
        started = time.time()
        try:
            serve.import_jsonl(jsonl, timeout=TIMEOUT_S)
        finally:
            os.remove(jsonl)
        import_s = time.time() - started
        import_peak = max(sampler.finish(), serve.rss("VmHWM"))
        value_row(f"L import {N:,} installations (JSON lines, one request)", round(N / import_s), "/s",
                  f"{import_s:.0f} s; peak RSS meanwhile {mib(import_peak)} MiB")

        # At rest: a fresh process over the full store (a clean stop checkpoints the WAL into the file).
        serve.restart()
        time.sleep(3)
        rest = serve.rss()
        value_row(f"L RSS at rest, {N:,} installations", mib(rest), "MiB",
                  f"fresh process, 3 s after start; target <= {REST_TARGET_MIB} MiB")
        value_row(f"L disk per installation, {N:,} installations", round(store_bytes(data_dir) / N), "bytes",
                  f"SQLite files {store_bytes(data_dir) / 2**30:.2f} GiB / N")

        sampler = RSSSampler(serve.proc.pid)
        sampler.start()
        started = time.time()
        status, push = http_json("POST", f"{serve.url}/v1/pushes", key=serve.keys["master"],
                                 body={"target": {"tags": ["large"]}, "content": {"alert": "hi"}})
        if status not in (200, 201, 202):
            raise RuntimeError(f"push answered {status}: {push}")
        # The resident set against the fan-out's progress: flat if memory does not grow with the audience.
        progress = []
        deadline = started + TIMEOUT_S
        while True:
            status, report = http_json("GET", f"{serve.url}/v1/pushes/{push['id']}", key=serve.keys["master"])
            counts = report.get("counts", {}) if status == 200 else {}
            progress.append((counts.get("sent", 0) + counts.get("failed", 0), serve.rss()))
            if status == 200 and report["status"] in ("done", "failed", "cancelled"):
                break
            if time.time() > deadline:
                raise RuntimeError(f"push {push['id']} not done after {TIMEOUT_S} s: {report}")
            time.sleep(1)
        fanout_s = time.time() - started
        peak = max(sampler.finish(), serve.rss("VmHWM"))
        counts = {k: v for k, v in counts.items() if v}
        note = "" if counts.get("sent") == N else f"only {counts.get('sent')} of {N} sent: {counts}"
        value_row(f"L fan-out {N:,}: API call to last ack", round(N / fanout_s), "notif/s",
                  f"{fanout_s:.0f} s; counts {counts}" + (f"; {note}" if note else ""))
        value_row(f"L peak RSS during the fan-out of {N:,}", mib(peak), "MiB",
                  f"herald serve incl. its simulator; target <= {PEAK_TARGET_MIB} MiB")
        quarters = []
        for q in (0.25, 0.5, 0.75, 1.0):
            seen = [rss for done, rss in progress if done <= q * N and done > (q - 0.25) * N]
            quarters.append(f"{mib(max(seen))}" if seen else "-")
        value_row("L RSS by quarter of the fan-out (largest sample in each)", " / ".join(quarters), "MiB",
                  "flat when memory does not grow with the audience")
        value_row(f"L disk per installation after the push (its {N:,} delivery rows included)",
                  round(store_bytes(data_dir) / N), "bytes", f"SQLite files {store_bytes(data_dir) / 2**30:.2f} GiB / N")
    finally:
        serve.stop()
