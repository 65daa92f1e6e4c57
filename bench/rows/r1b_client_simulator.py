"""Row 1: `herald send` vs h2load against the simulator in counting mode, 4x100. Its rate is also row 3's
reference, so row 3 runs it too."""
from harness import SIM_CLIENT_N, TOKEN, facts, pair
from tools import h2load, herald_send, same_headers_as_herald

TITLE = "1 client vs h2load, simulator"
SELECT = ("1", "3")
NEEDS = ("tls", "counting")


def run(tls, counting):
    p8 = tls[2]
    print("1. APNs client: herald send vs h2load on the simulator (counting mode)", flush=True)
    url = f"https://{counting.host}/3/device/{TOKEN}"
    headers = same_headers_as_herald(p8)
    for c, s in [(4, 100)]:
        row = pair(f"1 client {c}x{s}, simulator (counting)", 0.85,
                   lambda: herald_send(counting.host, counting.ca, p8, SIM_CLIENT_N, c, s),
                   lambda: h2load(url, SIM_CLIENT_N, c, s, headers), "h2load")
        facts[f"send_sim_{c}x{s}"] = row["herald"]
