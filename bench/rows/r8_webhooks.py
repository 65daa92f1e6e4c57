"""Row 8: the cost of webhooks on the fan-out. Row 3's tag push to N installations (1,000,000; 50,000 quick;
BENCH_WEBHOOK_N overrides) through herald serve to its counting simulator, with 10% of the tokens answering
410 Unregistered (`--simulator-unregistered-rate 0.1`), so 10% are retired; without webhooks, and with a
webhook subscribed to `installation.retired` and `delivery.failed` (two events per retired token, written in
the fan-out's own transactions). Between pushes the retired tokens are registered again, so each push reaches
all N.

The first push into a freshly imported store runs 10-20% faster than every later one, webhook or not
(docs/performance.md, "Round 24"), so it is not measured: it makes the store one with pushes behind it, as a
user's is. Then without, with, with, without: the store grows with every push, and in this order both sides
run, on average, on the same store. Rate (devices per second, API call to `done`) with vs without, medians;
target >= 0.9. A second line says how long after the last push the receiver (a local Python server answering
204, keeping connections open) had every event."""
import http.server, importlib.util, json, os, statistics, threading, time

from harness import FANOUT_N, WORK, http_json, ratio_row, value_row
from tools import Serve

TITLE = "8 webhooks"
SELECT = ("8",)
NEEDS = ()
N = int(os.environ.get("BENCH_WEBHOOK_N", FANOUT_N))
UNREGISTERED = 0.1


class Receiver(http.server.ThreadingHTTPServer):
    """Counts the events POSTed to it and answers 204, over HTTP/1.1 keep-alive as web frameworks do (Python's
    default, HTTP/1.0, closes the connection after every answer)."""

    def __init__(self):
        self.events = 0
        self.posts = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.events += len(json.loads(body)["events"])
                    receiver.posts += 1
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


def row3():
    """Row 3's module, for its import file and its wait for `done`."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("bench_row_r3_for_r8", os.path.join(here, "r3_fanout.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def answers_410(token):
    """The simulator's pick (ProviderEndpoint.isPicked): FNV-1a of the token's text, mod 10,000."""
    h = 0xcbf29ce484222325
    for byte in token.encode():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h % 10_000 < UNREGISTERED * 10_000


def revive_file(n):
    """JSON lines registering again the tokens of n installations that the simulator answers 410: after a push
    retired them, the next push reaches all n again."""
    path = os.path.join(WORK, "revive.jsonl")
    with open(path, "w") as f:
        for i in range(n):
            token = "%064x" % (0x1000000 + i)
            if answers_410(token):
                f.write('{"deviceToken":"%s","environment":"sandbox","tags":["bench"]}\n' % token)
    return path


def events_received(serve, since):
    """Seconds from `since` until no webhook event waits for its receiver."""
    deadline = since + 900
    while time.time() < deadline:
        status, text = http_json("GET", f"{serve.url}/metrics")
        if "herald_webhook_events_pending 0\n" in text:
            return time.time() - since
        time.sleep(0.2)
    raise RuntimeError("webhook events still pending 900 s after the push")


def run():
    r3 = row3()
    print(f"8. Webhooks: fan-out to {N:,} installations, {UNREGISTERED:.0%} answering 410, with vs without a webhook", flush=True)
    serve = Serve(os.path.join(WORK, "serve-webhooks"), ["--simulator-accept-all", "true", "--simulator-unregistered-rate", str(UNREGISTERED)])
    receiver = Receiver()
    try:
        master = serve.keys["master"]
        status, apps = http_json("GET", f"{serve.url}/v1/apps", key=serve.keys["admin"])
        app_id = apps["apps"][0]["id"]

        load = serve.import_jsonl

        load(r3.import_file(N, N))
        # Registering a retired token again makes its installation active: the 10% between pushes.
        revive = revive_file(N)

        def fanout():
            """(rate, the push when done, when it was done); the retired tokens are registered again after it."""
            started = time.time()
            status, push = http_json("POST", f"{serve.url}/v1/pushes", key=master,
                                     body={"target": {"tags": ["bench"]}, "content": {"alert": "hi"}})
            if status not in (200, 202):
                raise RuntimeError(f"push answered {status}: {push}")
            done = r3.wait_push(serve, push["id"], timeout=1200)
            finished = time.time()
            load(revive)
            return N / (finished - started), done, finished

        fanout()   # not measured: see the docstring
        hook_id = None
        rates = {False: [], True: []}
        lags = []
        for hooked in (False, True, True, False):
            if hooked and hook_id is None:
                status, hook = http_json("POST", f"{serve.url}/v1/apps/{app_id}/webhooks", key=master,
                                         body={"url": f"http://127.0.0.1:{receiver.server_address[1]}/events",
                                               "events": ["installation.retired", "delivery.failed"]})
                if status != 201:
                    raise RuntimeError(f"webhook answered {status}: {hook}")
                hook_id = hook["id"]
            if hook_id:
                http_json("PATCH", f"{serve.url}/v1/apps/{app_id}/webhooks/{hook_id}", key=master, body={"enabled": hooked})
            rate, done, finished = fanout()
            print(f"    {'with' if hooked else 'without'} webhook: {rate:,.0f} devices/s, counts {done['counts']}", flush=True)
            rates[hooked].append(rate)
            if hooked:   # each push starts with no event waiting: none is measured with another's on their way
                lags.append(events_received(serve, finished))
        with_hook, without = statistics.median(rates[True]), statistics.median(rates[False])
        ratio_row(f"8 fan-out {N:,}, 10% 410: webhook (retired + delivery.failed) vs none", 0.9, round(with_hook),
                  round(without), "no webhook", "devices/s")
        value_row("8 webhook events all received, after the push was done", round(max(lags), 1), "s",
                  f"the longer wait of two pushes; {receiver.events:,} events in {receiver.posts:,} POSTs; last push {done['counts']}")
    finally:
        serve.stop()
        receiver.shutdown()
