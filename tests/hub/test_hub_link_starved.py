"""A hub the link only fails to hear in time is not a silent hub.

On a saturated machine the reader thread may not run for longer than the
silence window while the hub's frames wait on the port. The link must take
what is waiting before it calls the hub silent, and judge silence by when
bytes last came off the port. The starved reader is modelled by a reader
thread whose wait never sees the port readable; time is a ManualClock."""

from __future__ import annotations

import asyncio
import select
import threading
import time

import pytest
from fakehub import FakeHub
from hub_helpers import next_event, running, status

from coindrel.events import EntryEvent, ExitEvent, StatusEvent
from coindrel.hub import port as hub_port
from coindrel.sources.base import ManualClock
from coindrel.sources.hub import HubSource

CEILING = 30.0  # real seconds only a hang reaches


@pytest.fixture
def starve(monkeypatch):
    """``await starve.on()``: from then on the reader thread never gets to see the port readable."""
    monkeypatch.setattr(hub_port, "_readable", (s := Starver()).readable)
    return s


class Starver:
    def __init__(self):
        self.starved = threading.Event()
        self.entered = threading.Event()
        self.real = hub_port._readable

    def readable(self, fd, timeout, extra=()):
        if timeout and self.starved.is_set():  # the reader's wait (the loop's own looks use timeout 0)
            self.entered.set()
            time.sleep(0.05)  # a starved thread waits (starved.wait would return at once: a spin for the GIL)
            return []
        return self.real(fd, timeout, extra)

    async def on(self) -> None:
        """Starve the reader, once it is out of any wait it was already in."""
        self.entered.clear()
        self.starved.set()
        ok = await asyncio.get_running_loop().run_in_executor(None, self.entered.wait, CEILING)
        assert ok, "the reader thread never came back to wait"

    def off(self) -> None:
        self.starved.clear()


def queued(src) -> list:
    out = []
    while not src._queue.empty():
        out.append(src._queue.get_nowait())
    return out


async def waiting_on_port(src, n: int) -> None:
    """Until at least ``n`` bytes wait unread on the link's port (a pty moves them in the kernel's own time)."""
    port = src.link._conn.port
    for _ in range(1000):
        if port.in_waiting >= n:
            return
        await asyncio.get_running_loop().run_in_executor(None, select.select, [port.fileno()], [], [], 0.05)
    raise AssertionError("the hub's bytes never reached the port")


async def settled(src, clock) -> None:
    """Until the link has taken in its whole handshake (the resume's answer
    and the snapshot's included) and waits on the clock with nothing unread.
    "connected" comes with the snapshot; a resume answer still on its way then
    held the live coins for itself, and a reader starved before it was read
    left them held: nothing was heard, and the test waited for ever (1 run in
    12 under load)."""
    tr, port = src.link.tracker, src.link._conn.port
    for _ in range(1000):
        if not (tr.hold_live or tr.resume_now or tr.resume_wanted or tr.need_snapshot or tr.awaiting_hello) \
                and port.in_waiting == 0 and clock.sleepers >= 1:
            return
        await asyncio.get_running_loop().run_in_executor(None, select.select, [port.fileno()], [], [], 0.05)
    raise AssertionError(f"the link never settled: hold_live={tr.hold_live} resume_now={tr.resume_now} "
                         f"need_snapshot={tr.need_snapshot} unread={port.in_waiting} sleepers={clock.sleepers}")


async def heard(src, clock):
    """The next board event; if none comes, what the link was doing (for the report)."""
    try:
        return await next_event(src, lambda e: not isinstance(e, StatusEvent), CEILING)
    except TimeoutError:
        tr, link = src.link.tracker, src.link
        port = link._conn.port if link._conn else None
        raise AssertionError(
            f"no event: now={clock.now} last_rx={getattr(link, '_last_rx', None)} sleepers={clock.sleepers} "
            f"at={[t for t, f in clock._sleepers if not f.done()]} unread={port.in_waiting if port else None} "
            f"hold_live={tr.hold_live} held={tr.holding} connected={link.connected} skipped={src.skipped[-5:]} "
            f"tasks={[t.get_coro().__qualname__ for t in asyncio.all_tasks()]}") from None


def test_frames_waiting_unread_are_heard_before_any_silence_verdict(hub_path, starve):
    async def main():
        hub = FakeHub(hub_path)
        clock = ManualClock()
        src = HubSource(str(hub_path), clock=clock)
        await src.start()
        await next_event(src, status("connected"))
        silence = 3 * src.link.hello.heartbeat_ms / 1000
        await settled(src, clock)
        await starve.on()
        before, mark = len(hub.side.commands), hub.written
        hub.coin(3)
        hub.coin(8 + 11)
        hub.heartbeat()
        # every byte, not some: a drain that found only the first part of a frame (the pty had not
        # moved the rest yet) heard no coin, and the starved reader never read the rest (1 in 12)
        await waiting_on_port(src, hub.written - mark)
        await asyncio.wait_for(clock.wait_sleepers(), CEILING)
        await clock.advance(silence + 0.5)  # the loop wakes long after the bytes came: starved, not silent
        got = [await heard(src, clock) for _ in range(2)]
        assert [type(e) for e in got] == [EntryEvent, ExitEvent]
        await asyncio.wait_for(clock.wait_sleepers(), CEILING)  # the link is back to waiting, still connected
        news = [e for e in src.skipped + queued(src) if isinstance(e, StatusEvent)]
        assert src.link.connected and not [e for e in news if e.state in ("disconnected", "lost")], news
        assert src.link.stats["tracker"]["missing_frames"] == 0
        assert not any(type(m).__name__ == "HelloReq" for m in [f.msg for f in hub.side.commands[before:]])

        # A hub that really says nothing is still called silent, starved reader or not.
        await running(clock, silence + 0.1, done=lambda: not src.link.connected)
        ev = await next_event(src, status("disconnected"), CEILING)
        assert "no data from the hub" in ev.detail
        await src.close()
        hub.close()

    asyncio.run(asyncio.wait_for(main(), 120))


def test_the_reader_and_a_drain_keep_the_bytes_in_order(hub_path, starve):
    """Bytes the loop drains and bytes the reader reads reach the decoder in the order the hub sent them."""
    async def main():
        hub = FakeHub(hub_path)
        clock = ManualClock()
        src = HubSource(str(hub_path), clock=clock)
        await src.start()
        await next_event(src, status("connected"))
        silence = 3 * src.link.hello.heartbeat_ms / 1000
        await settled(src, clock)
        beams = [0, 8 + 2, 5, 8 + 9, 2, 8 + 14]
        for i, beam in enumerate(beams):
            if i % 2 == 0:
                await starve.on()  # the next half waits for a drain
                mark = hub.written
            hub.coin(beam)
            if i % 2 == 0:
                await waiting_on_port(src, hub.written - mark)
                await asyncio.wait_for(clock.wait_sleepers(), CEILING)
                await clock.advance(silence + 0.2)
                starve.off()
        got = []
        for _ in range(len(beams)):
            got.append(await next_event(src, lambda e: not isinstance(e, StatusEvent), CEILING))
        beams_seen = [e.entry if isinstance(e, EntryEvent) else 8 + e.exit for e in got]
        assert beams_seen == beams
        assert src.link.stats["decoder"]["crc"] == 0 and src.link.stats["tracker"]["missing_frames"] == 0
        await src.close()
        hub.close()

    asyncio.run(asyncio.wait_for(main(), 120))
