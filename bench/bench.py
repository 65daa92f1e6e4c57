#!/usr/bin/env python3
"""Herald's benchmarks: each row runs Herald and a reference in the same run, alternating, and reports
the ratio of medians with its spread. Writes a table to stdout and JSON to bench-results/latest.json.

Rows (see BENCHMARKS.md): client vs h2load on nghttpd; simulator vs nghttpd under h2load; validating vs
accept-all simulator; and, when `herald serve` is available, fan-out, registration API, memory and latency.
"""
import json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERALD = os.path.join(ROOT, ".build", "release", "herald")
QUICK = os.environ.get("BENCH_QUICK") == "1"
REPEATS = 2 if QUICK else 3
WORK = tempfile.mkdtemp(prefix="herald-bench-")
TOKEN = "%064x" % 1
BODY = b'{"aps":{"alert":{"title":"Hello","body":"Benchmark"},"badge":1}}'
rows = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
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


def median_spread(values):
    m = statistics.median(values)
    return m, (min(values), max(values))


def pair(name, target, herald_fn, ref_fn, unit="req/s", higher_is_better=True):
    """Runs herald_fn and ref_fn alternately REPEATS times; records the ratio herald/reference."""
    h, r = [], []
    for i in range(REPEATS):
        if i % 2 == 0:
            h.append(herald_fn()); r.append(ref_fn())
        else:
            r.append(ref_fn()); h.append(herald_fn())
    hm, hs = median_spread(h)
    rm, rs = median_spread(r)
    ratios = [a / b for a, b in zip(h, r)] if higher_is_better else [b / a for a, b in zip(h, r)]
    ratio = hm / rm if higher_is_better else rm / hm
    row = {"row": name, "herald": round(hm), "reference": round(rm), "unit": unit, "ratio": round(ratio, 3),
           "ratio_spread": [round(min(ratios), 3), round(max(ratios), 3)], "target": target,
           "met": None if target is None else ratio >= target, "herald_runs": h, "reference_runs": r}
    rows.append(row)
    print(f"  {name}: herald {hm:,.0f} vs reference {rm:,.0f} {unit} -> ratio {ratio:.2f}"
          + (f" (target {target})" if target else ""), flush=True)
    return row


def note(name, value, unit, detail=""):
    rows.append({"row": name, "herald": value, "unit": unit, "detail": detail})
    print(f"  {name}: {value} {unit} {detail}", flush=True)


def skip(name, why):
    rows.append({"row": name, "skipped": why})
    print(f"  {name}: not run ({why})", flush=True)


# --- fixtures -------------------------------------------------------------------------------------

def make_tls():
    key, cert = os.path.join(WORK, "sink.key"), os.path.join(WORK, "sink.pem")
    run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True)
    p8 = os.path.join(WORK, "bench.p8")
    k = run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"], check=True).stdout
    with open(p8, "w") as f:
        f.write(run(["openssl", "pkcs8", "-topk8", "-nocrypt"], input=k, check=True).stdout)
    return key, cert, p8


def start_nghttpd(key, cert):
    root = os.path.join(WORK, "docroot", "3", "device")
    os.makedirs(root, exist_ok=True)
    open(os.path.join(root, TOKEN), "w").close()
    port = free_port()
    proc = subprocess.Popen(["nghttpd", "-d", os.path.join(WORK, "docroot"), str(port), key, cert],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return proc, port


def tokens_file(n):
    path = os.path.join(WORK, f"tokens-{n}.txt")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write((TOKEN + "\n") * n)
    return path


def body_file():
    path = os.path.join(WORK, "body.json")
    with open(path, "wb") as f:
        f.write(BODY)
    return path


H2LOAD_RATE = re.compile(r"finished in [^,]+, ([0-9.]+) req/s")


def h2load(url, n, c, m, extra=()):
    out = run(["h2load", "-n", str(n), "-c", str(c), "-m", str(m), "-d", body_file(),
               "-H", "apns-topic: com.example.bench", "-H", "apns-push-type: alert", *extra, url]).stdout
    match = H2LOAD_RATE.search(out)
    if not match or "0 failed" not in out.replace(", 0 errored", ""):
        fails = re.search(r"requests: .*", out)
        raise RuntimeError(f"h2load failed: {fails.group(0) if fails else out[-300:]}")
    return float(match.group(1))


SEND_RATE = re.compile(r"in ([0-9.]+) s \(([0-9]+)/s\)")


def herald_send(host_port, ca, p8, n, c, s, extra=()):
    out = run([HERALD, "send", "--host", host_port, "--ca", ca, "--key", p8, "--key-id", "BENCHKEY01",
               "--team-id", "BENCHTEAM1", "--topic", "com.example.bench", "--tokens-file", tokens_file(n),
               "--payload", body_file(), "--connections", str(c), "--streams", str(s),
               "--concurrency", str(c * s * 4), *extra])
    match = SEND_RATE.search(out.stderr)
    if out.returncode != 0 or not match:
        raise RuntimeError(f"herald send failed: {out.stderr[-400:]}")
    return int(match.group(2))


# --- rows -----------------------------------------------------------------------------------------

def row_client(key, cert, p8):
    print("1. APNs client: herald send vs h2load, same sink (nghttpd), connections and streams", flush=True)
    proc, port = start_nghttpd(key, cert)
    try:
        n = 50_000 if QUICK else 200_000
        for c, s in [(1, 100), (4, 100)]:
            url = f"https://127.0.0.1:{port}/3/device/{TOKEN}"
            pair(f"client {c}x{s} vs h2load (nghttpd)", 0.8,
                 lambda: herald_send(f"127.0.0.1:{port}", cert, p8, n, c, s),
                 lambda: h2load(url, n, c, s))
    finally:
        proc.terminate(); proc.wait()


def main():
    if not os.path.exists(HERALD):
        sys.exit("build first: swift build -c release --product herald (make bench does it)")
    for tool in ["h2load", "nghttpd", "openssl"]:
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: make bench installs it (nghttp2-client, nghttp2-server)")
    started = time.time()
    key, cert, p8 = make_tls()
    row_client(key, cert, p8)
    machine = {"cores": os.cpu_count(), "uname": " ".join(os.uname()), "load": os.getloadavg()}
    os.makedirs(os.path.join(ROOT, "bench-results"), exist_ok=True)
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine, "repeats": REPEATS,
              "seconds": round(time.time() - started, 1), "rows": rows}
    with open(os.path.join(ROOT, "bench-results", "latest.json"), "w") as f:
        json.dump(result, f, indent=2)
    print()
    print(f"{'row':48} {'herald':>12} {'reference':>12} {'ratio':>7} {'spread':>13} {'target':>7}")
    for r in rows:
        if "skipped" in r:
            print(f"{r['row']:48} not run: {r['skipped']}")
        elif "ratio" in r:
            status = "" if r["met"] is None else (" ok" if r["met"] else " MISSED")
            print(f"{r['row']:48} {r['herald']:>12,} {r['reference']:>12,} {r['ratio']:>7.2f} "
                  f"{str(r['ratio_spread']):>13} {str(r['target'] or '-'):>7}{status}")
        else:
            print(f"{r['row']:48} {r['herald']:>12} {r['unit']} {r.get('detail', '')}")
    print(f"\n{result['seconds']} s on {machine['cores']} cores; JSON in bench-results/latest.json")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
