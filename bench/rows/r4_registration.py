"""Row 4: wrk on the installation upsert (a random token per request, so each is an insert) vs wrk on the
same server's /healthz. Runs on the server of rows 3 and 5, after the fan-out, as the store a user has."""
import os

from harness import QUICK, WORK, pair
from tools import wrk

TITLE = "4 registration API"
SELECT = ("4",)
NEEDS = ("bulk_serve",)
WRK_SECONDS = 3 if QUICK else 5


def run(serve):
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
