"""``coindrel sim --hub firmware --fast``: the fast sim with the real hub
firmware in the loop.

The board is the virtual board; its hub is the real firmware under the unix
MicroPython (``virtual.fwhub``), whose pins the board's physics drives; the
table reads it through the real hub link (``HubSource``: pyserial on a pty,
handshake, resume, snapshots) as it reads a Pico. Everything moves on one
board clock in lockstep (``virtual.linkstep``): the board and the firmware
run to the next step, the link hears every byte before time moves on, so a
slow machine makes the sim slower, never different.
"""

from __future__ import annotations

import asyncio
import tempfile

from ..events import StatusEvent
from ..virtual.fwhub import FirmwareWire
from ..virtual.linkstep import Lockstep
from .daemon import Table
from .fastsim import FastRig, note_resumed
from .script import Do
from .setupmenu import Choices
from .store import MatchStore
from .simresult import match_seeds

FW_STEP = 0.05  # board seconds per lockstep step: the link hears the hub 20 times a board second


class FirmwareRig(FastRig):
    def __init__(self, opts, script=(), state_dir: str | None = None, step: float = FW_STEP,
                 store_options: dict | None = None):
        self.wire = None
        self.rig = None
        super().__init__(opts, script, state_dir=state_dir, step=step, store_options=store_options)

    def _build(self) -> None:
        if self.wire is None:
            self.port_dir = tempfile.mkdtemp(prefix="coindrel-fwport-")
            self.wire = FirmwareWire(self.board)
            # the wire stands for the board too: its run_until moves the board, then the firmware
            self.rig = Lockstep(self.wire, self.wire, self.port_dir, step=self.step_s)
            self.link_source = self.rig.source
        opts = self.opts
        self.store = MatchStore(self.state_dir, **self.store_options).open()
        choices = Choices(clock=opts.clock, variants=opts.variants, players=opts.names, opponent=opts.opponent)
        if getattr(self, "match_seeds", None) is None:  # one sequence for the run, restarts included
            self.match_seeds = match_seeds(opts.seed)
        self.table = Table(self.g, choices, source=self.link_source, store=self.store, clock=lambda: self.t,
                           reveal_seconds=opts.reveal_seconds, new_seed=self.match_seeds, display=self.display)
        self.table.resume(self.store.recover())
        note_resumed(self.table, self.out)  # a resumed match's summary tells its runs apart
        if self.players is None:
            from .people import SimPlayers

            self.players = SimPlayers(self.table, self.board, opts, clock=lambda: self.t)
        self.players.table = self.table
        self._hook_reports()
        if self.link_source.link is not None and self.link_source.link.connected:
            self._ask_positions()  # a restarted table process: the board as the hub has it

    def apply(self, s) -> None:
        if s.do is Do.UNPLUG and self.board.hub.cable:
            super().apply(s)  # the hub's power goes with the cable...
            self.wire.unplug(s.value)  # ...and the port with it
            return
        super().apply(s)

    def _ask_positions(self) -> None:
        table = self.table
        if table.halls_known:
            asyncio.get_running_loop().create_task(table._read_positions())  # noqa: SLF001 - what the daemon does

    async def _aadvance(self, t: float) -> None:
        await self.rig.advance_to(t)
        self.t = max(self.t, t)
        for ev in self.link_source.pending():
            self.table.handle_event(ev)
            if isinstance(ev, StatusEvent) and ev.state in ("connected", "resync"):
                self._ask_positions()

    async def _atick(self) -> None:
        end = self.t + self.step_s
        while self.next_step < len(self.script) and self.script[self.next_step].t <= end:
            s = self.script[self.next_step]
            self.next_step += 1
            await self._aadvance(max(self.t, s.t))
            self.apply(s)
        await self._aadvance(end)
        self.table.step()
        self._show()
        self.players.step()
        self._remember_match()

    async def _start(self) -> None:
        await self.rig.start()

    async def _aclose(self) -> None:
        try:
            await self.rig.close()
        finally:
            self.wire.close()
            self.close()
