"""A whole match end to end: the virtual board's hub on a pty, the real hub
link, the reconciler, the flow, the journal, on one fake clock.

The match has a turn that times out (turbo clock), last drops, a variant,
a stuck switch the table flags, and the hub unplugged mid-match."""

from __future__ import annotations

import asyncio

import pytest

from coindrel.engine import BoardState, Variants, standard_geometry
from coindrel.sources.base import ManualClock
from coindrel.sources.hub import HubSource
from coindrel.table.daemon import Table
from coindrel.table.setupmenu import Choices
from coindrel.table.sim import SimOptions, SimPlayers
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Scenario, build_board, fault_from_text
from coindrel.virtual.lockstep import LockstepHub
from coindrel.virtual.wire import WireHub

G = standard_geometry()
STEP = 0.05


class Rig:
    def __init__(self, tmp_path, faults=(), seed=3, variants=Variants(shuffled=True), clock="turbo"):
        self.t = 0.0
        scn = Scenario(BoardConfig(seed=seed, variants=Variants(holes=variants.holes)))
        scn.faults = [fault_from_text(f, G, i + 1) for i, f in enumerate(faults)]
        self.board, _ = build_board(scn)
        self.hub = LockstepHub(self.board, WireHub(self.board), str(tmp_path / "coindrel-hub"))
        self.mclock = ManualClock(0.0)
        self.source = HubSource(self.hub.link, clock=self.mclock, reconnect_delay=0.2)
        self.store = MatchStore(tmp_path / "state").open()
        self.table = Table(G, Choices(clock=clock, variants=variants, players=("Ann", "Bo")), source=self.source,
                           store=self.store, clock=lambda: self.t, reveal_seconds=1.0)
        self.players = SimPlayers(self.table, self.board, SimOptions(think=0.3, seed=seed), clock=lambda: self.t)
        self.delivered = 0
        self.arrived = asyncio.Condition()
        self.modes: set[str] = set()
        self.heard: dict[int, int] = {}
        self.unplugs_seen, self.stale = 0, 0
        self.link_states: list[str] = []

    async def _pump(self):
        async for ev in self.source.events():
            self.table.handle_event(ev)
            if ev.kind == "status":
                self.link_states.append(ev.state)
                if ev.state in ("connected", "resync"):
                    asyncio.get_running_loop().create_task(self.table._read_positions())
            else:
                self.delivered += 1
            await self._notify()

    async def _notify(self):
        async with self.arrived:
            self.arrived.notify_all()

    async def advance(self, seconds: float, act=True):
        end = self.t + seconds
        while self.t < end - 1e-9:
            self.t += STEP
            await self.mclock.advance(STEP)
            link = self.source.link
            conn = link._conn if link is not None else None
            if self.hub.unplugs != self.unplugs_seen:  # the connection before an unplug never reads again
                self.unplugs_seen, self.stale = self.hub.unplugs, conn.ident if conn is not None else self.stale
            # frames wait until the link has finished opening the port (pyserial empties it then)
            self.hub.hold = conn is None or conn.lost is not None or conn.ident <= self.stale
            self.hub.step(self.t)
            await self._delivered()
            self.table.step()
            self.modes.add(self.table.flow.mode)
            if act:
                self.players.step()

    def _count_bytes(self, link):
        """Count what the link hears, per connection (the reader thread hands
        every chunk to ``_on_data`` on the loop)."""
        if getattr(link, "_counted", False):
            return
        heard = link._on_data

        def on_data(ident, data):
            self.heard[ident] = self.heard.get(ident, 0) + len(data)
            heard(ident, data)
            asyncio.get_running_loop().create_task(self._notify())

        link._on_data, link._counted = on_data, True

    async def _delivered(self):
        """Wait (in real time) until the link has heard every byte the hub
        wrote and handed on every board event: fake time may only move on once
        the controller has heard everything that happened before it."""
        link = self.source.link
        if link is None or not self.hub.plugged:
            return
        self._count_bytes(link)

        def done():
            conn = link._conn
            if conn is None or conn.ident <= self.stale:
                return True  # no port open on the pty now plugged in: nothing can be heard
            heard = self.heard.get(conn.ident, 0) >= self.hub.session_bytes
            return heard and (not link.connected or self.delivered >= self.written)

        async def until_done():
            async with self.arrived:
                await self.arrived.wait_for(done)

        if not await _within(until_done(), 10) and self.hub.plugged:
            raise AssertionError(f"the link heard {self.heard} of {self.hub.session_bytes} bytes, "
                                 f"{self.delivered} of {self.written} events")
        await asyncio.sleep(0)

    @property
    def written(self):
        return self.hub.events_written

    async def start(self):
        await self.source.start()
        self._count_bytes(self.source.link)

    async def run(self, until_over=True, limit=900.0):
        await self.start()
        pump = asyncio.create_task(self._pump())
        try:
            await self.advance(1.0, act=False)  # handshake, snapshot of every switch
            while self.t < limit:
                await self.advance(1.0)
                m = self.table.flow.match
                if until_over and m is not None and m.over:
                    await self.advance(1.0, act=False)
                    break
        finally:
            pump.cancel()
            await asyncio.gather(pump, return_exceptions=True)
            await self.source.close()
            self.hub.close()
        return self.table


async def _within(awaitable, seconds):
    try:
        await asyncio.wait_for(awaitable, seconds)
        return True
    except asyncio.TimeoutError:
        return False


class SlowOnce(SimPlayers):
    """Player 1 dawdles on their third turn until the clock chooses for them."""

    def step(self):
        m = self.table.flow.match
        if m is not None and len(m.results) == 4 and m.forced_entry is None and m.phase == "turn":
            return
        super().step()


def test_a_whole_match_through_the_real_link(tmp_path):
    rig = Rig(tmp_path, faults=["switch_stuck@R3S4,t=15", "unplug,t=40,duration=3"])
    rig.players = SlowOnce(rig.table, rig.board, SimOptions(think=0.3, seed=3), clock=lambda: rig.t)
    table = asyncio.run(rig.run())
    m = table.flow.match or _last_match(table)
    assert m.over and m.winner in (1, 2, "draw")
    results = m.results
    assert any(r.forced_entry is not None for r in results), "the turbo clock chose an entry once"
    assert sum(1 for r in results if r.last_drop) >= 3, "every round ended with a last drop"
    assert m.setup.variants.shuffled
    assert "mismatch" in rig.modes, "the stuck switch was flagged on the OLED"
    assert rig.link_states.count("disconnected") >= 1 and rig.link_states[-1] in ("connected", "resync")
    # The scores are the sum of what every drop scored, and the table's belief is the board as it is.
    assert m.totals == (sum(r.points for r in results if r.player == 1), sum(r.points for r in results if r.player == 2))
    truth = BoardState(G, rig.board.world.codes)
    assert [c & 1 for c in m.board.codes] == [c & 1 for c in truth.codes]
    history = [p for p in (tmp_path / "state" / "history").iterdir()]
    assert len(history) == 1


def _last_match(table):
    from coindrel.table.history import list_matches, load_match

    summary = list_matches(table.store.dir)[0]
    return load_match(summary.path).match


def test_a_healthy_match_has_no_mismatch(tmp_path):
    rig = Rig(tmp_path, seed=5, variants=Variants(holes=True), clock="60")
    table = asyncio.run(rig.run())
    assert "mismatch" not in rig.modes
    m = table.flow.match or _last_match(table)
    assert m.over and m.board.holes() == ["R2S2", "R2S6", "R4S3", "R4S5"]
