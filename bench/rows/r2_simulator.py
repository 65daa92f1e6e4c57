"""Row 2: h2load on the simulator (counting) vs on nghttpd; the validating simulator (JWT) vs counting."""
import json, os

from harness import HERALD, KEY_ID, SIM_CLIENT_N, TEAM_ID, TOKEN, TOPIC, WORK, pair, run as run_cmd, stop
from tools import es256_jwt, h2load, start_nghttpd

TITLE = "2 simulator"
SELECT = ("2",)
NEEDS = ("tls", "counting", "validating")


def run(tls, counting, validating):
    key, cert, _ = tls
    print("2. Simulator: h2load on the simulator vs h2load on nghttpd; validating (JWT) vs counting", flush=True)
    proc, port = start_nghttpd(key, cert)
    try:
        for c, s in [(1, 100), (4, 100)]:
            pair(f"2 simulator (counting) {c}x{s} vs nghttpd", 0.5,
                 lambda: h2load(f"https://{counting.host}/3/device/{TOKEN}", SIM_CLIENT_N, c, s),
                 lambda: h2load(f"https://127.0.0.1:{port}/3/device/{TOKEN}", SIM_CLIENT_N, c, s), "nghttpd")
    finally:
        stop(proc)
    run_cmd([HERALD, "sim", "key", "--bundle-id", TOPIC, "--key-id", KEY_ID, "--team-id", TEAM_ID, "--out", WORK,
             "--sim", validating.url], check=True)
    sim_p8 = os.path.join(WORK, f"AuthKey_{KEY_ID}.p8")
    token = json.loads(run_cmd([HERALD, "sim", "install", "--bundle-id", TOPIC, "--sim", validating.url, "--json"],
                               check=True).stdout)["token"]
    auth = ["-H", f"authorization: bearer {es256_jwt(sim_p8, KEY_ID, TEAM_ID)}"]
    for c, s in [(4, 100)]:
        pair(f"2 simulator validating+JWT {c}x{s} vs counting", 0.7,
             lambda: h2load(f"https://{validating.host}/3/device/{token}", SIM_CLIENT_N, c, s, auth),
             lambda: h2load(f"https://{counting.host}/3/device/{token}", SIM_CLIENT_N, c, s, auth), "counting")
