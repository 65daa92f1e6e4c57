"""What rows measure with: TLS material, the nghttpd sink, `herald sim` and `herald serve` on free ports,
and the load generators (h2load, herald send, wrk, aioapns). The shared ones are registered as fixtures."""
import base64, json, os, re, subprocess, sys, tempfile, time

from harness import (BODY, HERALD, HERE, KEY_ID, RESULTS, TEAM_ID, TOKEN, TOPIC, VENV, WORK, fixture, free_port,
                     http_json, rss_kib, run, spawn, stop, wait_port)


# --- TLS and the nghttpd sink ---------------------------------------------------------------------

def make_tls():
    """(key, cert, p8): the sink's key and certificate for localhost, and a .p8 signing key."""
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


def same_headers_as_herald(p8):
    """The headers `herald send` puts on each request besides apns-topic and apns-push-type, so that h2load
    sends the same requests: the provider token (nghttp2 never indexes `authorization`, so its ~200
    bytes go out with every request, on both sides) and the priority."""
    return ["-H", f"authorization: bearer {es256_jwt(p8, KEY_ID, TEAM_ID)}", "-H", "apns-priority: 10"]


# --- herald sim and herald serve ------------------------------------------------------------------

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


class Serve:
    """`herald serve` with its built-in simulator, on free ports; keeps the keys printed on first start."""

    def __init__(self, data_dir, extra=(), binary=HERALD, keys=None):
        """`keys`: those of a store another node started first (a node that is not the first prints none)."""
        self.dir, self.extra, self.binary = data_dir, list(extra), binary
        self.http, self.inspection, self.sim_port = free_port(), free_port(), free_port()
        self.keys = dict(keys or {})
        self.start()

    def start(self):
        self.proc = spawn([self.binary, "serve", "--http-port", str(self.http), "--data-dir", self.dir,
                           "--simulator-inspection-port", str(self.inspection), "--simulator-port", str(self.sim_port),
                           "--log-format", "json", "--api-rate-limit", "0", *self.extra], f"serve-{os.path.basename(self.dir)}.log")
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

    def import_jsonl(self, path, timeout=1800):
        """Imports a JSON-lines file of installations with the master key (`POST /v1/installations/import`);
        returns the answer, or raises when the import, or any line of it, failed."""
        with open(path, "rb") as body:
            status, answer = http_json("POST", f"{self.url}/v1/installations/import?format=jsonl", key=self.keys["master"],
                                       raw=body, content_type="application/x-ndjson", timeout=timeout)
        if status != 200 or answer.get("failed"):
            raise RuntimeError(f"import answered {status}: {str(answer)[:300]}")
        return answer

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


class CallgrindServe:
    """`herald serve` of `binary` under valgrind's callgrind, for instruction counts a noisy machine cannot move:
    `zero()` before the work to count, `dump(label)` after it returns the user-space instructions since and the
    dump's path (kept in bench-results/callgrind/). The binary is stripped of its DWARF first (valgrind 3.19
    cannot read Swift's). SQLITE_LIBRARY_DIR, a colon-separated list of directories, goes first on the server's
    LD_LIBRARY_PATH: libraries built with -g there (SQLite's, nghttp2's) give their functions names."""

    def __init__(self, binary, name):
        stripped = os.path.join(WORK, f"{name}.stripped")
        subprocess.run(["strip", "--strip-debug", "-o", stripped, binary], check=True)
        self.dumps = os.path.join(RESULTS, "callgrind")
        os.makedirs(self.dumps, exist_ok=True)
        wrapper = os.path.join(WORK, f"{name}.callgrind.sh")
        library = os.environ.get("SQLITE_LIBRARY_DIR")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n" + (f"export LD_LIBRARY_PATH={library}\n" if library else "")
                    + f"exec valgrind --tool=callgrind --callgrind-out-file={self.dumps}/{name}.%p.callgrind {stripped} \"$@\"\n")
        os.chmod(wrapper, 0o755)
        self.name, self.dumped = name, 0
        self.serve = Serve(os.path.join(WORK, f"data-{name}"), serve_accept_all_flags() or [], binary=wrapper)

    def zero(self):
        subprocess.run(["callgrind_control", "-z", str(self.serve.proc.pid)], check=True, capture_output=True)

    def dump(self, label):
        subprocess.run(["callgrind_control", "-d", label, str(self.serve.proc.pid)], check=True, capture_output=True)
        # The wrapper execs valgrind, so the server's pid names the file; each dump gets the next number.
        self.dumped += 1
        path = os.path.join(self.dumps, f"{self.name}.{self.serve.proc.pid}.callgrind.{self.dumped}")
        with open(path) as f:
            return next(int(line.split()[1]) for line in f if line.startswith("summary:")), path

    def stop(self):
        self.serve.stop()


def _bulk_serve():
    """The server rows 3-5 share: its simulator acknowledges every token, so it can take a large audience."""
    accept_all = serve_accept_all_flags()
    serve = Serve(os.path.join(WORK, "serve-data"), accept_all or [])
    serve.accept_all = accept_all is not None
    return serve


fixture("tls", make_tls)
fixture("counting", lambda: Sim(accept_all=True), Sim.stop)
fixture("validating", lambda: Sim(accept_all=False), Sim.stop)
fixture("bulk_serve", _bulk_serve, Serve.stop)


# --- load generators ------------------------------------------------------------------------------

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


def herald_send(host_port, ca, p8, n, c, s, extra=(), binary=None):
    out = run([binary or HERALD, "send", "--host", host_port, "--ca", ca, "--key", p8, "--key-id", KEY_ID,
               "--team-id", TEAM_ID, "--topic", TOPIC, "--tokens-file", tokens_file(n),
               "--payload", body_file(), "--connections", str(c), "--streams", str(s),
               "--concurrency", str(c * s * 4), *extra])
    # The summary reads "N notifications in S s (R/s): A accepted, F failed" ("accepted: A" before).
    match, accepted = SEND_RATE.search(out.stderr), re.search(r"(\d+) accepted|accepted: (\d+)", out.stderr)
    if out.returncode != 0 or not match or not accepted or int(accepted.group(1) or accepted.group(2)) != n:
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
