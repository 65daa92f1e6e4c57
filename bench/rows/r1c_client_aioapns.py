"""Row 1: `herald send` vs aioapns (the Python asyncio APNs client) on the simulator; no target."""
from harness import QUICK, pair
from tools import aioapns_send, ensure_aioapns, herald_send

TITLE = "1 client vs aioapns"
SELECT = ("1",)
NEEDS = ("tls", "counting")
AIOAPNS_N = 2_000 if QUICK else 5_000


def run(tls, counting):
    p8 = tls[2]
    print("1. APNs client: herald send vs aioapns (Python asyncio) on the simulator (counting mode)", flush=True)
    python = ensure_aioapns()
    pair("1 client 1x100 vs aioapns, simulator", None,
         lambda: herald_send(counting.host, counting.ca, p8, AIOAPNS_N, 1, 100),
         lambda: aioapns_send(python, counting, p8, AIOAPNS_N, 1, 100), "aioapns")
