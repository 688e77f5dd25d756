"""The command-line side of the guided procedures: ``coindrel calibrate`` and
``coindrel selftest``. Each opens the board source (the sensor hub by
default, or whatever ``[board] source`` in a config file names), tells the person
what to do step by step on the terminal, and prints the report.

The command modules in ``coindrel.commands`` only point here (see
/work/notes/reconcile-requests.md), so all the logic stays with the
procedures and is tested with fake sources.
"""

from __future__ import annotations

import asyncio
import json
import sys

from ..engine import EngineError, geometry_by_name

CALIBRATE_HELP = "guided hall calibration: flip each switch both ways, store the bands on the hub"
CALIBRATE_DESCRIPTION = (
    "Asks you to push every switch to its left side, its right side and back, reads the hall sensor's raw "
    "values as you do, checks the two sides are far enough apart and steady, and stores the bands on the hub "
    "(its flash keeps them). Type s and Enter to skip a switch you cannot reach now, q to stop."
)
SELFTEST_HELP = "guided check of every beam and hall sensor: good, dead, chattering or out of band"
SELFTEST_DESCRIPTION = (
    "Asks for one action at a time (drop a coin in entry 1, push R2S3 left then right, pass a coin through "
    "exit 5) and reports each sensor as good, dead, chattering or out of band. Whatever a coin meets on its way "
    "down is tested with it. Type s and Enter to skip a step."
)


def add_source_arguments(p) -> None:
    p.add_argument("--url", help="the hub's serial port or socket:// URL (default: the configured one, else /dev/coindrel-hub)")
    p.add_argument("--config", help="a coindrel config file whose [board] table says which board source to use")
    p.add_argument("--board", default="standard", help="board geometry: standard, mirrored or a board file")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def add_calibrate_arguments(p) -> None:
    add_source_arguments(p)
    p.add_argument("--switches", help="only these switches, comma-separated (e.g. R2S3,R4S1)")
    p.add_argument("--dry-run", action="store_true", help="measure and report, but do not store anything on the hub")


def add_selftest_arguments(p) -> None:
    add_source_arguments(p)
    p.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for each action before calling the sensor dead")
    p.add_argument("--holes", action="store_true", help="the Holes variant's switches are out: do not test their halls")


def open_source(args):
    from ..sources import make_source, source_from_config

    if getattr(args, "config", None):
        from ..config import Section, read_toml

        data = read_toml(args.config)
        return source_from_config(Section("board", data.get("board", {}), args.config))
    options = {"url": args.url} if args.url else {}
    return make_source("hub", options)


async def _keys(queue: asyncio.Queue, stdin=None) -> None:
    """Lines typed on the terminal, as commands (s: skip, q: quit).

    Read by a daemon thread of its own: a read in the loop's executor kept
    ``asyncio.run`` from returning once the procedure was done, until the
    person pressed Enter (the self-test looked frozen on its last step)."""
    import threading

    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    stdin = stdin or sys.stdin

    def give(item) -> None:
        try:
            if item is None:
                loop.call_soon_threadsafe(done.set)
            else:
                loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:
            pass  # the procedure ended and its loop closed: nobody reads these any more

    def read() -> None:
        while True:
            try:
                line = stdin.readline()
            except (OSError, ValueError):
                line = ""
            if not line:
                give(None)
                return
            give(line.strip().lower())

    threading.Thread(target=read, name="coindrel-keys", daemon=True).start()
    await done.wait()


async def _let_go(source) -> None:
    """Restart the hub as the procedure lets it go: its ring keeps the events the person made
    (coins dropped, rockers pushed) and the table, started again, would replay them into its
    paused match as turns nobody played; a hub of a new boot has none, and the table reads the
    board again and asks for the pads to be checked. (Calibration is kept on the hub's flash.)"""
    ask = getattr(source, "_ask", None)
    if ask is None:  # a source without a hub (the Pi's own pins) keeps no events for later
        return
    from ..hub.protocol import Reset

    try:
        await asyncio.wait_for(ask(Reset(), wait_connected=0), 3.0)
    except Exception:  # noqa: BLE001 - gone already, or not answering: it keeps what it had, said below
        print("the hub did not restart: before the table runs again, restart it (coindrel hub reset), or the "
              "table takes what was done here for moves of its match", file=sys.stderr, flush=True)
        return
    print("the hub restarts, so that the table does not take what was done here for moves of its match",
          file=sys.stderr, flush=True)  # (stderr: --json's output stays one JSON document)


def run_calibrate(args) -> int:
    from .calibrate import Calibration, run

    g = geometry_by_name(args.board)

    async def go():
        source = open_source(args)
        await source.start()
        try:
            halls = list(source.capabilities.halls) or list(g.labels)
            if args.switches:
                wanted = [g.labels[g.index(s.strip())] for s in args.switches.split(",") if s.strip()]
                halls = [h for h in halls if h in wanted]
            procedure = Calibration(halls)
            commands: asyncio.Queue = asyncio.Queue()
            keys = asyncio.ensure_future(_keys(commands))
            try:
                return await run(source, procedure, _say, save=not args.dry_run, geometry=g, commands=commands)
            finally:
                keys.cancel()
        finally:
            await _let_go(source)
            await source.close()

    result = asyncio.run(go())
    if args.json:
        print(json.dumps({"kind": "calibration", "ok": result.ok, "bands": [b.to_json() for b in result.bands],
                          "problems": result.problems, "skipped": result.skipped}))
    else:
        print(result.text())
        print("Stored on the hub." if result.bands and not args.dry_run else "Nothing stored (dry run).")
    return 0 if result.ok else 1


def _say(prompt) -> None:
    if prompt is not None:
        print(f"[{prompt.step}/{prompt.total}] {prompt.text}", flush=True)


def run_selftest(args) -> int:
    from .selftest import SelfTest, run

    check_args(args)
    g = geometry_by_name(args.board)

    async def go():
        source = open_source(args)
        await source.start()
        try:
            caps = source.capabilities
            test = SelfTest(  # only the sensors this source has
                g,
                entries=caps.entries,
                exits=caps.exits,
                halls=list(caps.halls),
                holes=g.holes if args.holes else (),
                timeout=args.timeout,
            )
            total = len(test.steps)

            def say(step):
                print(f"[{test.steps.index(step) + 1}/{total}] {step.text}", flush=True)

            commands: asyncio.Queue = asyncio.Queue()
            keys = asyncio.ensure_future(_keys(commands))
            try:
                return await run(source, test, say, commands=commands)
            finally:
                keys.cancel()
        finally:
            await _let_go(source)
            await source.close()

    report = asyncio.run(go())
    print(json.dumps(report.to_json()) if args.json else report.text())
    return 0 if report.ok else 1


def check_args(args) -> None:
    if getattr(args, "timeout", 1.0) <= 0:
        raise EngineError("--timeout must be a positive number of seconds")
