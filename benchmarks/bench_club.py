"""Club figures: many fast simulated tables on one Mosquitto and one club server.

    python benchmarks/bench_club.py [--tables 50] [--seconds 20] [--rate 4]

Starts a Mosquitto on 127.0.0.1 (password file, ACL, as the tests do), the
real `coindrel club serve` process, and N simulated tables (the engine plays,
each table's ClubLink publishes: outbox, QoS 1, retained state) in this
process, each dropping ``--rate`` times a second. A scoreboard client reads
the server-sent events as a browser does.

Prints: drop → scoreboard latency (table's publish to the SSE event, p50/p99),
beside the broker alone (the same state publish to a plain subscriber, the
reference measured in the same run, so the ratio is what the club server
adds); messages per second the club stored; the club server's CPU and memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "controller"))
sys.path.insert(0, str(ROOT))

from coindrel.club.link import ClubLink  # noqa: E402
from tests.club.support import PASSWORD, Mosquitto, SimTable, free_port, table_settings  # noqa: E402


def proc_figures(pid: int) -> tuple[float, int]:
    """(CPU seconds, peak resident KB) of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return cpu, hwm


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


async def sse_client(port: int, latencies: list, stop: asyncio.Event):
    import httpx

    async with httpx.AsyncClient(timeout=None) as client:
        async with client.stream("GET", f"http://127.0.0.1:{port}/events") as r:
            event, seen = None, {}
            async for line in r.aiter_lines():
                if stop.is_set():
                    return
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "table":
                    d = json.loads(line[6:])
                    # a drop's own event carries the state before it; time each new state once
                    if d.get("at") and d["at"] != seen.get(d["table"]):
                        seen[d["table"]] = d["at"]
                        latencies.append(time.time() - d["at"])


async def broker_reference(broker: Mosquitto, latencies: list, stop: asyncio.Event):
    """The broker alone: every table's state, as a plain subscriber receives it."""
    import aiomqtt

    async with aiomqtt.Client("127.0.0.1", broker.port, username="club", password=PASSWORD,
                              identifier="bench-reference") as c:
        await c.subscribe("coindrel/+/state", qos=1)
        async for m in c.messages:
            if stop.is_set():
                return
            if m.retain:
                continue
            latencies.append(time.time() - json.loads(m.payload)["at"])


class Readers:
    """The scoreboard client and the reference subscriber, in a process of their own
    (this script with --read), so the tables' work here does not delay what they time."""

    def __init__(self, port, broker, club_lat, ref_lat):
        self.club_lat, self.ref_lat = club_lat, ref_lat
        self.proc = subprocess.Popen([sys.executable, __file__, "--read", str(port), "--broker-port", str(broker.port)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "reading"

    def clear(self):
        self.proc.stdin.write("clear\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "cleared"

    def close(self):
        out, _ = self.proc.communicate("stop\n", timeout=30)
        d = json.loads(out.strip().splitlines()[-1])
        self.club_lat[:], self.ref_lat[:] = d["club"], d["ref"]


async def read_main(port: int, broker_port: int) -> None:
    club_lat, ref_lat = [], []

    class B:  # what broker_reference needs of a Mosquitto
        pass

    b = B()
    b.port = broker_port
    stop = asyncio.Event()
    tasks = [asyncio.create_task(sse_client(port, club_lat, stop)), asyncio.create_task(broker_reference(b, ref_lat, stop))]
    await asyncio.sleep(0.5)
    print("reading", flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
        if line == "clear":
            club_lat.clear(), ref_lat.clear()
            print("cleared", flush=True)
        elif line in ("stop", ""):
            break
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({"club": club_lat, "ref": ref_lat}), flush=True)


async def main(args) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-club-"))
    names = [f"t{i:02d}" for i in range(args.tables)]
    broker = Mosquitto(root / "broker", users=[*names, "club"]).start()
    pw = broker.password_file(root)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "coindrel", "club", "serve", "--broker", broker.url(), "--http", f"127.0.0.1:{port}",
         "--db", str(root / "club.sqlite"), "--tables", ",".join(names), "--username", "club", "--password-file",
         str(pw)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in server.stdout:
        if "subscribed" in line:
            break
    club_lat, ref_lat = [], []
    readers = Readers(port, broker, club_lat, ref_lat)
    links, tasks = [], []
    # Each real table syncs its outbox to its own SD card; fifty of them syncing to this one
    # disk would measure the disk. The tables' state directories are on tmpfs where there is one.
    states = Path(tempfile.mkdtemp(prefix="bench-club-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    for n in names:
        (states / n).mkdir()
        link = ClubLink(table_settings(broker, root, n), states / n)
        links.append(link)
        tasks.append(asyncio.create_task(link.run()))
    tables = [SimTable(link, seed=i) for i, link in enumerate(links)]
    for t in tables:
        t.new_match()
    await asyncio.sleep(1.0)  # everyone connected; the figures start now
    readers.clear()
    cpu0, _ = proc_figures(server.pid)
    t0 = time.monotonic()
    drops = 0
    period = 1.0 / args.rate
    next_at = t0
    while time.monotonic() - t0 < args.seconds:
        for t in tables:  # each table at its own moment in the period, as real tables are
            if t.match.over:
                t.new_match()
            t.drop()
            drops += 1
            next_at += period / len(tables)
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    await asyncio.sleep(1.0)  # the last drops arrive
    wall = time.monotonic() - t0
    cpu1, hwm = proc_figures(server.pid)
    import urllib.request

    health = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/health"))
    readers.close()
    for link in links:
        link.stop()
    await asyncio.wait(tasks, timeout=10)
    server.terminate()
    server.wait(15)
    broker.stop()
    handled = sum(health["messages"].values())
    behind = sum(len(link.outbox) for link in links)
    print(f"{args.tables} tables, {drops} drops in {wall:.1f} s ({drops / wall:.0f} drops/s offered), "
          f"{args.rate:g} drops/s per table")
    print(f"club server handled {handled} messages: {handled / wall:.0f} per second; outcomes {health['messages']}; "
          f"{behind} messages still in the tables' outboxes")
    print(f"drop -> scoreboard (SSE) latency: p50 {1000 * pct(club_lat, .5):.1f} ms, p99 {1000 * pct(club_lat, .99):.1f} ms "
          f"({len(club_lat)} events)")
    print(f"broker alone (reference):         p50 {1000 * pct(ref_lat, .5):.1f} ms, p99 {1000 * pct(ref_lat, .99):.1f} ms "
          f"({len(ref_lat)} messages)")
    if ref_lat and club_lat:
        print(f"ratio club/broker: p50 {pct(club_lat, .5) / pct(ref_lat, .5):.1f}x, p99 {pct(club_lat, .99) / pct(ref_lat, .99):.1f}x")
    print(f"club server: {100 * (cpu1 - cpu0) / wall:.0f}% of one core, peak resident {hwm / 1024:.0f} MB")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--rate", type=float, default=2, help="drops per second per table")
    p.add_argument("--read", type=int, help=argparse.SUPPRESS)  # the readers' process
    p.add_argument("--broker-port", type=int, help=argparse.SUPPRESS)
    a = p.parse_args()
    asyncio.run(read_main(a.read, a.broker_port) if a.read else main(a))
