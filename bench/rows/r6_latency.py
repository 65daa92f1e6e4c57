"""Row 6: one push to one token through `POST /v1/pushes` until the simulated device's event stream shows
it, sequential pushes on a fresh server whose simulator validates and delivers to devices; p50 and p99."""
import http.client, json, os, time

from harness import QUICK, WORK, http_json, percentile, value_row
from tools import Serve

TITLE = "6 latency"
SELECT = ("6",)
NEEDS = ()
LATENCY_PUSHES = int(os.environ.get("BENCH_LATENCY_PUSHES", 200 if QUICK else 1_000))
LATENCY_BUDGET_S = 20 if QUICK else 90


def run():
    serve = Serve(os.path.join(WORK, "serve-latency"))
    try:
        measure(serve, LATENCY_PUSHES, "fresh store")
    finally:
        serve.stop()


def measure(serve, pushes, store):
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
    note = "" if len(samples) == pushes else f"time budget: {len(samples)} of {pushes} pushes"
    value_row(f"6 latency API -> device, {store}, p50 of {len(samples)}", round(percentile(samples, 0.5), 1), "ms", note)
    value_row(f"6 latency API -> device, {store}, p99 of {len(samples)}", round(percentile(samples, 0.99), 1), "ms", note)
