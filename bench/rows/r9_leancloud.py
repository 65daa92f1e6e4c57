"""Row 9: the LeanCloud-compatible routes against the native ones on the same server, same run, same work:
an installation upsert as LeanCloud's iOS SDK sends it (POST /1.1/installations, X-LC-Sign) vs POST
/v1/installations, and a push accept (POST /1.1/push with the Master Key signature) vs POST /v1/pushes, both to
a channel nobody has (so only the accept is measured). Target (issue #15): the compat route costs at most 1.3x
the native one, i.e. its rate is at least 1/1.3 = 0.77 of the native rate."""
import hashlib, json, os, time, urllib.request

from harness import QUICK, WORK, pair
from tools import Serve, wrk

TITLE = "9 LeanCloud compat"
SELECT = ("9",)
NEEDS = ()
WRK_SECONDS = 3 if QUICK else 5
TARGET = round(1 / 1.3, 2)
LC_APP_ID, LC_APP_KEY, LC_MASTER_KEY = "benchApp-gzGzoHsz", "bench-app-key-0123456789", "bench-master-key-0123456789"


def call(serve, method, path, key, body=None):
    request = urllib.request.Request(serve.url + path, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"{}")


def sign(key, master=False):
    """X-LC-Sign as the SDKs compute it; valid for 15 minutes, longer than this row runs."""
    ms = str(int(time.time() * 1000))
    return hashlib.md5((ms + key).encode()).hexdigest() + "," + ms + (",master" if master else "")


def script(name, path_headers, body_lua):
    path = os.path.join(WORK, name)
    headers = "\n".join(f'wrk.headers["{k}"] = "{v}"' for k, v in path_headers.items())
    with open(path, "w") as f:
        f.write(f"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
{headers}
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
local function token()
  local t = {{}}
  for i = 1, 8 do t[i] = string.format("%08x", math.random(0, 2147483647)) end
  return table.concat(t)
end
request = function()
  return wrk.format(nil, nil, nil, {body_lua})
end
""")
    return path


def run():
    print("9. LeanCloud compat: wrk on /1.1/installations and /1.1/push vs the native routes (same server)", flush=True)
    serve = Serve(os.path.join(WORK, "serve-leancloud"))
    try:
        admin = serve.keys["admin"]
        app_id = call(serve, "GET", "/v1/apps", admin)["apps"][0]["id"]
        call(serve, "PUT", f"/v1/apps/{app_id}/leancloud", admin,
             {"appId": LC_APP_ID, "appKey": LC_APP_KEY, "masterKey": LC_MASTER_KEY})
        client, master = serve.keys["client"], serve.keys["master"]

        # What LCInstallation's save carries (objc SDK), and the same fields in Herald's shape.
        compat = script("lc-upsert.lua", {"X-LC-Id": LC_APP_ID, "X-LC-Sign": sign(LC_APP_KEY), "X-LC-Prod": "1"},
                        """'{"deviceType":"ios","deviceToken":"' .. token() .. '","apnsTeamId":"BENCHTEAM1","apnsTopic":"com.example.herald",'
                        .. '"timeZone":"Asia/Shanghai","channels":["wrk"]}'""")
        native = script("native-upsert.lua", {"Authorization": f"Bearer {client}"},
                        """'{"deviceToken":"' .. token() .. '","environment":"production","topic":"com.example.herald",'
                        .. '"timeZone":"Asia/Shanghai","tags":["wrk"]}'""")
        pair("9a LeanCloud installation upsert vs native (wrk)", TARGET,
             lambda: wrk(f"{serve.url}/1.1/installations", WRK_SECONDS, compat),
             lambda: wrk(f"{serve.url}/v1/installations", WRK_SECONDS, native), "POST /v1/installations")

        compat_push = script("lc-push.lua", {"X-LC-Id": LC_APP_ID, "X-LC-Sign": sign(LC_MASTER_KEY, master=True), "X-LC-Prod": "1"},
                             """'{"channels":["bench-nobody"],"data":{"alert":"Hello","badge":1,"sound":"default"}}'""")
        native_push = script("native-push.lua", {"Authorization": f"Bearer {master}"},
                             """'{"target":{"tags":["bench-nobody"]},"content":{"alert":"Hello","badge":1,"sound":"default"}}'""")
        pair("9b LeanCloud push accept vs native (wrk)", TARGET,
             lambda: wrk(f"{serve.url}/1.1/push", WRK_SECONDS, compat_push),
             lambda: wrk(f"{serve.url}/v1/pushes", WRK_SECONDS, native_push), "POST /v1/pushes")
    finally:
        serve.stop()
