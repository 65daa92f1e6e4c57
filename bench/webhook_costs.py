"""Row 8's pushes one at a time, with what each cost, to see where a webhook's time goes (docs/performance.md,
"Round 24"): Herald's CPU per device, by thread group (the event loops, Swift's pool, libdispatch's queues:
SQLite's writer, checkpointer and journal), the receiver's CPU (it runs in this process), the bytes Herald wrote,
and the WAL's size during the push.

    python3 bench/webhook_costs.py [PAIRS] [--https] [--binary PATH]

An unmeasured first push, then PAIRS of (without, with) a webhook subscribed to `installation.retired` and
`delivery.failed`, each push after the last one's events arrived. BENCH_WEBHOOK_N sets the audience (1,000,000).
--https puts the receiver behind TLS (a throwaway CA given to herald with --webhooks-ca-file)."""
import argparse, os, re, ssl, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "rows"))
import r8_webhooks as r8
from harness import HERALD, WORK, http_json
from r12_postgres import cpu_seconds
from thread_cpu import threads
from tools import Serve, make_tls


def thread_groups(pid):
    """CPU ticks by thread, with thread names' numbers dropped (herald-io-0, herald-io-1 -> herald-io-#)."""
    return {(tid, re.sub(r"[0-9]+$", "#", t[0])): t[1] for tid, t in threads(pid).items()}


def written(pid):
    return int(dict(line.split(": ") for line in open(f"/proc/{pid}/io").read().splitlines())["write_bytes"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs", nargs="?", type=int, default=2)
    parser.add_argument("--https", action="store_true")
    parser.add_argument("--binary", default=HERALD)
    args = parser.parse_args()
    n, r3 = r8.N, r8.row3()
    receiver = r8.Receiver()
    extra, scheme = [], "http"
    if args.https:
        key, cert, _ = make_tls()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        receiver.socket = context.wrap_socket(receiver.socket, server_side=True)
        extra, scheme = ["--webhooks-ca-file", cert], "https"
    serve = Serve(os.path.join(WORK, "serve-webhook-costs"), ["--simulator-accept-all", "true", "--simulator-unregistered-rate",
                                                              str(r8.UNREGISTERED), *extra], binary=args.binary)
    pid, master = serve.proc.pid, serve.keys["master"]
    try:
        _, apps = http_json("GET", f"{serve.url}/v1/apps", key=serve.keys["admin"])
        app_id = apps["apps"][0]["id"]
        serve.import_jsonl(r3.import_file(n, n))
        revive = r8.revive_file(n)
        status, hook = http_json("POST", f"{serve.url}/v1/apps/{app_id}/webhooks", key=master,
                                 body={"url": f"{scheme}://localhost:{receiver.server_address[1]}/events",
                                       "events": ["installation.retired", "delivery.failed"]})
        if status != 201:
            raise RuntimeError(f"webhook answered {status}: {hook}")
        wal = os.path.join(serve.dir, "herald.sqlite-wal")

        def push(hooked, measured=True):
            http_json("PATCH", f"{serve.url}/v1/apps/{app_id}/webhooks/{hook['id']}", key=master, body={"enabled": hooked})
            sizes, stop = [], threading.Event()

            def sample():
                while not stop.is_set():
                    try:
                        sizes.append(os.stat(wal).st_size)
                    except OSError:
                        pass
                    time.sleep(0.05)
            sampler = threading.Thread(target=sample)
            sampler.start()
            started, cpu, before, bytes_out, own = time.time(), cpu_seconds([pid]), thread_groups(pid), written(pid), os.times()
            _, p = http_json("POST", f"{serve.url}/v1/pushes", key=master, body={"target": {"tags": ["bench"]}, "content": {"alert": "hi"}})
            r3.wait_push(serve, p["id"], timeout=1200)
            elapsed, after, mine = time.time() - started, thread_groups(pid), os.times()
            stop.set()
            sampler.join()
            if measured:
                by_group = {}
                for (tid, name), ticks in after.items():
                    by_group[name] = by_group.get(name, 0) + ticks - before.get((tid, name), 0)
                groups = " ".join(f"{name} {ticks / 100:.2f}" for name, ticks in sorted(by_group.items(), key=lambda g: -g[1]) if ticks)
                print(f"{'with' if hooked else 'without'} webhook: {n / elapsed:,.0f} devices/s, "
                      f"{(cpu_seconds([pid]) - cpu) / n * 1e6:.1f} µs CPU a device, "
                      f"{(written(pid) - bytes_out) / n:,.0f} bytes written a device, "
                      f"receiver {mine.user + mine.system - own.user - own.system:.2f} CPU-s, "
                      f"WAL {min(sizes) / 1e6:.0f}-{max(sizes) / 1e6:.0f} MB\n    CPU-s by thread: {groups}", flush=True)
            serve.import_jsonl(revive)
            r8.events_received(serve, time.time())

        push(False, measured=False)
        for _ in range(args.pairs):
            push(False)
            push(True)
        print(f"receiver: {receiver.events:,} events in {receiver.posts:,} POSTs")
    finally:
        serve.stop()
        receiver.shutdown()


if __name__ == "__main__":
    main()
