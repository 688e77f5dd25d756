"""The table's latency, memory and idle CPU.

Latency: from the moment the virtual hub writes the frame with a drop's last
exit event on the pty, through the real hub link, the reconciler, the match
and the flow, to the rendered OLED image showing the new score. The quiet
window after a drop's last event (the reconciler waits until no coin of the
drop can still be falling; it is learned from the board) is a rule of the
game's sensing, not processing, and is reported separately.

Memory and idle CPU: ``coindrel run`` against the virtual board, idle at the
menu, measured from /proc.

Event-loop stall (issue 13: never more than 20 ms): the table's own loop
(``Table.run``: its event pump, its steps) fed a log of the second board
model with four faults at once at full speed, while a 1 ms ticker on the
same loop records the longest gap between its ticks. The diagnosis in the
daemon's child process and on a worker thread, interleaved run by run (the
same load for both), and the ticker alone as the reference.

    python benchmarks/bench_table.py [--drops 300] [--idle 10] [--stall-runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coindrel.display import render  # noqa: E402
from coindrel.engine import standard_geometry  # noqa: E402
from coindrel.events import ExitEvent  # noqa: E402
from coindrel.sources.hub import HubSource  # noqa: E402
from coindrel.table.daemon import Table  # noqa: E402
from coindrel.table.setupmenu import Choices  # noqa: E402
from coindrel.table.store import MatchStore  # noqa: E402
from coindrel.virtual import BoardConfig, Collect, Scenario, build_board  # noqa: E402
from coindrel.virtual.lockstep import LockstepHub  # noqa: E402
from coindrel.virtual.wire import WireHub  # noqa: E402

G = standard_geometry()


async def latency(drops: int, tmp: Path) -> tuple[list[float], list[float]]:
    out = Collect()
    board, _ = build_board(Scenario(BoardConfig(seed=21)), outputs=[out])
    hub = LockstepHub(board, WireHub(board), str(tmp / "hub"))
    source = HubSource(hub.link)
    now = [0.0]
    table = Table(G, Choices(clock="off", players=("Ann", "Bo")), source=source, store=MatchStore(tmp / "state").open(),
                  clock=lambda: now[0], reveal_seconds=0.0)
    seen = asyncio.Event()
    heard: list = []

    async def pump():
        async for ev in source.events():
            table.handle_event(ev)
            heard.append(ev)
            if ev.kind == "status" and ev.state in ("connected", "resync"):
                asyncio.get_running_loop().create_task(table._read_positions())
            seen.set()

    await source.start()
    task = asyncio.create_task(pump())

    async def step_board(t: float) -> None:
        link = source.link
        hub.hold = link is None or link._conn is None
        hub.step(t)
        await asyncio.sleep(0)

    while not (source.link and source.link.connected and len(table.positions) == G.switch_count):
        now[0] += 0.05
        await step_board(now[0])
        await asyncio.sleep(0.005)
    table.handle_action("select")  # start a match
    table.handle_action("select")  # past the reveal
    lat, quiet = [], []
    global parts
    parts = []
    size = (128, 64)
    while len(lat) < drops:
        m = table.flow.match
        if m is None or m.over:
            while table.flow.mode != "menu":
                table.handle_action("select")
            table.handle_action("select")  # start: the table asks for the pads to be cleared
            if table.flow.message is not None:
                board.clear_pads()
                table.handle_action("select")
            continue
        if table.flow.mode != "turn":
            table.handle_action("select")
            continue
        before = len(m.results)
        board.drop(m.to_move % 8 + len(m.results) % 3, now[0])
        events_before = len(out.events)
        last_exit_t = None
        # Run the cascade in 10 ms slices, handing each slice's frames to the link.
        while True:
            now[0] += 0.01
            n0 = len(heard)
            t_write = time.perf_counter()
            await step_board(now[0])
            new = out.events[events_before:]
            events_before = len(out.events)
            exits = [e for e in new if isinstance(e, ExitEvent)]
            wanted = sum(1 for e in new if e.kind != "status")
            while sum(1 for e in heard[n0:] if e.kind != "status") < wanted:
                seen.clear()
                await asyncio.wait_for(seen.wait(), 10)
            t_heard = time.perf_counter()
            if exits:
                last_exit_t, t_link = exits[-1].t, t_heard - t_write
            if not board.busy() and not new:
                break
        # The board has been quiet long enough: the next step reconciles, scores and redraws.
        deadline = now[0] + table.reconciler.timing.quiet + 0.01
        while len(table.flow.match.results) == before and now[0] < deadline + 2:
            now[0] += 0.01
            await step_board(now[0])
            t0 = time.perf_counter()
            table.step()
            if len(table.flow.match.results) > before:
                render(table.flow.view(table.now()), size)
                t1 = time.perf_counter()
                if last_exit_t is not None:
                    lat.append((t_link + (t1 - t0)) * 1000)
                    parts.append((t_link * 1000, (t1 - t0) * 1000))
                    quiet.append(now[0] - last_exit_t)
    task.cancel()
    await source.close()
    hub.close()
    return lat, quiet


FOUR = [("switch_stuck", "R3S4", 8, 1.0, {}), ("exit_sensor_dead", "exit 7", 8, 1.0, {}),
        ("hall_fault", "R2S3", 9, 1.0, {"mode": "frozen"}), ("jam", "R4S2 left outlet", 10, 1.0, {})]


class LogSource:
    """A board source that hands over a log's events at full speed (a 1 ms
    pause every 8 events, so the loop has its turn as it would between frames)."""

    def __init__(self, events):
        from coindrel.sources.base import Capabilities

        self.capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)
        self.pending = list(events)
        self.done = asyncio.Event()

    async def start(self):
        pass

    async def close(self):
        pass

    async def events(self):
        for i, ev in enumerate(self.pending):
            yield ev
            if i % 8 == 7:
                await asyncio.sleep(0.001)
        self.done.set()
        await asyncio.Event().wait()  # a live source never ends


async def _ticker(gaps: list, until: asyncio.Event) -> None:
    last = time.perf_counter()
    while not until.is_set():
        await asyncio.sleep(0.001)
        if until.is_set():
            break  # the table is closing: its shutdown is not a stall
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


async def stall_run(events, where: str) -> dict:
    """The longest gap of the ticker while ``Table.run`` takes ``events`` in,
    diagnosing them ``where`` ("process" or "thread"), until every drop is scored."""
    source = LogSource(events)
    table = Table(G, Choices(clock="off"), source=source, reveal_seconds=0.0, new_seed=lambda: 1)
    table.diagnosis_in = where
    table.positions.update({label: "L" for label in G.labels})
    for _ in range(3):  # start a match, pads set, past the reveal (stepped, before the loop)
        table.handle_action("select")
        table.step()
    stop, gaps = asyncio.Event(), []
    gc.collect()
    gc.freeze()  # as ``coindrel run`` does before its loop starts (table/service.py)
    running = asyncio.create_task(table.run(stop=stop))
    while table._diag is None:  # the child starts with the loop: its start is not a stall of a drop
        await asyncio.sleep(0.001)
    if where == "process":
        from coindrel.reconcile.process import _nothing

        await asyncio.wrap_future(table._diag.call(_nothing))
    ticking = asyncio.create_task(_ticker(gaps, stop))
    t0 = time.perf_counter()
    await source.done.wait()
    quiet = 0
    for _ in range(20000):  # until every drop is scored and nothing is left open (bounded)
        await asyncio.sleep(0.005)
        quiet = quiet + 1 if not table.diagnosing and table._diag.idle else 0
        if quiet >= 40:
            break
    elapsed = time.perf_counter() - t0
    stop.set()
    await running
    await ticking
    gc.unfreeze()
    return {"max_ms": max(gaps) * 1000.0, "ticks": len(gaps), "reports": table.reports, "seconds": elapsed}


async def ticker_alone(ticks: int) -> float:
    gaps, stop = [], asyncio.Event()
    task = asyncio.create_task(_ticker(gaps, stop))
    while len(gaps) < ticks:
        await asyncio.sleep(0.01)
    stop.set()
    await task
    return max(gaps) * 1000.0


def stall_figures(runs: int, seeds=(99, 98, 97)) -> dict:
    """``stall_run`` over logs of a board with four faults, process and
    thread interleaved (the order alternating), and the ticker alone."""
    from benchmarks.models.board2 import Session
    from coindrel.reconcile.offline import load

    logs = [list(load([__import__("json").dumps(d) for d in Session(seed, drops=30, faults=FOUR).run()[0]]).events)
            for seed in seeds]
    out = {"process": [], "thread": [], "alone": []}
    k = 0
    for _ in range(runs):
        for events in logs:
            order = ("process", "thread") if k % 2 == 0 else ("thread", "process")
            k += 1
            for where in order:
                gc.collect()  # not the garbage of building the logs: each run from a collected heap
                out[where].append(asyncio.run(stall_run(events, where)))
            out["alone"].append(asyncio.run(ticker_alone(out[order[-1]][-1]["ticks"])))
    return out


def idle_figures(seconds: float, tmp: Path, source: str = "virtual") -> tuple[float, float, float]:
    """RSS (MB), CPU (% of one core) and wakeups per second of ``coindrel run``
    idle at the menu; wakeups are the context switches of all its threads."""
    config = tmp / f"idle-{source}.toml"
    config.write_text(f'[storage]\nstate_dir = "{tmp / ("idle-state-" + source)}"\n[board]\nsource = "{source}"\n'
                      f'[display]\ndriver = "dummy"\n')
    proc = subprocess.Popen([sys.executable, "-m", "coindrel", "run", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)  # start-up
        t0, c0, w0 = time.monotonic(), _cpu(proc.pid), _switches(proc.pid)
        time.sleep(seconds)
        elapsed = time.monotonic() - t0
        cpu = (_cpu(proc.pid) - c0) / elapsed * 100
        wakeups = (_switches(proc.pid) - w0) / elapsed
        rss = _rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    return rss, cpu, wakeups


def _switches(pid: int) -> int:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
        except OSError:
            pass  # a thread that ended
    return total


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drops", type=int, default=300)
    ap.add_argument("--idle", type=float, default=60.0, help="seconds of idle measurement")
    ap.add_argument("--stall-runs", type=int, default=3, help="rounds of the event-loop stall measurement (3 logs each)")
    args = ap.parse_args()
    stalls = stall_figures(args.stall_runs) if args.stall_runs else None
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        global parts
        parts = [(0.0, 0.0)]
        lat, quiet = asyncio.run(latency(args.drops, tmp)) if args.drops else ([0.0], [0.0])
        idle = {src: idle_figures(args.idle, tmp, src) for src in ("virtual", "none")}
    print(f"Coindrel table benchmark ({len(lat)} drops, Python {sys.version.split()[0]})")
    print(f"  exit frame on the pty -> new score in the OLED image: median {statistics.median(lat):.2f} ms, "
          f"p99 {pct(lat, 99):.2f} ms, max {max(lat):.2f} ms")
    print(f"  of which link p99 {pct([a for a, b in parts], 99):.2f} ms, reconcile+flow+render p99 {pct([b for a, b in parts], 99):.2f} ms")
    print(f"  quiet window after a drop's last event (learned):    median {statistics.median(quiet) * 1000:.0f} ms")
    for src, (rss, cpu, wakeups) in idle.items():
        print(f"  coindrel run, idle at the menu, source {src}: {rss:.1f} MB resident, {cpu:.2f}% of one core, "
              f"{wakeups:.1f} wakeups/s")
    if stalls:
        print(f"  event loop while it diagnoses (board2, four faults, {len(stalls['process'])} runs each, interleaved; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):")
        for where, label in (("process", "in the child process"), ("thread", "on a worker thread")):
            rs = stalls[where]
            worst = sorted(r["max_ms"] for r in rs)
            print(f"    diagnosis {label:22s} longest stall {worst[-1]:.1f} ms (median run's longest "
                  f"{statistics.median(worst):.1f} ms) over {sum(r['ticks'] for r in rs)} ticks, "
                  f"{sum(r['reports'] for r in rs)} reports; each run's longest: {' '.join(f'{x:.0f}' for x in worst)}")
        alone = stalls["alone"]
        print(f"    the same ticker alone:                 longest {max(alone):.1f} ms "
              f"(median run's longest {statistics.median(alone):.1f} ms); "
              f"each run's longest: {' '.join(f'{x:.0f}' for x in sorted(alone))}")


if __name__ == "__main__":
    main()
