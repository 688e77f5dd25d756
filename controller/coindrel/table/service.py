"""``coindrel run``: build every port from the configuration, resume any
match the journal holds, and run the table until systemd (or Ctrl-C) stops it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import time

from ..engine import EngineError
from .daemon import Table
from .notify import Notifier, WatchdogFeeder
from .settings import Settings
from .setupmenu import Choices
from .status import status_text
from .store import MatchStore

log = logging.getLogger("coindrel.table")
ROOM_AGAIN = 75  # serve(): the full disk has room again; build the table anew (EX_TEMPFAIL: systemd restarts it too)


def choices_from(settings: Settings) -> Choices:
    m = settings.match
    return Choices(clock=m.clock_name, variants=m.variants, players=tuple(m.players))


async def serve(settings: Settings, *, notifier: Notifier | None = None, stop: asyncio.Event | None = None,
                room_again: bool = False) -> int:
    """Run the table until stopped: 0, or 1 if it failed; ``ROOM_AGAIN`` once a
    full disk has room again (roomwait.py), for ``run_service`` to serve
    again from the journal, as a start does. ``room_again``: this serve is
    that one (the panel says the match goes on)."""
    from ..display import display_from_config
    from ..io import build_inputs, build_outputs, queue_sink
    from ..sources import build_source

    loop = asyncio.get_running_loop()
    stop = stop or asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread (tests)
            pass
    notifier = notifier or Notifier()
    notifier.extend_timeout(60)  # replaying a long journal and opening the hub may take a while
    board = settings.board
    source = build_source(board.source, board.backend)
    display_cfg, inputs_cfg, outputs_cfg = settings["display"], settings["inputs"], settings["outputs"]
    display = display_from_config(display_cfg) if display_cfg is not None else None
    outputs = build_outputs(outputs_cfg) if outputs_cfg is not None else None
    actions: asyncio.Queue = asyncio.Queue()
    inputs = build_inputs(inputs_cfg, queue_sink(loop, actions)) if inputs_cfg is not None else None
    store = MatchStore(settings.storage.state_dir, keep_matches=settings.storage.keep_matches,
                       choose=f"set [storage] state_dir in {settings.source} to").open()
    table = Table(board.geometry, choices_from(settings), source=source, display=display, outputs=outputs,
                  store=store, notifier=notifier)
    table.diagnosis_in = board.diagnosis
    _resume(table, store, room_again)
    club = None
    if settings["club"] is not None:  # club play: publish to the club's broker (docs/club.md)
        from ..club.feed import attach

        club = attach(table, settings["club"], settings.storage.state_dir)
    log.info("coindrel table: %s (board source %s)", status_text(table.flow.match), board.source)
    feeder = WatchdogFeeder.from_env(notifier, healthy=lambda: table.healthy)
    watchdog = feeder.start() if feeder is not None else None
    polling = asyncio.create_task(_poll_inputs(inputs, loop)) if inputs is not None else None
    control = None
    if settings.control.enabled:
        from .control import ControlServer

        control = ControlServer(table, settings.control.socket)
    # What start-up built (imports, the recovered match) lives as long as the daemon: no full
    # collection walks it again, which would hold the loop (bench_table.py's stall figures).
    gc.collect()
    gc.freeze()
    try:
        await table.run(actions, stop, control)
    finally:
        for task in (watchdog, polling):
            if task is not None:
                task.cancel()
        if club is not None:
            await club.finish()  # what the broker can take now, then offline
        if inputs is not None:
            inputs.close()
        if outputs is not None:
            outputs.close()
        if display is not None:
            display.close()
        store.close()
    if table.room_again is not None:
        return ROOM_AGAIN
    if table.room_wait is not None:  # stopped (systemctl stop) while the disk is full: a clean stop, nothing lost
        log.warning("stopped while the disk is full: %s", table.room_status())
        return 0
    if table.failed is not None:
        log.error("stopping: %s", table.failed)
        return 1
    return 0


def _resume(table: Table, store: MatchStore, room_again: bool) -> None:
    """The journal's match, resumed; a start on a full disk waits for room
    (roomwait.py) instead of exiting, and systemd's restarts do not loop."""
    from .journal import FULL, DiskFull

    try:
        table.resume(store.recover())
    except (DiskFull, OSError) as e:
        if isinstance(e, OSError) and e.errno not in FULL:
            raise
        if isinstance(e, OSError):  # a copy of a damaged record, or a cut tail, that recovery could not write
            e = DiskFull(f"cannot recover the match in {store.dir} ({e.strerror})")
        table._wait_for_room(e, saved=_saved_on_disk(store))
        return
    if room_again:
        from ..display import MessageView

        from .roomwait import goes_on

        m = table.flow.match
        drops = len(m.results) if m is not None else 0
        saved = None if m is None or m.over else f"drop {drops}" if drops else "the start of the match"
        table.flow._note(MessageView("Disk has room", f"{goes_on(saved).capitalize()}."), table.now())


def _saved_on_disk(store: MatchStore) -> str | None:
    """What the journal a start could not resume holds ("drop 3")."""
    from .journal import read_journal

    try:
        records = read_journal(store.current).records
    except (OSError, ValueError):
        return None
    drops = sum(1 for r in records if r.kind == "act" and isinstance(r.data, dict) and r.data.get("do") == "drop")
    return f"drop {drops}" if drops else "the start of the match"


async def _poll_inputs(inputs, loop) -> None:
    """Holds and auto-repeat need a look at the keys while one is down; with
    every key up, nothing is polled until one goes down (an idle table sleeps)."""
    down = asyncio.Event()
    inputs.keypad.wakeup = lambda: loop.call_soon_threadsafe(down.set)
    while True:
        inputs.poll(time.monotonic())
        deadline = inputs.next_deadline()
        if deadline is None:
            down.clear()
            if inputs.next_deadline() is None:  # no key went down in between
                try:
                    await asyncio.wait_for(down.wait(), 60.0)
                except asyncio.TimeoutError:
                    pass
            continue
        await asyncio.sleep(max(0.005, min(0.05, deadline - time.monotonic())))


def run_service(settings: Settings) -> int:
    try:
        again = False
        while True:  # a full disk that has room again: every part built anew, as at a start (roomwait.py)
            code = asyncio.run(serve(settings, room_again=again))
            if code != ROOM_AGAIN:
                return code
            again = True
    except EngineError:
        raise
    except KeyboardInterrupt:
        return 130
