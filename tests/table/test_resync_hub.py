"""A hub that comes back with another board (table/resync.py, modes_pads.py).

Found by a newcomer: a served virtual board killed with -9 mid-match and a
fresh one served in its place (about 10 rockers elsewhere, pads empty). The
hub link's own snapshot fed the differences in before the table compared the
board, so the log said "the board read again agrees ... (38 switches
compared)", the panel said "Not a drop ... the board's positions are read
again once the hub answers" (they had been), "Events lost", and asked about
the pads only after the next coin had fallen. Now the moved rockers are named
once, on the pads check, asked at once; the log names them.

The table, the real hub link on a pty and the virtual board run on the
lockstep rig (one fake clock that moves once every byte has crossed): the
outcome does not depend on the machine's speed.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from coindrel.engine import COIN, HOLE, standard_geometry
from coindrel.hub.resume import HubPosition
from coindrel.table.daemon import Table
from coindrel.table.modes import Mode
from coindrel.table.resync import believed_positions
from coindrel.table.setupmenu import Choices
from coindrel.table.sim import SimOptions, SimPlayers
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Scenario, build_board
from coindrel.virtual.linkstep import Lockstep
from coindrel.virtual.wire import WireHub

G = standard_geometry()
STEP = 0.05
SEED = 3


def fresh_board(salt: int):
    """The board at its start position, and its hub: a new power-on (boot id)."""
    board, _ = build_board(Scenario(BoardConfig(seed=SEED)))
    return board, WireHub(board, boot_salt=salt)


def sides(codes) -> dict[str, str]:
    return {G.labels[s]: ("none" if c == HOLE else "LR"[c & 1]) for s, c in enumerate(codes)}


class Rig:
    def __init__(self, tmp_path):
        self.board, wire = fresh_board(1)
        self.lock = Lockstep(self.board, wire, tmp_path, step=STEP, reconnect_delay=0.2)
        self.table = Table(G, Choices(clock="60", players=("Ann", "Bo")), source=self.lock.source,
                           store=MatchStore(tmp_path / "state").open(), clock=lambda: self.lock.t,
                           reveal_seconds=1.0, new_seed=lambda: 11)
        self.players = SimPlayers(self.table, self.board, SimOptions(think=0.3, seed=SEED), clock=lambda: self.lock.t)
        self.reports, self.views = [], []
        original = self.table.flow.on_report
        self.table.flow.on_report = lambda r, now: (self.reports.append(r), original(r, now))

    async def pump(self):
        async for ev in self.lock.source.events():
            self.table.handle_event(ev)
            if ev.kind == "status" and ev.state in ("connected", "resync"):  # what the daemon's own pump does
                asyncio.get_running_loop().create_task(self.table._read_positions())

    async def advance(self, seconds: float, act: bool = True):
        end = self.lock.t + seconds
        while self.lock.t < end - 1e-9:
            await self.lock.step()
            self.table.step()
            self.views.append(self.table.flow.view(self.lock.t))
            if act:
                self.players.step()

    async def kill(self):
        """kill -9 of the served board: its pty goes (in a step of the rig, which
        waits for the link to notice, as it does for an unplug)."""
        self.board.sched.at(self.lock.t + STEP / 2, self.lock.hub.wire._plug, False)
        await self.advance(1.0, act=False)
        assert not self.lock.source.link.connected

    def serve_another(self):
        """A fresh board behind the same link, as ``coindrel virtual-board
        --serve pty`` again; it is plugged in at the next step."""
        hub, lock = self.lock.hub, self.lock
        board, wire = fresh_board(2)
        board.run_until(lock.t)
        wire.take()  # what it said before anyone listened: nobody heard it
        wire.boot(lock.t, "power on", board.hub.snapshot())  # its clock starts now, as a new process's
        wire.on_plug = hub._plug
        receive = wire.receive

        def counted(data):  # as the rig counts what the hub reads (linkstep.Lockstep)
            lock.received += len(data)
            receive(data)

        wire.receive = counted
        hub.board, hub.wire, lock.board, lock.wire = board, wire, board, wire
        self.board = self.players.board = board
        board.sched.at(lock.t + STEP / 2, wire._plug, True)
        return board


@pytest.mark.parametrize("resumed", [False, True], ids=["fresh-table", "table-resumed-before"])
def test_another_board_behind_the_hub_is_named_once_and_the_pads_asked_at_once(tmp_path, caplog, resumed):
    caplog.set_level(logging.INFO, logger="coindrel.table")
    rig = Rig(tmp_path)
    table = rig.table

    async def main():
        await rig.lock.start()
        pump = asyncio.create_task(rig.pump())
        try:
            await rig.advance(1.0, act=False)
            while table.flow.match is None or len(table.flow.match.results) < 8:
                await rig.advance(0.5)
            await rig.advance(5.0, act=False)  # every coin at rest, every drop scored
            m = table.flow.match
            assert table.flow.mode is Mode.TURN and not m.over
            if resumed:
                # as after a restart of the table: the link asks the hub for the events after the
                # position its journal named (a new boot cannot give them: "Events lost")
                rig.lock.source.link.resume_after = HubPosition(rig.lock.source.link.tracker.boot, 5)
            believed = sides(m.board.codes)
            coins = [G.labels[s] for s, c in enumerate(m.board.codes) if c != HOLE and c & COIN]
            await rig.kill()
            caplog.clear()
            n, shown = len(rig.reports), len(rig.views)
            board = rig.serve_another()
            moved = [label for label, side in sides(board.world.codes).items() if side != believed[label]]
            assert len(moved) >= 3 and coins, (moved, coins)  # the case: rockers elsewhere, pads believed full
            for _ in range(int(4.0 / STEP)):
                await rig.advance(STEP, act=False)
                if table.flow.mode is Mode.CHECK_PADS and rig.views[-1].title == "Check the pads":
                    break
            # asked at once, before any coin: the moved rockers named, the pads believed full listed
            view = rig.views[-1]
            assert table.flow.mode is Mode.CHECK_PADS and view.title == "Check the pads", \
                [getattr(v, "title", type(v).__name__) for v in rig.views[shown:]]
            assert view.text.startswith(" ".join(moved) + " are not where they were: moved while the hub was away?")
            assert "Check the pads: the table believes coins on " + " ".join(coins) + " only." in view.text
            # flagged once: no "Not a drop" notice, and whatever came before says nothing the check does not
            titles = [getattr(v, "title", None) for v in rig.views[shown:]]
            assert "Not a drop" not in titles
            # believed: the reconciler and the match have the board as it is
            rec_sides = believed_positions(table.reconciler)
            assert {k: v for k, v in rec_sides.items()} == sides(board.world.codes)
            assert sides(table.flow.match.board.codes) == sides(board.world.codes)
            assert [r.drop for r in rig.reports[n:]] == [None]
            # the log names the differences; it never says "agrees" before it has
            said = [r.getMessage() for r in caplog.records if r.name == "coindrel.table"]
            differs = [i for i, s in enumerate(said) if s.startswith("the board differs from what the table believed")]
            agrees = [i for i, s in enumerate(said) if "agrees" in s]
            assert len(differs) == 1 and all(f"{x} " in said[differs[0]] for x in moved), said
            assert not agrees or agrees[0] > differs[0], said
            # one press plays on: nothing more is asked about it (the "Events lost" question was this one)
            table.handle_action("select")
            await rig.advance(2.0, act=False)
            assert table.flow.mode is Mode.TURN and table.flow.message is None
            assert {getattr(v, "title", None) for v in rig.views[-int(2.0 / STEP):]} & {"Events lost", "Check the pads",
                                                                                       "Not a drop"} == set()
        finally:
            pump.cancel()
            await asyncio.gather(pump, return_exceptions=True)
            await rig.lock.close()

    asyncio.run(main())
