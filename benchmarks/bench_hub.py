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
from coindrel.hub.hubside import HubSide  # noqa: E402
from coindrel.sources.hub import HubSource  # noqa: E402
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


def serve_socket(n: int, chunk: int | None) -> None:
    """The hub for ``bench_socket``, in a process of its own (as a real hub
    is; in the link's process its Python loop would fight the link for the
    interpreter lock and measure that instead): listen on a loopback port
    (printed), answer the handshake, then send ``n`` beam frames, encoded
    5,000 at a time after the handshake (their numbers follow its replies'),
    in one write each (``chunk`` None) or ``chunk`` bytes per write; then
    read until the link closes."""
    import socket

    side = HubSide(CM, clock_us=lambda: 1_000_000)
    msgs = [p.Beam(2_000_000 + 500 * (i + 1), i % 24, True, 0) for i in range(n)]
    srv = socket.create_server(("127.0.0.1", 0))
    print(srv.getsockname()[1], flush=True)
    conn, _ = srv.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a USB packet goes when written
    asked = False
    while not asked:
        data = conn.recv(4096)
        if not data:
            return
        conn.sendall(side.feed(data))
        asked = any(isinstance(f.msg, p.SnapshotReq) for f in side.commands)
    print(time.monotonic(), flush=True)  # when the first frame goes (the link's process reads the same clock)
    for at in range(0, n, 5000):
        view = memoryview(b"".join([side.frame(m) for m in msgs[at:at + 5000]]))
        step = chunk or len(view)
        for k in range(0, len(view), step):
            conn.sendall(view[k:k + step])
    while conn.recv(4096):  # until the link closes
        pass
    conn.close()


async def bench_socket(n: int, chunk: int | None = None) -> None:
    """Frames through the link from a hub on socket:// (another process):
    frames per second, and how much of one core the link's process used.
    ``chunk``: the hub writes that many bytes at a time (a USB packet is 64),
    so the link meets its bytes in small pieces as they come; None: all at once."""
    import resource
    import subprocess

    proc = subprocess.Popen([sys.executable, __file__, "--serve-socket", str(n), str(chunk or 0)],
                            stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    src = HubSource(f"socket://127.0.0.1:{port}", CM)
    await src.start()
    await src.ready(60)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    got, downs = 0, []

    async def count():
        nonlocal got
        async for ev in src.events():
            if not isinstance(ev, StatusEvent):
                got += 1
                if got == n:
                    return
            elif ev.state != "connected":
                downs.append(ev.detail)

    try:
        await asyncio.wait_for(count(), 120)
    except asyncio.TimeoutError:
        print(f"socket:  only {got} of {n} frames within 120 s")
    t1 = time.monotonic()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    dt = t1 - float(await asyncio.get_running_loop().run_in_executor(None, proc.stdout.readline))
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    how = "written at once" if chunk is None else f"written {chunk} bytes at a time"
    print(f"socket:  {got / dt:12,.0f} frames/s through the link on socket://, {how} "
          f"({cpu / dt:.2f} of one core; {got / max(cpu, 1e-9):,.0f} frames per CPU second; "
          f"need >= 50,000 frames/s at under 1)")
    for d in downs:
        print(f"         the link said: {d}")
    await src.close()
    proc.wait(30)


def main() -> None:
    if sys.argv[1:2] == ["--serve-socket"]:
        n, chunk = map(int, sys.argv[2:4])
        serve_socket(n, chunk or None)
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200_000)
    ap.add_argument("--link-events", type=int, default=20_000)
    ap.add_argument("--socket-frames", type=int, default=100_000)
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]} on {os.uname().machine}")
    bench_codec(a.frames)
    asyncio.run(bench_link(a.link_events))
    asyncio.run(bench_socket(a.socket_frames))
    asyncio.run(bench_socket(a.socket_frames, chunk=64))


if __name__ == "__main__":
    main()
