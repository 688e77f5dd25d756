"""Virtual board figures: how fast it simulates, how fast it speaks the hub
protocol, and what it costs in memory. Run from the checkout:

    PYTHONPATH=controller python benchmarks/bench_virtual.py [--quick]

Prints one line per figure. The scenario files are the tests' own
(tests/scenarios), so the benchmark measures the runs the tests check.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import resource
import sys
import threading
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "controller"))

from coindrel.engine import BoardState, MatchRandom, drop  # noqa: E402
from coindrel.obslog import LogWriter  # noqa: E402
from coindrel.virtual import (  # noqa: E402
    BoardConfig, Collect, ObservationOutput, PlayerSpec, Scenario, build_board, load_scenario, log_header,
)
from coindrel.virtual.rand import Stream  # noqa: E402
from coindrel.virtual.wire import WireHub  # noqa: E402

SCENARIOS = ROOT / "tests" / "scenarios"


def figure(name: str, value: float, unit: str, note: str = "") -> None:
    print(f"{name:<46} {value:>12,.1f} {unit:<18} {note}")


def scripted(seed: int, drops: int, gap=(1.6, 2.6)) -> Scenario:
    s = Stream(seed, "bench")
    start = BoardState.random(MatchRandom(seed), coin_chance=0.4)
    t, out = 0.5, []
    for _ in range(drops):
        out.append((t, s.below(8)))
        t += s.span(gap)
    return Scenario(BoardConfig(seed=seed, start=start.text()), drops=out)


def timed(scn: Scenario, outputs=(), wire: bool = False):
    board, _ = build_board(scn, outputs=outputs)
    w = WireHub(board) if wire else None
    t0 = time.perf_counter()
    if w is None:
        board.finish()
    else:
        chunks = 0
        while board.busy():
            board.run_until(board.now + 1.0)
            chunks += len(w.take())
        w.bytes = chunks
    wall = time.perf_counter() - t0
    return board, wall, w


def bench_simulation(n: int) -> None:
    out = Collect()
    board, wall, _ = timed(scripted(1, n), [out])
    drops = board.world.drops
    figure("simulated drops per second (no overlap)", drops / wall, "drops/s", f"{drops} drops, {wall:.2f} s")
    figure("board events per second", len(out.events) / wall, "events/s", f"{len(out.events)} events")
    figure("virtual time per wall second", board.now / wall, "x real time", f"{board.now:.0f} virtual s")
    t0 = time.perf_counter()
    state = BoardState.parse(board.start.rows())
    for d in (x for x in board.truth.lines if x["kind"] == "drop"):
        drop(state, [d["entry"] - 1])
    engine = time.perf_counter() - t0
    figure("engine alone, same drops (for scale)", drops / engine, "drops/s")

    scn = Scenario(BoardConfig(seed=2), players=PlayerSpec(one="greedy", two="random", matches=10 ** 6, drops=n, overlap=0.4,
                                                           quick=(0.05, 0.4)))
    out = Collect()
    board, wall, _ = timed(scn, [out])
    overl = sum(1 for d in board.truth.lines if d["kind"] == "drop" and d["overlap"])
    figure("simulated drops per second (players, 40% quick)", board.world.drops / wall, "drops/s",
           f"{overl} of {board.world.drops} drops overlapped")


def bench_logs(n: int) -> None:
    scn = scripted(3, n)
    board, _ = build_board(scn)
    buf = io.StringIO()
    out = ObservationOutput(LogWriter(buf, log_header(board)), board.hub.snapshot())
    board.sinks.add(out)
    t0 = time.perf_counter()
    board.finish()
    wall = time.perf_counter() - t0
    figure("drops per second writing --log and truth", board.world.drops / wall, "drops/s",
           f"{len(buf.getvalue()) / 1e6:.1f} MB observation log")


def bench_wire(n: int) -> None:
    board, wall, w = timed(scripted(4, n), wire=True)
    figure("drops per second encoded as hub frames", board.world.drops / wall, "drops/s",
           f"{w.sent} frames, {w.bytes / 1e6:.1f} MB")
    figure("hub frames per second", w.sent / wall, "frames/s")


def bench_socket(n: int) -> None:
    import serial

    from coindrel.hub import protocol as p
    from coindrel.hub.channelmap import load_channel_map
    from coindrel.hub.tracker import Tracker
    from coindrel.virtual.live import Server

    scn = scripted(5, n)
    board, _ = build_board(scn)
    wire = WireHub(board)
    end = scn.drops[-1][0] + 3
    server = Server(board, wire, "socket://127.0.0.1:0", speed=0, until=end, say=lambda m: None, hold=True,
                    idle_fast=True, linger=True)
    server.ready = threading.Event()
    th = threading.Thread(target=lambda: asyncio.run(server.run()), daemon=True)
    th.start()
    server.ready.wait(10)
    port = serial.serial_for_url(server.url, timeout=5)
    t0 = time.perf_counter()
    port.write(p.encode(p.HelloReq(), 1))
    dec, tracker, events, done = p.Decoder("hub"), Tracker(load_channel_map()), 0, False
    while not done:
        port.timeout = 5
        data = port.read(1)
        if not data:
            break
        port.timeout = 0
        data += port.read(1 << 20)
        for item in dec.feed(data):
            if isinstance(item, p.Frame):
                events += len(tracker.feed(item, 0.0))
                if isinstance(item.msg, p.Heartbeat) and item.msg.t_us >= (end - 0.5) * 1e6:
                    done = True
    wall = time.perf_counter() - t0
    server.stop()
    th.join(10)
    port.close()
    figure("drops per second served over a socket", board.world.drops / wall, "drops/s",
           f"read by the link's Decoder+Tracker: {events} events, {dec.stats['frames']} frames")


def bench_scenarios() -> None:
    for name in ("soak-faults.toml", "healthy-overlap.toml"):
        scn = load_scenario(SCENARIOS / name)
        board, wall, _ = timed(scn, [Collect()])
        faults = len(board.fault_list)
        figure(f"scenario {name}", wall * 1000, "ms", f"{board.world.drops} drops, {faults} faults, {board.now:.0f} virtual s")


def bench_memory(n: int) -> None:
    tracemalloc.start()
    scn = Scenario(BoardConfig(seed=6), players=PlayerSpec(matches=10 ** 6, drops=n, overlap=0.3))
    board, _ = build_board(scn)  # no outputs kept: a soak run that only writes files
    board.truth.lines = _Discard()
    board.finish()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figure("peak Python memory, soak without outputs", peak / 1e6, "MB", f"{board.world.drops} drops")
    figure("process max RSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "MB")


class _Discard(list):
    def append(self, item) -> None:
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs (a few seconds in all)")
    args = ap.parse_args()
    n = 1000 if args.quick else 5000
    print(f"virtual board benchmark ({'quick' if args.quick else 'full'}): python {sys.version.split()[0]}")
    bench_simulation(n)
    bench_logs(n)
    bench_wire(n)
    bench_socket(n // 2)
    bench_scenarios()
    bench_memory(n * 4)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
