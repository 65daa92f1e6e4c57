"""Row 8: the cost of webhooks on the fan-out. Row 3's tag push to N installations (1,000,000; 50,000 quick;
BENCH_WEBHOOK_N overrides) through herald serve to its counting simulator, with 10% of the tokens answering
410 Unregistered (`--simulator-unregistered-rate 0.1`), so 10% are retired: once without webhooks, then
(after a re-import makes the retired installations active again) with a webhook subscribed to
`installation.retired` and `delivery.failed`, i.e. two events per retired token written in the fan-out's own
transactions. Rate (devices per second, API call to `done`) with vs without; target >= 0.9. A second line
says how long after the push the receiver (a local Python server answering 204) had every event."""
import http.server, json, os, sys, threading, time

from harness import FANOUT_N, WORK, http_json, ratio_row, value_row
from tools import Serve

TITLE = "8 webhooks"
SELECT = ("8",)
NEEDS = ()
N = int(os.environ.get("BENCH_WEBHOOK_N", FANOUT_N))
UNREGISTERED = 0.1


class Receiver(http.server.ThreadingHTTPServer):
    """Counts the events POSTed to it and answers 204."""

    def __init__(self):
        self.events = 0
        self.posts = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
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


def run():
    r3 = sys.modules["bench_row_r3_fanout"]   # its import file and wait; rows load in file-name order
    print(f"8. Webhooks: fan-out to {N:,} installations, {UNREGISTERED:.0%} answering 410, with vs without a webhook", flush=True)
    serve = Serve(os.path.join(WORK, "serve-webhooks"), ["--simulator-accept-all", "true", "--simulator-unregistered-rate",
                                                         str(UNREGISTERED), "--webhooks-poll-interval", "0.05"])
    receiver = Receiver()
    try:
        master = serve.keys["master"]
        status, apps = http_json("GET", f"{serve.url}/v1/apps", key=serve.keys["admin"])
        app_id = apps["apps"][0]["id"]
        jsonl = r3.import_file(N, N)

        def fanout():
            # (Re-)importing makes every installation active again, so both pushes reach all N.
            with open(jsonl, "rb") as body:
                status, answer = http_json("POST", f"{serve.url}/v1/installations/import?format=jsonl", key=master,
                                           raw=body, content_type="application/x-ndjson", timeout=1800)
            if status != 200 or answer.get("failed"):
                raise RuntimeError(f"import answered {status}: {str(answer)[:300]}")
            started = time.time()
            status, push = http_json("POST", f"{serve.url}/v1/pushes", key=master,
                                     body={"target": {"tags": ["bench"]}, "content": {"alert": "hi"}})
            if status not in (200, 202):
                raise RuntimeError(f"push answered {status}: {push}")
            done = r3.wait_push(serve, push["id"], timeout=1200)
            return N / (time.time() - started), done

        without, plain = fanout()
        status, hook = http_json("POST", f"{serve.url}/v1/apps/{app_id}/webhooks", key=master,
                                 body={"url": f"http://127.0.0.1:{receiver.server_address[1]}/events",
                                       "events": ["installation.retired", "delivery.failed"]})
        if status != 201:
            raise RuntimeError(f"webhook answered {status}: {hook}")
        with_hook, hooked = fanout()
        finished = time.time()
        retired = hooked["counts"].get("retired", 0)
        expected = retired + hooked["counts"].get("failed", 0)
        while receiver.events < expected and time.time() < finished + 900:
            time.sleep(0.1)
        lag = time.time() - finished
        counts = {k: v for k, v in hooked["counts"].items() if v}
        note = f"without: {plain['counts'].get('retired', 0):,} retired; with: counts {counts}"
        if plain["counts"].get("targeted") != N or hooked["counts"].get("targeted") != N:
            note += f" (targeted {plain['counts'].get('targeted')} / {hooked['counts'].get('targeted')} of {N})"
        ratio_row(f"8 fan-out {N:,}, 10% 410: webhook (retired + delivery.failed) vs none", 0.9, round(with_hook),
                  round(without), "no webhook", "devices/s", note)
        value_row("8 all webhook events received, after the push was done", round(lag, 1), "s",
                  f"{receiver.events:,} of {expected:,} events in {receiver.posts:,} POSTs")
    finally:
        serve.stop()
        receiver.shutdown()
