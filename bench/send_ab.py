"""Row 1's load, this build's `herald send` against a reference binary's and h2load, alternating against one nghttpd
sink: each round runs the reference, this build and h2load once, for each shape (1x100 and 4x100, or CONNECTIONS x
STREAMS). At 1x100 the sink is the limit and single runs move by ±10% with the machine, so judge a change to the
client by the medians of many rounds and by each build's per-round ratio to h2load (docs/performance.md, "Round 22").

    python3 bench/send_ab.py REFERENCE_BINARY [ROUNDS]      # needs swift build -c release; ROUNDS: 6

N requests per run (default 200,000)."""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TOKEN, stop
from tools import h2load, herald_send, make_tls, same_headers_as_herald, start_nghttpd

REFERENCE = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
N = int(os.environ.get("N", "200000"))
SHAPES = [(1, 100), (4, 100)]


def main():
    key, cert, p8 = make_tls()
    proc, port = start_nghttpd(key, cert)
    try:
        url = f"https://127.0.0.1:{port}/3/device/{TOKEN}"
        headers = same_headers_as_herald(p8)
        for c, s in SHAPES:
            runs = {"reference": [], "this build": [], "h2load": []}
            for round_ in range(ROUNDS):
                runs["reference"].append(herald_send(f"127.0.0.1:{port}", cert, p8, N, c, s, binary=REFERENCE))
                runs["this build"].append(herald_send(f"127.0.0.1:{port}", cert, p8, N, c, s))
                runs["h2load"].append(h2load(url, N, c, s, headers))
                print(f"{c}x{s} round {round_ + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}/s" for k, v in runs.items()), flush=True)
            for name in ("reference", "this build"):
                ratios = [a / b for a, b in zip(runs[name], runs["h2load"])]
                print(f"{c}x{s} {name}: median {statistics.median(runs[name]):,.0f}/s, per-round ratio to h2load median "
                      f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})", flush=True)
            print(f"{c}x{s} h2load: median {statistics.median(runs['h2load']):,.0f}/s", flush=True)
    finally:
        stop(proc)


if __name__ == "__main__":
    main()
