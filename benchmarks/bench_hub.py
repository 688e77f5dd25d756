"""Pi-side hub link speed: frames encoded and decoded per second, frames per
second through the tracker (sequence, time, board events), board events per
second end to end through the asyncio link over a pty, and frames per second
through the link from a hub on socket:// with the share of a core it takes.

    PYTHONPATH=controller python benchmarks/bench_hub.py [--frames 200000]

The hub produces at most a few hundred frames a second in a busy cascade; the
figures show how much room the Pi has.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "controller"))

from coindrel.events import StatusEvent  # noqa: E402
from coindrel.hub import protocol as p  # noqa: E402
from coindrel.hub.channelmap import load_channel_map  # noqa: E402
from coindrel.hub.tracker import Tracker  # noqa: E402

CM = load_channel_map()


def messages(n: int):
    t = 1_000_000
    for i in range(n):
        t += 997
        if i % 3 == 0:
            yield p.Beam(t, i % 24, i % 2 == 0, 0 if i % 2 == 0 else 9_000)
        else:
            yield p.Hall(t, i % 38, p.POSITIONS[i % 3], 2000 + i % 1000)


def bench_codec(n: int) -> None:
    msgs = list(messages(n))
    t0 = time.perf_counter()
    lines = [p.encode(m, i) for i, m in enumerate(msgs)]
    enc = time.perf_counter() - t0
    data = b"".join(lines)
    dec = p.Decoder("hub")
    t0 = time.perf_counter()
    got = 0
    for i in range(0, len(data), 4096):
        got += sum(1 for x in dec.feed(data[i:i + 4096]) if isinstance(x, p.Frame))
    dt = time.perf_counter() - t0
    assert got == n
    print(f"encode:  {n / enc:12,.0f} frames/s")
    print(f"decode:  {n / dt:12,.0f} frames/s  ({len(data) / dt / 1e6:.1f} MB/s; average frame {len(data) / n:.0f} bytes)")
    tr = Tracker(CM)
    tr.connection_started()
    hello = p.Hello(0, 1, 1, 0, CM.map_hash, 10000, 250, 500, True, False, False, 24, 38, "b", "b")
    tr.feed(p.Frame(0, hello), 0.0)
    frames = [p.Frame((i + 1) & 0xFFFF, m) for i, m in enumerate(msgs)]
    t0 = time.perf_counter()
    events = 0
    for f in frames:
        events += len(tr.feed(f, 0.0))
    dt = time.perf_counter() - t0
    print(f"tracker: {n / dt:12,.0f} frames/s  ({events} board events)")


async def bench_link(n: int) -> None:
    from coindrel.hub.hubside import HubSide
    from coindrel.sources.hub import HubSource

    master, slave = os.openpty()
    tty.setraw(master)
    os.set_blocking(master, False)
    path = Path(os.ttyname(slave))
    side = HubSide(CM, clock_us=lambda: 1_000_000)
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    out = bytearray()

    def readable():
        try:
            data = os.read(master, 4096)
        except (BlockingIOError, OSError):
            return
        out.extend(side.feed(data))
        if any(isinstance(f.msg, p.SnapshotReq) for f in side.commands):
            ready.set()
        flush()

    def flush():
        while out:
            try:
                k = os.write(master, out[:4096])
            except BlockingIOError:
                loop.call_later(0.001, flush)
                return
            del out[:k]

    loop.add_reader(master, readable)
    src = HubSource(str(path), CM)
    await src.start()
    await ready.wait()
    t = 2_000_000
    for i in range(n):
        t += 500
        out.extend(side.beam(t, i % 24, True))
    t0 = time.perf_counter()
    flush()
    got = 0
    async for ev in src.events():
        if not isinstance(ev, StatusEvent):
            got += 1
            if got == n:
                break
    dt = time.perf_counter() - t0
    print(f"link:    {n / dt:12,.0f} board events/s end to end over a pty (hub frames -> EntryEvent/ExitEvent)")
    await src.close()
    loop.remove_reader(master)
    os.close(master)
    os.close(slave)


async def bench_socket(n: int) -> None:
    """Frames through the link from a hub on socket:// (a thread serving one
    connection): frames per second and how much of one core the Pi side used."""
    import resource
    import socket
    import threading

    from coindrel.hub.hubside import HubSide
    from coindrel.sources.hub import HubSource

    side = HubSide(CM, clock_us=lambda: 1_000_000)
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    go = threading.Event()
    t = 2_000_000
    blob = bytearray()
    for i in range(n):
        t += 500
        blob += side.beam(t, i % 24, True)

    def serve():
        conn, _ = srv.accept()
        conn.settimeout(10)
        asked = False
        while not asked:
            data = conn.recv(4096)
            if not data:
                return
            conn.sendall(side.feed(data))
            asked = any(isinstance(f.msg, p.SnapshotReq) for f in side.commands)
        go.wait(10)
        conn.sendall(bytes(blob))
        conn.recv(1)  # until the client closes
        conn.close()

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    src = HubSource(f"socket://127.0.0.1:{port}", CM)
    await src.start()
    await src.ready(10)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    go.set()
    got = 0

    async def count():
        nonlocal got
        async for ev in src.events():
            if not isinstance(ev, StatusEvent):
                got += 1
                if got == n:
                    return

    try:
        await asyncio.wait_for(count(), 120)
    except asyncio.TimeoutError:
        print(f"socket:  only {got} of {n} frames within 120 s")
    dt = time.perf_counter() - t0
    n = got
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    print(f"socket:  {n / dt:12,.0f} frames/s through the link on socket:// ({cpu / dt:.2f} of one core, "
          f"serving thread included; need >= 50,000 at under 1)")
    await src.close()
    srv.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200_000)
    ap.add_argument("--link-events", type=int, default=20_000)
    ap.add_argument("--socket-frames", type=int, default=100_000)
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]} on {os.uname().machine}")
    bench_codec(a.frames)
    asyncio.run(bench_link(a.link_events))
    asyncio.run(bench_socket(a.socket_frames))


if __name__ == "__main__":
    main()
