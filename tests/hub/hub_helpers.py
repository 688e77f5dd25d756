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

