"""The fan-out's rate and CPU per delivery, this build against a reference binary in the same run: row 3's
push (every installation, through `herald serve` to its accept-all simulator) on servers of their own, one
per binary and variant, each over its own store of N installations, pushing in turn (alternating) so the
machine's load falls on all alike. CPU per delivery is the server's user + system time over the push, from
/proc/<pid>/stat (its simulator runs in the same process), which a loaded machine disturbs less than rates.

    python3 bench/fanout_ab.py REFERENCE_BINARY [N] [REPEAT]      # needs swift build -c release

Variants: the reference, this build, and this build with `--delivery-journal-interval 0` (its delivery
journal off: the journal's own cost on one binary); with FANOUT_AB_ARGS="<flags>", also this build with
those flags (`FANOUT_AB_ARGS="--delivery-fan-out-batch-size 2000"`: the pages before issue #19's round 4). N defaults to 200,000, REPEAT to 3. Prints each push and
then the medians and spreads."""
import os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import HERALD, WORK, http_json
from tools import Serve, serve_accept_all_flags
from rows.r3_fanout import import_file, wait_push

REFERENCE = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
REPEAT = int(sys.argv[3]) if len(sys.argv) > 3 else 3
TICK = os.sysconf("SC_CLK_TCK")
# FANOUT_AB_ARGS adds a variant: this build with these `herald serve` flags (one setting against its default).
EXTRA = os.environ.get("FANOUT_AB_ARGS", "").split()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK   # utime, stime


def main():
    accept_all = serve_accept_all_flags()
    if not accept_all:
        sys.exit("this build's herald serve has no accept-all simulator setting")
    variants = [("reference", REFERENCE, []), ("this build", HERALD, []),
                ("this build, journal off", HERALD, ["--delivery-journal-interval", "0"])]
    if EXTRA:
        variants.append((f"this build, {' '.join(EXTRA)}", HERALD, EXTRA))
    servers = []
    jsonl = import_file(N, N)
    for name, binary, extra in variants:
        serve = Serve(os.path.join(WORK, name.replace(" ", "-").replace(",", "")), accept_all + extra, binary=binary)
        serve.import_jsonl(jsonl)
        servers.append((name, serve))
    results = {name: [] for name, _ in servers}
    for round_ in range(REPEAT):
        order = servers if round_ % 2 == 0 else list(reversed(servers))
        for name, serve in order:
            cpu = cpu_seconds(serve.proc.pid)
            started = time.time()
            status, push = http_json("POST", f"{serve.url}/v1/pushes", key=serve.keys["master"],
                                     body={"target": {"tags": ["bench"]}, "content": {"alert": "hi"}})
            if status not in (200, 201, 202):
                sys.exit(f"{name}: push answered {status}: {push}")
            done = wait_push(serve, push["id"], timeout=600)
            seconds = time.time() - started
            used = cpu_seconds(serve.proc.pid) - cpu
            sent = done.get("counts", {}).get("sent")
            results[name].append((N / seconds, used / N * 1e6))
            print(f"{name}: {N / seconds:,.0f}/s, {used / N * 1e6:.1f} µs CPU per delivery (sent {sent:,}); "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    for name, serve in servers:
        serve.stop()
    ref_rate = statistics.median(r for r, _ in results["reference"])
    ref_cpu = statistics.median(c for _, c in results["reference"])
    for name, runs in results.items():
        rates, cpus = [r for r, _ in runs], [c for _, c in runs]
        print(f"{name}: rate median {statistics.median(rates):,.0f}/s ({min(rates):,.0f}-{max(rates):,.0f}), "
              f"{statistics.median(rates) / ref_rate:.2f} of the reference; CPU per delivery median {statistics.median(cpus):.1f} µs "
              f"({min(cpus):.1f}-{max(cpus):.1f}), {statistics.median(cpus) / ref_cpu:.2f} of the reference")


if __name__ == "__main__":
    main()
