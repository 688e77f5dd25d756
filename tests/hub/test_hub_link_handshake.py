"""What the link does with bytes that come before a verified hello: a
hub's USB serial hands the Pi whatever it buffered while nobody had the port
open (a stale tail of old frames, half a frame), then the hello. Nothing of
that becomes an event unless it leads up to the verified hello, no board
event is published before "connected", and a refused hub publishes none."""

from __future__ import annotations

import asyncio

from fakehub import FakeHub
from hub_helpers import status

from coindrel.events import StatusEvent
from coindrel.sources.base import ManualClock
from coindrel.sources.hub import HubSource


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


async def collect(src, until, ceiling=30.0):
    """Every event the source publishes until ``until(events)`` holds (the ceiling only bounds a hang)."""
    got = []

    async def go():
        while not until(got):
            got.append(await src._queue.get())

    await asyncio.wait_for(go(), ceiling)
    return got


async def stale_tail_then_hello(hub, src):
    await hub.got_data.wait()  # the link has the port open and said hello_req
    side = hub.side
    side.seq = 40
    stale = side.coin(200_000, 5) + side.hall(210_000, 3, "mid", 2650)  # seq 40..42: an old session's
    hub.write(b"\x00\xffgarbage" + stale[:-9] + b"\r\n" + stale[-30:])  # and half of one
    side.seq = 60  # what the hub sent meanwhile is gone: these do not lead up to the hello
    lead = side.coin(900_000, 2)  # seq 60, 61: the hub's own, just before its hello (kept)
    hub.write(lead)
    hub.answer = True
    hub.write(side.feed(bytes(hub.received)))  # now it answers the hello_req it heard


def test_no_event_before_connected_and_a_stale_tail_is_dropped(hub_path):
    async def main():
        hub = FakeHub(hub_path, answer=False)
        src = HubSource(str(hub_path), clock=ManualClock())
        await src.start()
        await stale_tail_then_hello(hub, src)
        got = await collect(src, lambda evs: sum(1 for e in evs if not isinstance(e, StatusEvent)) >= 1)
        first_board = next(i for i, e in enumerate(got) if not isinstance(e, StatusEvent))
        assert [e.state for e in got[:first_board] if isinstance(e, StatusEvent)][-1:] == ["connected"], got
        assert not any(isinstance(e, StatusEvent) and e.state == "connected" for e in got[first_board:])
        board = [e for e in got if not isinstance(e, StatusEvent)]
        assert getattr(board[0], "entry", None) == 2, f"the hub's own event before its hello, not the stale tail: {board}"
        hub.coin(4)
        more = await collect(src, lambda evs: any(getattr(e, "entry", None) == 4 for e in evs))
        seen = board + [e for e in more if not isinstance(e, StatusEvent)]
        assert all(getattr(e, "entry", None) != 5 and getattr(e, "switch", None) != "R1S4" for e in seen), seen
        assert src.link.tracker.stats.dropped_pending >= 2
        await src.close()
        hub.close()

    run(main())


def test_a_refused_hub_publishes_no_board_event(hub_path):
    async def main():
        hub = FakeHub(hub_path, answer=False, map_hash=bytes(8))
        src = HubSource(str(hub_path), clock=ManualClock())
        await src.start()
        await stale_tail_then_hello(hub, src)
        got = await collect(src, lambda evs: any(isinstance(e, StatusEvent) and e.state == "disconnected" for e in evs))
        assert any(status("error")(e) and "channel map" in e.detail for e in got)
        assert [e for e in got if not isinstance(e, StatusEvent)] == []
        assert not any(status("connected")(e) for e in got)
        await src.close()
        hub.close()

    run(main())
