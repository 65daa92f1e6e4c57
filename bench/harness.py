"""The benchmark harness every row shares: settings, child processes, the fixtures rows share (started on
first use, stopped once no later row needs them), same-run comparisons and the table.

A row is a file in bench/rows/ (see bench/rows/README.md); bench.py runs them in file-name order.
"""
import atexit, http.client, importlib.util, json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, \
    threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
HERALD = os.environ.get("BENCH_HERALD") or os.path.join(ROOT, ".build", "release", "herald")
RESULTS = os.path.join(ROOT, "bench-results")
VENV = os.path.join(RESULTS, ".venv")
QUICK = os.environ.get("BENCH_QUICK") == "1"
# BENCH_ROWS=1,3 runs only those rows (1: client, 2: simulator, 3-6: herald serve); default all.
ONLY = set(filter(None, os.environ.get("BENCH_ROWS", "").split(",")))
REPEATS = 3
WORK = tempfile.mkdtemp(prefix="herald-bench-")
TOKEN = "%064x" % 1
TOPIC = "com.example.bench"
KEY_ID, TEAM_ID = "BENCHKEY01", "BENCHTEAM1"
BODY = b'{"aps":{"alert":{"title":"Hello","body":"Benchmark"},"badge":1}}'
# Requests per h2load / herald send run against the simulator (rows 1 and 2).
SIM_CLIENT_N = 30_000 if QUICK else 100_000
# The audience of the fan-out (row 3) and the store the rows on the loaded server share.
FANOUT_N = int(os.environ.get("BENCH_FANOUT_N", 50_000 if QUICK else 1_000_000))

rows = []
children = []       # processes to stop on exit


# --- reporting ------------------------------------------------------------------------------------

def pair(name, target, herald_fn, ref_fn, reference, unit="req/s", repeats=None):
    """Runs herald_fn and ref_fn alternately (ABBA...) and records the ratio of medians herald/reference,
    with the spread of the per-repeat ratios."""
    h, r = [], []
    for i in range(repeats or REPEATS):
        if i % 2 == 0:
            h.append(herald_fn()); r.append(ref_fn())
        else:
            r.append(ref_fn()); h.append(herald_fn())
    hm, rm = statistics.median(h), statistics.median(r)
    ratios = [a / b for a, b in zip(h, r)]
    ratio = hm / rm
    row = {"row": name, "reference_name": reference, "herald": round(hm), "reference": round(rm), "unit": unit,
           "ratio": round(ratio, 3), "ratio_spread": [round(min(ratios), 3), round(max(ratios), 3)],
           "target": target, "met": None if target is None else ratio >= target,
           "herald_runs": h, "reference_runs": r}
    rows.append(row)
    print(f"  {name}: herald {hm:,.0f} vs {reference} {rm:,.0f} {unit} -> ratio {ratio:.2f} "
          f"[{min(ratios):.2f}..{max(ratios):.2f}]" + (f" (target >= {target})" if target else ""), flush=True)
    return row


def ratio_row(name, target, herald_value, reference_value, reference, unit, note="", spread=None):
    """A ratio against a value measured elsewhere in this run (no alternation possible); `spread`: the lowest
    and highest ratio against single measurements of the reference, when there were several."""
    ratio = herald_value / reference_value if reference_value else 0
    row = {"row": name, "reference_name": reference, "herald": round(herald_value), "reference": round(reference_value),
           "unit": unit, "ratio": round(ratio, 3), "ratio_spread": [round(min(spread), 3), round(max(spread), 3)] if spread else None,
           "target": target,
           "met": None if target is None or note else ratio >= target, "note": note}
    rows.append(row)
    print(f"  {name}: {herald_value:,.0f} vs {reference} {reference_value:,.0f} {unit} -> ratio {ratio:.2f}"
          + (f" [{min(spread):.2f}..{max(spread):.2f}]" if spread else "")
          + (f" (target >= {target})" if target else "") + (f" NOTE: {note}" if note else ""), flush=True)
    return row


def value_row(name, value, unit, note=""):
    rows.append({"row": name, "herald": value, "unit": unit, "note": note})
    print(f"  {name}: {value} {unit} {note}", flush=True)


def skip(name, why):
    rows.append({"row": name, "skipped": why})
    print(f"  {name}: not run ({why})", flush=True)


def guarded(name, fn, *args):
    """Runs one row; a failure becomes a 'not run' line with the reason instead of ending the run."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - the benchmark reports and goes on
        skip(name, f"{type(e).__name__}: {str(e)[:300]}")
        return None


def percentile(sorted_samples, fraction):
    """The sample at `fraction` of a sorted list (nearest rank below, as the table has always used)."""
    return sorted_samples[min(len(sorted_samples) - 1, int(len(sorted_samples) * fraction))]


# --- processes ------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port}")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def spawn(cmd, log_name):
    log = open(os.path.join(WORK, log_name), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    proc.log_path = log.name
    children.append(proc)
    return proc


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill(); proc.wait()
    if proc in children:
        children.remove(proc)


def rss_kib(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class RSSSampler(threading.Thread):
    """Samples a process's resident set every 50 ms; keeps the peak."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0, True

    def run(self):
        while self.running:
            try:
                self.peak = max(self.peak, rss_kib(self.pid))
            except OSError:
                return
            time.sleep(0.05)

    def finish(self):
        self.running = False
        self.join()
        return self.peak


def http_json(method, url, body=None, key=None, timeout=600, raw=None, content_type="application/json"):
    """One HTTP/1.1 request; returns (status, parsed JSON or text)."""
    m = re.match(r"http://([^/]+)(/.*)", url)
    conn = http.client.HTTPConnection(m.group(1), timeout=timeout)
    headers = {}
    if key:
        headers["Authorization"] = "Bearer " + key
    payload = raw
    if body is not None:
        payload = json.dumps(body).encode()
    if payload is not None:
        headers["Content-Type"] = content_type
        if hasattr(payload, "read"):
            headers["Content-Length"] = str(os.fstat(payload.fileno()).st_size)
    conn.request(method, m.group(2), body=payload, headers=headers)
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    try:
        return resp.status, json.loads(text) if text else None
    except ValueError:
        return resp.status, text


# --- fixtures rows share --------------------------------------------------------------------------

_factories = {}     # name -> (start(), stop(value))
_started = {}       # name -> value


def fixture(name, start, stop_fn=None):
    """Declares a shared fixture: `start()` runs when the first row that needs `name` runs, `stop_fn(value)`
    once no later row of this run needs it."""
    _factories[name] = (start, stop_fn)


def use(name):
    if name not in _started:
        _started[name] = _factories[name][0]()
    return _started[name]


def _release(keep):
    for name in [n for n in _started if n not in keep]:
        value = _started.pop(name)
        stop_fn = _factories[name][1]
        if stop_fn:
            stop_fn(value)


# --- the run --------------------------------------------------------------------------------------

def row_order(file):
    """Numbers in a file name compare as numbers, so r9_ comes before r10_ and the table keeps the rows'
    numbering; rL_ (no number) sorts after every numbered row."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", file[1:]) if part]


def load_rows(directory):
    """The row modules in row order (row_order). Each has SELECT (the BENCH_ROWS values that run it), NEEDS (the
    fixtures it shares), TITLE (the name of its 'not run' line) and run()."""
    modules = []
    for file in sorted((f for f in os.listdir(directory) if f.endswith(".py") and not f.startswith("_")), key=row_order):
        spec = importlib.util.spec_from_file_location("bench_row_" + file[:-3], os.path.join(directory, file))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    return modules


def table():
    lines = ["| row | herald | reference | ratio [spread] | target |", "|---|---:|---:|---:|---|"]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['row']} | not run: {r['skipped']} | | | |")
        elif "ratio" in r:
            spread = f" [{r['ratio_spread'][0]:.2f}..{r['ratio_spread'][1]:.2f}]" if r.get("ratio_spread") else ""
            if r["target"] is None:
                status = "-"
            elif r["met"] is None:
                status = f">= {r['target']}: not comparable"
            else:
                status = f">= {r['target']} " + ("met" if r["met"] else "**MISSED**")
            note = f" ({r['note']})" if r.get("note") else ""
            lines.append(f"| {r['row']} | {r['herald']:,} {r['unit']} | {r['reference']:,} ({r['reference_name']}) | "
                         f"{r['ratio']:.2f}{spread} | {status}{note} |")
        else:
            note = f" ({r['note']})" if r.get("note") else ""
            lines.append(f"| {r['row']} | {r['herald']} {r['unit']}{note} | | | |")
    return "\n".join(lines)


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
    except OSError:
        mem = 0
    return {"cores": os.cpu_count(), "cpu": model, "memory_mib": mem, "kernel": os.uname().release,
            "load_before": [round(x, 2) for x in os.getloadavg()]}


def main(row_modules):
    if not os.path.exists(HERALD):
        sys.exit("build first: swift build -c release --product herald (make bench does it)")
    for tool in ["h2load", "nghttpd", "openssl", "wrk"]:
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: make bench installs it (nghttp2-client, nghttp2-server, wrk)")
    info = machine()
    started = time.time()
    print(f"Herald benchmarks ({'quick' if QUICK else 'full'}), {REPEATS} alternating repeats per pair; "
          f"{info['cores']} cores, load {info['load_before']}", flush=True)
    # A row with DEFAULT false (the large mode) runs only when BENCH_ROWS names it.
    selected = [m for m in row_modules if (not ONLY and getattr(m, "DEFAULT", True)) or any(x in ONLY for x in m.SELECT)]
    try:
        for i, module in enumerate(selected):
            def row():
                return module.run(*[use(name) for name in module.NEEDS])
            guarded(module.TITLE, row)
            _release({n for later in selected[i + 1:] for n in later.NEEDS})
    finally:
        _release(set())
    info["load_after"] = [round(x, 2) for x in os.getloadavg()]
    os.makedirs(RESULTS, exist_ok=True)
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "quick": QUICK, "machine": info, "repeats": REPEATS,
              "seconds": round(time.time() - started, 1), "rows": rows}
    with open(os.path.join(RESULTS, "latest.json"), "w") as f:
        json.dump(result, f, indent=2)
    text = table()
    with open(os.path.join(RESULTS, "latest.md"), "w") as f:
        f.write(f"{result['date']}, {'quick' if QUICK else 'full'} run, {result['seconds']} s; {info['cores']} cores "
                f"({info['cpu']}), {info['memory_mib']} MiB, Linux {info['kernel']}, load before {info['load_before']}, "
                f"after {info['load_after']}\n\n{text}\n")
    print()
    print(text)
    print(f"\n{result['seconds']} s on {info['cores']} cores (load before {info['load_before']}, after "
          f"{info['load_after']}); JSON in bench-results/latest.json, table in bench-results/latest.md")


def cleanup():
    for p in list(children):
        stop(p)
    shutil.rmtree(WORK, ignore_errors=True)


# The tools beside bench.py (fanout_ab.py, registration_ab.py, send_ab.py, request_instructions.py, thread_cpu.py,
# device_history_index.py) share WORK: their servers and stores (gigabytes at a million installations) go when
# they end, as bench.py's do.
atexit.register(cleanup)
