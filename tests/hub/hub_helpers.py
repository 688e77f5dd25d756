"""Helpers for the hub link tests (imported by name: conftest modules collide across folders)."""

from __future__ import annotations

import asyncio

from coindrel.events import StatusEvent


async def next_event(source, pred=lambda ev: True, timeout: float = 5.0):
    """The next event from ``source`` satisfying ``pred`` (others are collected
    in ``source.skipped``); the timeout is only a safety net."""
    skipped = getattr(source, "skipped", None)
    if skipped is None:
        skipped = source.skipped = []

    async def find():
        while True:
            ev = await source._queue.get()
            if pred(ev):
                return ev
            skipped.append(ev)

    return await asyncio.wait_for(find(), timeout)


def status(state):
    return lambda ev: isinstance(ev, StatusEvent) and ev.state == state



async def running(clock, seconds: float, step: float = 0.1, done=lambda: False) -> float:
    """Time that passes while this process runs: the clock moved ``step`` at a
    time, every sleeper let run between (one jump of the clock is a stall of
    the process, which the link does not count as the hub's silence). Stops
    early once ``done()``; the seconds it ran."""
    ran = 0.0
    for _ in range(int(round(seconds / step))):
        await asyncio.wait_for(clock.wait_sleepers(), 60)
        await clock.advance(step)
        ran += step
        if done():
            break
    return ran
