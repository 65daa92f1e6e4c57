"""Row 4: wrk on the installation upsert (a random token per request, so each is an insert) vs wrk on the
same server's /healthz. Runs on the server of rows 3 and 5, after the fan-out, as the store a user has.

BENCH_STORE=postgres runs it on a `herald serve` of its own over a throwaway PostgreSQL cluster
(scripts/postgres-test.sh) with durable commits (fsync and synchronous_commit on, unlike the test cluster)."""
import os
import subprocess

from harness import QUICK, ROOT, WORK, pair
from tools import Serve, wrk

TITLE = "4 registration API"
SELECT = ("4",)
STORE = os.environ.get("BENCH_STORE", "sqlite")
NEEDS = () if STORE == "postgres" else ("bulk_serve",)
WRK_SECONDS = 3 if QUICK else 5
PG_SCRIPT = os.path.join(ROOT, "scripts", "postgres-test.sh")


def upsert_script(key):
    """wrk's Lua for row 4: a new random 64-hex-digit token per request, so each registration is an insert."""
    script = os.path.join(WORK, "upsert.lua")
    with open(script, "w") as f:
        f.write(f"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer {key}"
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
request = function()
  local t = {{}}
  for i = 1, 8 do t[i] = string.format("%08x", math.random(0, 2147483647)) end
  return wrk.format(nil, nil, nil, '{{"deviceToken":"' .. table.concat(t) .. '","environment":"sandbox","tags":["wrk"]}}')
end
""")
    return script


def measure(serve, store):
    script = upsert_script(serve.keys['client'])
    suffix = "" if store == "sqlite" else f" ({store})"
    pair(f"4 installation upsert vs /healthz (wrk){suffix}", 0.3,
         lambda: wrk(f"{serve.url}/v1/installations", WRK_SECONDS, script),
         lambda: wrk(f"{serve.url}/healthz", WRK_SECONDS), "/healthz")


def durable_postgres():
    """A throwaway cluster restarted with the options a production server has: every commit flushed."""
    exports = subprocess.run([PG_SCRIPT, "start"], check=True, capture_output=True, text=True).stdout
    env = dict(line.replace("export ", "", 1).split("=", 1) for line in exports.splitlines() if line.startswith("export "))
    url, directory = env["HERALD_TEST_POSTGRES_URL"].strip("'"), env["HERALD_TEST_POSTGRES_DIR"].strip("'")
    subprocess.run([PG_SCRIPT, "down", directory], check=True, capture_output=True)
    options_path = os.path.join(directory, "options")
    with open(options_path) as f:
        options = f.read()
    for fast in ("-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"):
        options = options.replace(fast, "")
    with open(options_path, "w") as f:
        f.write(options)
    subprocess.run([PG_SCRIPT, "up", directory], check=True, capture_output=True)
    return url, directory


def run(serve=None):
    print(f"4. Registration API ({STORE}): wrk on POST /v1/installations (keep-alive) vs GET /healthz", flush=True)
    if STORE != "postgres":
        return measure(serve, STORE)
    url, directory = durable_postgres()
    own = None
    try:
        own = Serve(os.path.join(WORK, "serve-postgres"), ["--store-url", url])
        measure(own, STORE)
    finally:
        if own:
            own.stop()
        subprocess.run([PG_SCRIPT, "stop", directory], capture_output=True)
