"""Row 10: the JPush-compatible push API's accept cost. wrk on POST /v3/push (JPush's body, Basic
appKey:masterSecret resolved through the app's stored JPush keys) vs wrk on POST /v1/pushes with the same
push in Herald's body (bearer master key), alternating on one herald serve. Both name one registered
device, so each accepted push also delivers one notification; the target (issue #16) is a cost of at most
1.3x, i.e. a rate ratio /v3/push : /v1/pushes of at least 1/1.3."""
import base64, json, os

from harness import QUICK, WORK, http_json, pair
from tools import Serve, serve_accept_all_flags, wrk

TITLE = "10 JPush push accept"
SELECT = ("10",)
NEEDS = ()
WRK_SECONDS = 3 if QUICK else 5
APP_KEY, MASTER_SECRET = "b3e1c0de5a6f7d8e9fa0b1c2", "0f1e2d3c4b5a69788796a5b4"


def post_script(name, authorization, body):
    path = os.path.join(WORK, f"{name}.lua")
    with open(path, "w") as f:
        f.write(f"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "{authorization}"
wrk.body = {json.dumps(json.dumps(body))}
""")
    return path


def run():
    print("10. JPush push accept: wrk on POST /v3/push vs POST /v1/pushes, same push (keep-alive)", flush=True)
    serve = Serve(os.path.join(WORK, "jpush-serve"), serve_accept_all_flags() or [])
    try:
        status, apps = http_json("GET", f"{serve.url}/v1/apps", key=serve.keys["admin"])
        app_id = apps["apps"][0]["id"]
        status, _ = http_json("PUT", f"{serve.url}/v1/apps/{app_id}/jpush", {"appKey": APP_KEY, "masterSecret": MASTER_SECRET},
                              key=serve.keys["master"])
        if status != 200:
            raise RuntimeError(f"PUT jpush keys answered {status}")
        status, _ = http_json("POST", f"{serve.url}/v1/installations", {"installationId": "bench-jpush", "deviceToken": "ab" * 32,
                                                                      "environment": "sandbox"}, key=serve.keys["client"])
        if status not in (200, 201):
            raise RuntimeError(f"registration answered {status}")
        basic = "Basic " + base64.b64encode(f"{APP_KEY}:{MASTER_SECRET}".encode()).decode()
        jpush = post_script("jpush-push", basic, {
            "platform": "all", "audience": {"registration_id": ["bench-jpush"]},
            "notification": {"ios": {"alert": "bench", "sound": "default", "badge": "+1", "extras": {"k": "v"}}},
            "options": {"sendno": 1, "apns_production": False}})
        herald = post_script("herald-push", f"Bearer {serve.keys['master']}", {
            "target": {"installationIds": ["bench-jpush"], "environment": "sandbox"},
            "content": {"alert": "bench", "sound": "default", "badge": {"increment": 1}, "data": {"k": "v"}}})
        pair("10 /v3/push vs /v1/pushes accept (wrk)", round(1 / 1.3, 3),
             lambda: wrk(f"{serve.url}/v3/push", WRK_SECONDS, jpush),
             lambda: wrk(f"{serve.url}/v1/pushes", WRK_SECONDS, herald), "/v1/pushes")
    finally:
        serve.stop()
