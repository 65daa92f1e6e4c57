"""Row 1: `herald send` vs h2load sending the same requests to the same nghttpd sink, 1x100 and 4x100."""
from harness import QUICK, TOKEN, pair, stop
from tools import h2load, herald_send, same_headers_as_herald, start_nghttpd

TITLE = "1 client vs h2load, nghttpd"
SELECT = ("1",)
NEEDS = ("tls",)
CLIENT_N = 50_000 if QUICK else 100_000


def run(tls):
    key, cert, p8 = tls
    print("1. APNs client: herald send vs h2load, same sink (nghttpd), connections and streams", flush=True)
    proc, port = start_nghttpd(key, cert)
    try:
        url = f"https://127.0.0.1:{port}/3/device/{TOKEN}"
        headers = same_headers_as_herald(p8)
        for c, s in [(1, 100), (4, 100)]:
            pair(f"1 client {c}x{s}, nghttpd sink", 1.0 if c == 1 else 0.85,
                 lambda: herald_send(f"127.0.0.1:{port}", cert, p8, CLIENT_N, c, s),
                 lambda: h2load(url, CLIENT_N, c, s, headers), "h2load")
    finally:
        stop(proc)
