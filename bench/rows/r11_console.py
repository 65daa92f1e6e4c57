"""Row 11: the web console in headless Chromium against herald serve with a large store (by default
1,000,000 installations and 10,000 pushes; BENCH_CONSOLE_INSTALLATIONS and BENCH_CONSOLE_PUSHES change
it, and the row's note says what ran): the first load's bytes on the wire (target <= 200 KB, compressed)
and the compose screen's time to interactive (target <= 300 ms), plus the time to its first audience count
(a dry run over the whole registry, debounce included). Runs its own server, so the store of rows 3-5 is
left as they expect; needs chromium, chromium-driver and selenium (scripts/python-clients.sh)."""
import json, os, shutil, subprocess, threading, time
import http.client

from harness import FANOUT_N, QUICK, ROOT, WORK, http_json, value_row
from tools import Serve, serve_accept_all_flags

TITLE = "11 web console"
SELECT = ("11",)
NEEDS = ()
INSTALLATIONS = int(os.environ.get("BENCH_CONSOLE_INSTALLATIONS", FANOUT_N))
PUSHES = int(os.environ.get("BENCH_CONSOLE_PUSHES", 1_000 if QUICK else 10_000))


def import_installations(serve, n):
    path = os.path.join(WORK, f"console-installations-{n}.jsonl")
    with open(path, "w") as f:
        for i in range(n):
            f.write('{"deviceToken":"%064x","environment":"sandbox","tags":["console","t%d"],"locale":"%s"}\n'
                    % (0x2000000 + i, i % 100, "zh-Hans" if i % 3 == 0 else "en-US"))
    try:
        serve.import_jsonl(path)
    finally:
        os.remove(path)


def create_pushes(serve, n, threads=4):
    """n pushes, each to one device, over keep-alive connections."""
    host = serve.url.split("//")[1]

    def worker(part):
        conn = http.client.HTTPConnection(host, timeout=60)
        headers = {"Authorization": "Bearer " + serve.keys["master"], "Content-Type": "application/json"}
        for i in range(part, n, threads):
            body = json.dumps({"target": {"tokens": ["%064x" % (0x2000000 + i % max(INSTALLATIONS, 1))]},
                               "content": {"alert": {"title": f"Push {i}", "body": "bench"}, "badge": {"increment": 1}}})
            conn.request("POST", "/v1/pushes", body=body, headers=headers)
            r = conn.getresponse(); r.read()
            if r.status not in (200, 202):
                raise RuntimeError(f"push answered {r.status}")
        conn.close()

    workers = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for w in workers: w.start()
    for w in workers: w.join()


def run():
    if not shutil.which("chromedriver"):
        raise RuntimeError("chromium-driver is not installed (apt-get install chromium chromium-driver)")
    python = subprocess.run([os.path.join(ROOT, "scripts", "python-clients.sh")], capture_output=True, text=True, check=True).stdout.strip()
    print(f"11. Web console: {INSTALLATIONS:,} installations, {PUSHES:,} pushes in the store; headless Chromium", flush=True)
    serve = Serve(os.path.join(WORK, "console-data"), serve_accept_all_flags() or [])
    try:
        started = time.time()
        if INSTALLATIONS:
            import_installations(serve, INSTALLATIONS)
        imported = time.time()
        create_pushes(serve, PUSHES)
        print(f"  store built: import {imported - started:.0f} s, {PUSHES:,} pushes {time.time() - imported:.0f} s", flush=True)
        status, apps = http_json("GET", f"{serve.url}/v1/apps", key=serve.keys["admin"])
        app_id = apps["apps"][0]["id"]
        out = subprocess.run([python, "measure.py", serve.url, serve.keys["admin"], app_id, "3" if QUICK else "7"],
                             cwd=os.path.join(ROOT, "Tests", "ConsoleBrowser"), capture_output=True, text=True, timeout=1800)
        if out.returncode != 0:
            raise RuntimeError(f"measure.py failed: {out.stderr[-600:]}")
        m = json.loads(out.stdout.strip().splitlines()[-1])
        store = f"{INSTALLATIONS:,} installations, {PUSHES:,} pushes"
        kb = m["firstLoadBytes"] / 1000
        value_row("11 console first load (bytes on the wire)", round(kb, 1), "KB", f"target <= 200 KB: {'met' if kb <= 200 else 'NOT met'}; {store}")
        ms = m["composeInteractiveMs"]
        value_row("11 compose time to interactive (median)", round(ms), "ms", f"target <= 300 ms: {'met' if ms <= 300 else 'NOT met'}; {store}; runs {[round(x) for x in m['composeInteractiveAllMs']]}")
        value_row("11 compose first audience count (dry run)", round(m["audienceCountMs"]), "ms", f"over {INSTALLATIONS:,} installations, 300 ms debounce included")
    finally:
        serve.stop()
