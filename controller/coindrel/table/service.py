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


def choices_from(settings: Settings) -> Choices:
    m = settings.match
    return Choices(clock=m.clock_name, variants=m.variants, players=tuple(m.players))


async def serve(settings: Settings, *, notifier: Notifier | None = None, stop: asyncio.Event | None = None) -> int:
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
    table.resume(store.recover())
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
    if table.failed is not None:
        log.error("stopping: %s", table.failed)
        return 1
    return 0


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
        return asyncio.run(serve(settings))
    except EngineError:
        raise
    except KeyboardInterrupt:
        return 130
