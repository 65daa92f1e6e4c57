"""Row 1: `herald send` vs h2load against the simulator in counting mode, 4x100."""
from harness import SIM_CLIENT_N, TOKEN, pair
from tools import h2load, herald_send, same_headers_as_herald

TITLE = "1 client vs h2load, simulator"
SELECT = ("1",)
NEEDS = ("tls", "counting")


def run(tls, counting):
    p8 = tls[2]
    print("1. APNs client: herald send vs h2load on the simulator (counting mode)", flush=True)
    url = f"https://{counting.host}/3/device/{TOKEN}"
    headers = same_headers_as_herald(p8)
    for c, s in [(4, 100)]:
        pair(f"1 client {c}x{s}, simulator (counting)", 0.85,
             lambda: herald_send(counting.host, counting.ca, p8, SIM_CLIENT_N, c, s),
             lambda: h2load(url, SIM_CLIENT_N, c, s, headers), "h2load")
