"""Row 6: one push to one token through `POST /v1/pushes` until the simulated device's event stream shows
it, sequential pushes on a fresh server whose simulator validates and delivers to devices; p50 and p99.

BENCH_BASELINE=/path/to/an/older/herald measures that binary too, in the same run, alternating blocks of
pushes between the two servers, so a change's effect is a same-run ratio rather than two runs' numbers."""
import http.client, json, os, time

from harness import QUICK, REPEATS, WORK, http_json, percentile, ratio_row, value_row
from tools import Serve

TITLE = "6 latency"
SELECT = ("6",)
NEEDS = ()
LATENCY_PUSHES = int(os.environ.get("BENCH_LATENCY_PUSHES", 200 if QUICK else 1_000))
LATENCY_BUDGET_S = 20 if QUICK else 90
BASELINE = os.environ.get("BENCH_BASELINE")


class Probe:
    """A device on the server's simulator, its event stream open, an installation for its token and one
    keep-alive API connection: `push()` times one push from the API call to the device."""

    def __init__(self, serve):
        status, device = http_json("POST", serve.sim_url + "/devices", body={"online": True, "name": "latency"})
        status, app = http_json("POST", f"{serve.sim_url}/devices/{device['id']}/apps",
                                body={"bundleId": "com.example.herald", "environment": "sandbox"})
        self.token = app["token"]
        status, _ = http_json("POST", serve.url + "/v1/installations", key=serve.keys["client"],
                              body={"deviceToken": self.token, "environment": "sandbox", "tags": ["latency"]})
        if status not in (200, 201):
            raise RuntimeError(f"registering the device answered {status}")
        self.stream = http.client.HTTPConnection("127.0.0.1", serve.inspection, timeout=30)
        self.stream.request("GET", f"/devices/{device['id']}/stream")
        self.events = self.stream.getresponse()
        self.api = http.client.HTTPConnection("127.0.0.1", serve.http, timeout=30)
        self.headers = {"Authorization": "Bearer " + serve.keys["master"], "Content-Type": "application/json"}
        self.sent = 0

    def next_notification(self):
        event = None
        while True:
            line = self.events.fp.readline()
            if not line:
                raise RuntimeError("device stream ended")
            line = line.decode().strip()
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "notification":
                return json.loads(line[5:])

    def push(self):
        i = self.sent
        self.sent += 1
        body = json.dumps({"target": {"tokens": [self.token]}, "content": {"alert": f"latency {i}"}})
        started = time.perf_counter()
        self.api.request("POST", "/v1/pushes", body=body, headers=self.headers)
        answer = self.api.getresponse(); answer.read()
        if answer.status not in (200, 201, 202):
            raise RuntimeError(f"push answered {answer.status}")
        while f"latency {i}\"" not in json.dumps(self.next_notification()):
            pass
        return (time.perf_counter() - started) * 1000

    def close(self):
        self.stream.close(); self.api.close()


def record(name, store, samples, pushes):
    samples.sort()
    note = "" if len(samples) == pushes else f"time budget: {len(samples)} of {pushes} pushes"
    p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
    value_row(f"6 latency API -> device, {store}, p50 of {len(samples)}{name}", round(p50, 2), "ms", note)
    value_row(f"6 latency API -> device, {store}, p99 of {len(samples)}{name}", round(p99, 2), "ms", note)
    return p50, p99


def run():
    sides = [("", Serve(os.path.join(WORK, "serve-latency")))]
    if BASELINE:
        sides.append((" (BENCH_BASELINE)", Serve(os.path.join(WORK, "serve-latency-baseline"), binary=BASELINE)))
    try:
        print(f"6. Latency: push through the API to receipt at a simulated device ({LATENCY_PUSHES} sequential, "
              f"fresh store{', alternating with BENCH_BASELINE' if BASELINE else ''})", flush=True)
        probes = [Probe(serve) for _, serve in sides]
        samples = [[] for _ in sides]
        blocks = REPEATS * 2 if BASELINE else 1
        budget = time.time() + LATENCY_BUDGET_S * len(sides)
        for block in range(blocks):
            order = range(len(sides)) if block % 2 == 0 else reversed(range(len(sides)))
            for side in order:
                for _ in range(LATENCY_PUSHES // blocks):
                    if time.time() > budget:
                        break
                    samples[side].append(probes[side].push())
        for probe in probes:
            probe.close()
        results = [record(name, "fresh store", s, LATENCY_PUSHES // blocks * blocks) for (name, _), s in zip(sides, samples)]
        if BASELINE:
            for label, i in [("p50", 0), ("p99", 1)]:
                ratio_row(f"6 latency {label}, this build / BENCH_BASELINE (lower is better)", None,
                          results[0][i] * 1000, results[1][i] * 1000, "baseline", "us")
    finally:
        for _, serve in sides:
            serve.stop()
