#!/usr/bin/env python3
"""Sends N notifications with aioapns (the Python asyncio APNs client) to a local APNs such as
`herald sim start`, and prints {"rate": notifications per second, "ok": accepted} as JSON.

aioapns only knows Apple's hosts: its protocol classes carry the host and port as class attributes,
so pointing them at the simulator (and trusting its CA through the ssl context) is all it takes.
Run with the bench virtual environment: bench-results/.venv/bin/python bench/aioapns_send.py ...
"""
import argparse, asyncio, json, ssl, time

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--key-id", required=True)
    p.add_argument("--team-id", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--payload", required=True)
    p.add_argument("-n", type=int, default=10_000)
    p.add_argument("--connections", type=int, default=1)
    p.add_argument("--streams", type=int, default=100)
    return p.parse_args()


async def main(a):
    for cls in (connection.APNsDevelopmentClientProtocol, connection.APNsProductionClientProtocol):
        cls.APNS_SERVER, cls.APNS_PORT = a.host, a.port
    with open(a.key) as f:
        key = f.read()
    with open(a.payload) as f:
        message = json.load(f)
    client = APNs(key=key, key_id=a.key_id, team_id=a.team_id, topic=a.topic, use_sandbox=True,
                  max_connections=a.connections, ssl_context=ssl.create_default_context(cafile=a.ca))
    in_flight = asyncio.Semaphore(a.connections * a.streams)
    ok = 0

    async def one():
        nonlocal ok
        async with in_flight:
            result = await client.send_notification(
                NotificationRequest(device_token=a.token, message=message, push_type=PushType.ALERT))
            ok += result.is_successful

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(a.n)))
    seconds = time.perf_counter() - started
    print(json.dumps({"rate": a.n / seconds, "ok": ok, "seconds": seconds}))
    if ok != a.n:
        raise SystemExit(f"only {ok} of {a.n} accepted")


if __name__ == "__main__":
    asyncio.run(main(parse()))
