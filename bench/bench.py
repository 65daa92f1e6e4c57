#!/usr/bin/env python3
"""Herald's benchmarks: each comparison runs Herald and a reference in the same run, alternating, and
reports the ratio of medians with its spread over repeats. Writes a table to stdout and JSON to
bench-results/latest.json (and the table as Markdown to bench-results/latest.md).

Rows (see BENCHMARKS.md):
  1. APNs client: herald send vs h2load on nghttpd and on the simulator (counting mode); herald send vs aioapns.
  2. Simulator: h2load on the simulator (counting) vs nghttpd; validating with JWT vs counting.
  3. Fan-out: a tag push to N installations through herald serve to its simulator, vs row 1's rate; import time.
  4. Registration API: wrk on the installation upsert vs /healthz.
  5. Memory: peak RSS of herald serve during the fan-out, and at rest with N installations.
  6. Latency: one push through the API to receipt at a simulated device, p50/p99 over sequential pushes.

BENCH_QUICK=1 runs a short version (about 2 minutes).
"""
import base64, http.client, json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
HERALD = os.path.join(ROOT, ".build", "release", "herald")
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

# Sizes: the full run stays under 10 minutes on 2 cores, the quick one near 2.
CLIENT_N = 50_000 if QUICK else 100_000
SIM_CLIENT_N = 30_000 if QUICK else 100_000
AIOAPNS_N = 2_000 if QUICK else 5_000
FANOUT_N = int(os.environ.get("BENCH_FANOUT_N", 50_000 if QUICK else 1_000_000))
WRK_SECONDS = 3 if QUICK else 5
LATENCY_PUSHES = 200 if QUICK else 1_000
LATENCY_BUDGET_S = 20 if QUICK else 90
LATENCY_LOADED_PUSHES = 10 if QUICK else 20   # the same, on the server holding the N installations
# Without a counting-mode simulator in herald serve every token is rejected and retired: slow and not
# comparable, so that fallback pushes to a part of the installations only.
FALLBACK_FANOUT_N = 10_000 if QUICK else 100_000

rows = []
facts = {}          # values later rows refer to (row 1's rate for row 3)
children = []       # processes to stop on exit


# --- reporting ------------------------------------------------------------------------------------

def median_spread(values):
    return statistics.median(values), (min(values), max(values))


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


def ratio_row(name, target, herald_value, reference_value, reference, unit, note=""):
    """A ratio against a value measured elsewhere in this run (no alternation possible)."""
    ratio = herald_value / reference_value if reference_value else 0
    row = {"row": name, "reference_name": reference, "herald": round(herald_value), "reference": round(reference_value),
           "unit": unit, "ratio": round(ratio, 3), "ratio_spread": None, "target": target,
           "met": None if target is None or note else ratio >= target, "note": note}
    rows.append(row)
    print(f"  {name}: {herald_value:,.0f} vs {reference} {reference_value:,.0f} {unit} -> ratio {ratio:.2f}"
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
    proc = spawn(["nghttpd", "-d", os.path.join(WORK, "docroot"), str(port), key, cert], "nghttpd.log")
    wait_port(port)
    return proc, port


class Sim:
    """`herald sim start` on free ports, in counting (accept-all) or validating mode."""

    def __init__(self, accept_all):
        self.port, self.inspection = free_port(), free_port()
        self.dir = tempfile.mkdtemp(prefix="sim-", dir=WORK)
        cmd = [HERALD, "sim", "start", "--port", str(self.port), "--production-port", "-1",
               "--inspection-port", str(self.inspection), "--data-dir", self.dir]
        if accept_all:
            cmd.append("--accept-all")
        self.proc = spawn(cmd, f"sim-{'count' if accept_all else 'validate'}.log")
        wait_port(self.port); wait_port(self.inspection)
        self.ca = os.path.join(self.dir, "ca.pem")
        self.url = f"http://127.0.0.1:{self.inspection}"
        self.host = f"127.0.0.1:{self.port}"

    def stats(self):
        return http_json("GET", self.url + "/stats")

    def stop(self):
        stop(self.proc)


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


def tokens_file(n):
    path = os.path.join(WORK, f"tokens-{n}.txt")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write((TOKEN + "\n") * n)
    return path


def body_file():
    path = os.path.join(WORK, "body.json")
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(BODY)
    return path


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def es256_jwt(p8, key_id, team_id):
    """A provider token signed with openssl (DER signature converted to JOSE r||s)."""
    signing_input = b64url(json.dumps({"alg": "ES256", "kid": key_id}).encode()) + "." + \
        b64url(json.dumps({"iss": team_id, "iat": int(time.time())}).encode())
    der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", p8], input=signing_input.encode(),
                         capture_output=True, check=True).stdout

    def integer(at):
        assert der[at] == 0x02
        length = der[at + 1]
        return int.from_bytes(der[at + 2:at + 2 + length], "big"), at + 2 + length
    at = 2 if der[1] < 0x80 else 3
    r, at = integer(at)
    s, _ = integer(at)
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


# --- load generators ------------------------------------------------------------------------------

H2LOAD_RATE = re.compile(r"finished in [^,]+, ([0-9.]+) req/s")
H2LOAD_STATUS = re.compile(r"status codes: (\d+) 2xx")


def h2load(url, n, c, m, extra=()):
    out = run(["h2load", "-n", str(n), "-c", str(c), "-m", str(m), "-d", body_file(),
               "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", *extra, url]).stdout
    match, ok = H2LOAD_RATE.search(out), H2LOAD_STATUS.search(out)
    # A token connection allows one stream until its first token is verified, as APNs does; h2load opens
    # its first window at once and does not retry the streams refused then, so those may fail.
    refused_at_start = c * (m - 1) if any("authorization" in x for x in extra) else 0
    if not match or not ok or int(ok.group(1)) < n - refused_at_start:
        fails = re.search(r"requests: .*\n.*status codes: .*", out)
        raise RuntimeError(f"h2load did not get {n} 2xx: {fails.group(0) if fails else out[-300:]}")
    return float(match.group(1))


SEND_RATE = re.compile(r"in ([0-9.]+) s \(([0-9]+)/s\)")


def herald_send(host_port, ca, p8, n, c, s, extra=()):
    out = run([HERALD, "send", "--host", host_port, "--ca", ca, "--key", p8, "--key-id", KEY_ID,
               "--team-id", TEAM_ID, "--topic", TOPIC, "--tokens-file", tokens_file(n),
               "--payload", body_file(), "--connections", str(c), "--streams", str(s),
               "--concurrency", str(c * s * 4), *extra])
    match, accepted = SEND_RATE.search(out.stderr), re.search(r"(\d+) accepted", out.stderr)
    if out.returncode != 0 or not match or not accepted or int(accepted.group(1)) != n:
        raise RuntimeError(f"herald send did not get {n} accepted: {out.stderr[-400:]}")
    return int(match.group(2))


def ensure_aioapns():
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        print("  creating bench-results/.venv for aioapns", flush=True)
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    if run([python, "-c", "import aioapns"]).returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "-q", "aioapns"], check=True)
    return python


def aioapns_send(python, sim, p8, n, c, s):
    out = run([python, os.path.join(HERE, "aioapns_send.py"), "--host", "127.0.0.1", "--port", str(sim.port),
               "--ca", sim.ca, "--key", p8, "--key-id", KEY_ID, "--team-id", TEAM_ID, "--topic", TOPIC,
               "--token", TOKEN, "--payload", body_file(), "-n", str(n), "--connections", str(c), "--streams", str(s)])
    if out.returncode != 0:
        raise RuntimeError(f"aioapns failed: {out.stderr[-400:]}")
    return float(json.loads(out.stdout)["rate"])


WRK_RATE = re.compile(r"Requests/sec:\s+([0-9.]+)")


def wrk(url, seconds, script=None, connections=16):
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script:
        cmd += ["-s", script]
    out = run(cmd + [url]).stdout
    match = WRK_RATE.search(out)
    if not match or "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk: {out[-400:]}")
    return float(match.group(1))


# --- herald serve ---------------------------------------------------------------------------------

class Serve:
    """`herald serve` with its built-in simulator, on free ports; keeps the keys printed on first start."""

    def __init__(self, data_dir, extra=()):
        self.dir, self.extra = data_dir, list(extra)
        self.http, self.inspection, self.sim_port = free_port(), free_port(), free_port()
        self.keys = {}
        self.start()

    def start(self):
        self.proc = spawn([HERALD, "serve", "--http-port", str(self.http), "--data-dir", self.dir,
                           "--simulator-inspection-port", str(self.inspection), "--simulator-port", str(self.sim_port),
                           "--log-format", "json", "--api-rate-limit", "0", *self.extra], "serve.log")
        wait_port(self.http, timeout=60)
        self.url = f"http://127.0.0.1:{self.http}"
        self.sim_url = f"http://127.0.0.1:{self.inspection}"
        if self.keys:
            return
        # First start: the keys are logged once, just after the port opens.
        deadline = time.time() + 20
        while time.time() < deadline and "client" not in self.keys:
            with open(self.proc.log_path) as f:
                text = f.read()
            for name in ["admin", "master", "client"]:
                m = re.search(name + r" key[^:]*: (\w+)", text)
                if m:
                    self.keys[name] = m.group(1)
            time.sleep(0.1)
        if "client" not in self.keys:
            raise RuntimeError(f"herald serve printed no keys on first start: {text[-400:]}")

    def restart(self):
        stop(self.proc)
        self.start()

    def rss(self, field="VmRSS"):
        return rss_kib(self.proc.pid, field)

    def stop(self):
        stop(self.proc)


def serve_accept_all_flags():
    """How to run herald serve's built-in simulator in counting mode, if this build can."""
    text = run([HERALD, "serve", "--help"]).stdout + run([HERALD, "serve", "--help"]).stderr
    for key, flag, value in [("simulator.acceptAll", "--simulator-accept-all", "true"),
                             ("simulator.mode", "--simulator-mode", "acceptAll")]:
        if key in text:
            return [flag, value]
    return None


# --- rows -----------------------------------------------------------------------------------------

def same_headers_as_herald(p8):
    """The headers `herald send` puts on each request besides apns-topic and apns-push-type, so that h2load
    sends the same requests: the provider token (nghttp2 never indexes `authorization`, so its ~200
    bytes go out with every request, on both sides) and the priority."""
    return ["-H", f"authorization: bearer {es256_jwt(p8, KEY_ID, TEAM_ID)}", "-H", "apns-priority: 10"]


def row_client_nghttpd(key, cert, p8):
    print("1. APNs client: herald send vs h2load, same sink (nghttpd), connections and streams", flush=True)
    proc, port = start_nghttpd(key, cert)
    try:
        url = f"https://127.0.0.1:{port}/3/device/{TOKEN}"
        headers = same_headers_as_herald(p8)
        for c, s in [(1, 100), (4, 100)]:
            pair(f"1 client {c}x{s}, nghttpd sink", 0.8,
                 lambda: herald_send(f"127.0.0.1:{port}", cert, p8, CLIENT_N, c, s),
                 lambda: h2load(url, CLIENT_N, c, s, headers), "h2load")
    finally:
        stop(proc)


def row_client_sim(counting, p8):
    print("1. APNs client: herald send vs h2load on the simulator (counting mode)", flush=True)
    url = f"https://{counting.host}/3/device/{TOKEN}"
    headers = same_headers_as_herald(p8)
    for c, s in [(4, 100)]:
        row = pair(f"1 client {c}x{s}, simulator (counting)", 0.8,
                   lambda: herald_send(counting.host, counting.ca, p8, SIM_CLIENT_N, c, s),
                   lambda: h2load(url, SIM_CLIENT_N, c, s, headers), "h2load")
        facts[f"send_sim_{c}x{s}"] = row["herald"]


def row_client_aioapns(counting, p8):
    print("1. APNs client: herald send vs aioapns (Python asyncio) on the simulator (counting mode)", flush=True)
    python = ensure_aioapns()
    pair("1 client 1x100 vs aioapns, simulator", None,
         lambda: herald_send(counting.host, counting.ca, p8, AIOAPNS_N, 1, 100),
         lambda: aioapns_send(python, counting, p8, AIOAPNS_N, 1, 100), "aioapns")


def row_simulator(key, cert, counting, validating):
    print("2. Simulator: h2load on the simulator vs h2load on nghttpd; validating (JWT) vs counting", flush=True)
    proc, port = start_nghttpd(key, cert)
    try:
        for c, s in [(1, 100), (4, 100)]:
            pair(f"2 simulator (counting) {c}x{s} vs nghttpd", 0.5,
                 lambda: h2load(f"https://{counting.host}/3/device/{TOKEN}", SIM_CLIENT_N, c, s),
                 lambda: h2load(f"https://127.0.0.1:{port}/3/device/{TOKEN}", SIM_CLIENT_N, c, s), "nghttpd")
    finally:
        stop(proc)
    run([HERALD, "sim", "key", "--bundle-id", TOPIC, "--key-id", KEY_ID, "--team-id", TEAM_ID, "--out", WORK,
         "--sim", validating.url], check=True)
    sim_p8 = os.path.join(WORK, f"AuthKey_{KEY_ID}.p8")
    token = json.loads(run([HERALD, "sim", "install", "--bundle-id", TOPIC, "--sim", validating.url, "--json"],
                           check=True).stdout)["token"]
    auth = ["-H", f"authorization: bearer {es256_jwt(sim_p8, KEY_ID, TEAM_ID)}"]
    for c, s in [(4, 100)]:
        pair(f"2 simulator validating+JWT {c}x{s} vs counting", 0.7,
             lambda: h2load(f"https://{validating.host}/3/device/{token}", SIM_CLIENT_N, c, s, auth),
             lambda: h2load(f"https://{counting.host}/3/device/{token}", SIM_CLIENT_N, c, s, auth), "counting")


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


def rows_serve():
    """Rows 3, 4 and 5 share one herald serve holding N installations; row 6 wants a validating simulator."""
    accept_all = serve_accept_all_flags()
    fanout_n = FANOUT_N if accept_all else min(FANOUT_N, FALLBACK_FANOUT_N)
    print(f"3. Fan-out: tag push to {fanout_n:,} of {FANOUT_N:,} installations through herald serve to its simulator"
          + ("" if accept_all else " (validating: no accept-all setting in this build)"), flush=True)
    serve = Serve(os.path.join(WORK, "serve-data"), accept_all or [])
    try:
        jsonl = import_file(FANOUT_N, fanout_n)
        started = time.time()
        with open(jsonl, "rb") as body:
            status, answer = http_json("POST", f"{serve.url}/v1/installations/import?format=jsonl", key=serve.keys["master"],
                                       raw=body, content_type="application/x-ndjson", timeout=900)
        import_s = time.time() - started
        if status != 200 or answer.get("failed"):
            raise RuntimeError(f"import answered {status}: {str(answer)[:300]}")
        value_row(f"3 import {FANOUT_N:,} installations (JSON lines)", round(import_s, 1), "s",
                  f"{FANOUT_N / import_s:,.0f}/s")

        # At rest: a fresh process over the same store, after start-up settles.
        serve.restart()
        time.sleep(3)
        value_row(f"5 RSS at rest, {FANOUT_N:,} installations", round(serve.rss() / 1024), "MiB",
                  "fresh process, after start")

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
        reference = facts.get("send_sim_4x100") or facts.get("send_sim_1x100")
        note = ""
        if not accept_all:
            note = (f"herald serve has no setting to run its simulator in accept-all mode, so all "
                    f"{fanout_n:,} tokens were answered BadDeviceToken and retired")
        elif counts.get("sent") != fanout_n:
            note = f"only {counts.get('sent')} of {fanout_n} sent: {counts}"
        value_row(f"3 fan-out {fanout_n:,}: API call to last ack", round(fanout_s, 1), "s", f"counts {counts}")
        if reference:
            ratio_row("3 fan-out rate vs row 1 (send 4x100, simulator)", 0.5, rate, reference, "herald send",
                      "notif/s", note)
        value_row("5 peak RSS during fan-out", round(peak / 1024), "MiB", "herald serve incl. its simulator")

        guarded("4 registration API", row_registration, serve)
        if not accept_all:
            guarded("6 latency, large store", row_latency, serve, LATENCY_LOADED_PUSHES, f"{FANOUT_N:,} installations")
    finally:
        serve.stop()
    # The latency row proper: a fresh server whose simulator validates and delivers to devices.
    serve = Serve(os.path.join(WORK, "serve-latency"))
    try:
        guarded("6 latency", row_latency, serve, LATENCY_PUSHES, "fresh store")
    finally:
        serve.stop()


def row_registration(serve):
    print("4. Registration API: wrk on POST /v1/installations (keep-alive) vs GET /healthz", flush=True)
    script = os.path.join(WORK, "upsert.lua")
    with open(script, "w") as f:
        f.write(f"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer {serve.keys['client']}"
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
request = function()
  local t = {{}}
  for i = 1, 8 do t[i] = string.format("%08x", math.random(0, 2147483647)) end
  return wrk.format(nil, nil, nil, '{{"deviceToken":"' .. table.concat(t) .. '","environment":"sandbox","tags":["wrk"]}}')
end
""")
    pair("4 installation upsert vs /healthz (wrk)", None,
         lambda: wrk(f"{serve.url}/v1/installations", WRK_SECONDS, script),
         lambda: wrk(f"{serve.url}/healthz", WRK_SECONDS), "/healthz")


def row_latency(serve, pushes, store):
    print(f"6. Latency: push through the API to receipt at a simulated device ({pushes} sequential, {store})", flush=True)
    status, device = http_json("POST", serve.sim_url + "/devices", body={"online": True, "name": "latency"})
    status, app = http_json("POST", f"{serve.sim_url}/devices/{device['id']}/apps",
                            body={"bundleId": "com.example.herald", "environment": "sandbox"})
    token = app["token"]
    status, _ = http_json("POST", serve.url + "/v1/installations", key=serve.keys["client"],
                          body={"deviceToken": token, "environment": "sandbox", "tags": ["latency"]})
    if status not in (200, 201):
        raise RuntimeError(f"registering the device answered {status}")
    stream = http.client.HTTPConnection("127.0.0.1", serve.inspection, timeout=30)
    stream.request("GET", f"/devices/{device['id']}/stream")
    events = stream.getresponse()
    api = http.client.HTTPConnection("127.0.0.1", serve.http, timeout=30)
    headers = {"Authorization": "Bearer " + serve.keys["master"], "Content-Type": "application/json"}

    def next_notification():
        event = None
        while True:
            line = events.fp.readline()
            if not line:
                raise RuntimeError("device stream ended")
            line = line.decode().strip()
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "notification":
                return json.loads(line[5:])

    samples = []
    budget = time.time() + LATENCY_BUDGET_S
    for i in range(pushes):
        if time.time() > budget:
            break
        body = json.dumps({"target": {"tokens": [token]}, "content": {"alert": f"latency {i}"}})
        started = time.perf_counter()
        api.request("POST", "/v1/pushes", body=body, headers=headers)
        answer = api.getresponse(); answer.read()
        if answer.status not in (200, 201, 202):
            raise RuntimeError(f"push answered {answer.status}")
        while f"latency {i}\"" not in json.dumps(next_notification()):
            pass
        samples.append((time.perf_counter() - started) * 1000)
    stream.close(); api.close()
    samples.sort()
    p50 = samples[len(samples) // 2]
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    note = "" if len(samples) == pushes else f"time budget: {len(samples)} of {pushes} pushes"
    value_row(f"6 latency API -> device, {store}, p50 of {len(samples)}", round(p50, 1), "ms", note)
    value_row(f"6 latency API -> device, {store}, p99 of {len(samples)}", round(p99, 1), "ms", note)


# --- output ---------------------------------------------------------------------------------------

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


def main():
    if not os.path.exists(HERALD):
        sys.exit("build first: swift build -c release --product herald (make bench does it)")
    for tool in ["h2load", "nghttpd", "openssl", "wrk"]:
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: make bench installs it (nghttp2-client, nghttp2-server, wrk)")
    info = machine()
    started = time.time()
    print(f"Herald benchmarks ({'quick' if QUICK else 'full'}), {REPEATS} alternating repeats per pair; "
          f"{info['cores']} cores, load {info['load_before']}", flush=True)
    key, cert, p8 = make_tls()
    wanted = lambda *r: not ONLY or any(x in ONLY for x in r)
    if wanted("1"):
        guarded("1 client vs h2load, nghttpd", row_client_nghttpd, key, cert, p8)
    if wanted("1", "2", "3"):
        counting, validating = Sim(accept_all=True), Sim(accept_all=False)
        try:
            if wanted("1", "3"):
                guarded("1 client vs h2load, simulator", row_client_sim, counting, p8)
            if wanted("1"):
                guarded("1 client vs aioapns", row_client_aioapns, counting, p8)
            if wanted("2"):
                guarded("2 simulator", row_simulator, key, cert, counting, validating)
        finally:
            counting.stop(); validating.stop()
    if wanted("3", "4", "5", "6"):
        guarded("3-6 herald serve", rows_serve)
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


if __name__ == "__main__":
    try:
        main()
    finally:
        for p in list(children):
            stop(p)
        shutil.rmtree(WORK, ignore_errors=True)
