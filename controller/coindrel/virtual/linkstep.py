"""The controller's real hub link (``HubSource``: pyserial, its reader thread,
the decoder, the tracker) against the virtual board's ``LockstepHub`` on a
pty, everything on one fake clock that moves only when every byte has
crossed and every task has run as far as it can.

    rig = Lockstep(board, wire, tmp_path)
    result = asyncio.run(rig.run(calibrate.run(rig.source, ...)))   # a procedure to the end
    # or: await rig.start(); await rig.advance(30.0); ...; await rig.close()

One task drives the rig (``run`` or ``advance``, never both at once: two
drivers would each see the other as still running).

Before fake time moves on by a step, the rig waits (event-driven, in real
time) until the loop has nothing left to run, no executor call (a port
open, write or close) is pending, the hub has read every byte the link
wrote, and after the step, until the link has heard every byte the hub
wrote. So a busy machine only makes the test take longer: what happens, and
when on the board's clock, is the same on any machine. The only real-time
limit is ``ceiling`` seconds per wait, which bounds a hang and nothing else.
``slow`` holds up every read and write of the link's port by that many real
seconds (or, if it is a function, each write by ``slow(data)``), as a busy
machine does: a test can show its outcome does not change.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
import time
from pathlib import Path

from ..errors import CoindrelError
from ..hub.link import open_serial
from ..sources.base import ManualClock
from ..sources.hub import HubSource
from .lockstep import LockstepHub

CEILING = 120.0  # real seconds any one wait may take before the rig calls it a hang


class LockstepHang(CoindrelError, AssertionError):
    """Something the rig waited for never happened within its ceiling of real time."""


class Lockstep:
    def __init__(self, board, wire, tmp_path, *, step: float = 0.05, ceiling: float = CEILING, slow: float = 0.0,
                 **link_options):
        self.board, self.wire = board, wire
        self.hub = LockstepHub(board, wire, str(Path(tmp_path) / "coindrel-hub"))
        self.clock = ManualClock(0.0)
        self.source = HubSource(self.hub.link, clock=self.clock, open_port=self._open_port, **link_options)
        self.t = 0.0
        self.dt = step
        self.ceiling = ceiling
        self.slow = slow
        self.pending = 0  # executor calls not yet finished (as the loop sees them)
        self.sent = 0  # bytes the link wrote into ports of the hub's current plug-in
        self.received = 0  # bytes the hub read since it was last plugged in
        self.port = None  # the port the link has open on the current pty (None: none, or being opened)
        self.written: dict[int, int] = {}  # port number -> bytes the hub wrote while that port was open
        self.heard: dict[int, int] = {}  # link connection ident -> bytes handed to the link on the loop
        self._gen = 0  # hub.unplugs this rig has caught up with
        self._lock = threading.Lock()
        self._ports = itertools.count(1)
        self._changed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        receive = wire.receive

        def counted_receive(data: bytes) -> None:
            self.received += len(data)
            receive(data)

        wire.receive = counted_receive

    # -- what the link does, counted -------------------------------------------------

    def _open_port(self, url: str, baudrate: int):
        """The link's own opener (in an executor thread), with its writes and close counted."""
        gen = self.hub.unplugs
        port = open_serial(url, baudrate)
        port.rig_number = next(self._ports)
        read, write, close = port.read, port.write, port.close

        def slow_read(size=1):
            data = read(size)
            time.sleep(self.slow)  # a machine too busy to hand the bytes on at once
            return data

        def counted_write(data):
            time.sleep(self.slow(data) if callable(self.slow) else self.slow)
            n = write(data)
            with self._lock:
                if gen == self.hub.unplugs and self.hub.plugged:  # into a dying pty: lost with it
                    self.sent += len(data)
            return n

        def counted_close():
            if self.port is port:
                self.port = None
            close()

        port.write, port.close = counted_write, counted_close
        if self.slow and not callable(self.slow):
            port.read = slow_read
        if gen == self.hub.unplugs:
            self.port = port
        return port

    def _wrap_link(self) -> None:
        link = self.source.link
        on_data = link._on_data

        def counted(ident, data):
            self.heard[ident] = self.heard.get(ident, 0) + len(data)
            on_data(ident, data)
            self._changed.set()

        link._on_data = counted
        on_lost = link._on_lost

        def lost(ident, exc):
            on_lost(ident, exc)
            self._changed.set()

        link._on_lost = lost

    def _wrap_executor(self) -> None:
        loop = self._loop
        run_in_executor = loop.run_in_executor

        def counted(executor, fn, *args):
            fut = run_in_executor(executor, fn, *args)
            self.pending += 1
            fut.add_done_callback(self._executor_done)  # before the waiting task's own wake-up
            return fut

        loop.run_in_executor = counted

    def _executor_done(self, _fut) -> None:
        self.pending -= 1
        self._changed.set()

    # -- waiting ---------------------------------------------------------------------

    async def _until(self, pred, what: str) -> None:
        async def wait():
            while not pred():
                self._changed.clear()
                if pred():
                    return
                await self._changed.wait()

        try:
            await asyncio.wait_for(wait(), self.ceiling)
        except asyncio.TimeoutError:
            raise LockstepHang(f"lockstep rig: {what} did not happen within {self.ceiling:g} s of real time "
                                 f"(a hang): {self.describe()}") from None

    async def _idle(self) -> None:
        """Until no task can run and no executor call is pending."""
        loop = self._loop
        for _ in range(1_000_000):
            await asyncio.sleep(0)
            if loop._ready:  # noqa: SLF001 - the loop's run queue: something can still run
                continue
            if not self.pending:
                return
            await self._until(lambda: not self.pending, "an executor call (port open, write or close)")
        raise LockstepHang(f"lockstep rig: some task never stops running (it polls instead of waiting): {self.describe()}")

    async def _hub_reads_everything(self) -> None:
        """Until the hub has read every byte the link has written (a pty passes
        them on a little later than the write returns)."""
        hub, loop = self.hub, self._loop
        while True:
            self._catch_up_plug()
            hub._read()  # noqa: SLF001 - what LockstepHub.step does first, without moving the board
            if self._all_read():
                return
            fd = hub.master
            loop.add_reader(fd, self._changed.set)
            try:
                self._changed.clear()
                await self._until(lambda: self._changed.is_set(), "the hub reading what the link wrote")
            finally:
                loop.remove_reader(fd)

    def _all_read(self) -> bool:
        """All read, or nobody has the port open (what was in it is lost, or
        waits for a hub that opens it at a later moment: not at this one)."""
        hub = self.hub
        return self.received >= self.sent or hub.master < 0 or not hub.opened

    def _catch_up_plug(self) -> None:
        with self._lock:
            if self.hub.unplugs != self._gen:  # the cable went: what was in flight is lost with the old pty
                self._gen = self.hub.unplugs
                self.port, self.sent, self.received = None, 0, 0
            elif not self.hub.plugged:  # nothing is in flight to a hub without power
                self.sent = self.received = 0

    def _delivered(self) -> bool:
        link = self.source.link
        port = self.port
        if port is None or not self.hub.plugged or link.closed:
            return True
        conn = link._conn  # noqa: SLF001
        if conn is None or conn.port is not port:
            return False  # the link has opened the port; its connection is being set up on the loop
        if conn.lost:
            return True
        return self.heard.get(conn.ident, 0) >= self.written.get(port.rig_number, 0)

    async def quiet(self) -> None:
        """Everything that can happen at this moment of fake time has happened."""
        # Bounded: once this loop waited for a read no hub could do at this
        # moment (its port closed, the bytes sent before) and spun for ever.
        for _ in range(100_000):
            await self._idle()
            await self._hub_reads_everything()
            await self._until(self._delivered, "the link hearing what the hub wrote")
            await asyncio.sleep(0)
            if not self._loop._ready and not self.pending and self._all_read():  # noqa: SLF001
                return
        raise LockstepHang(f"lockstep rig: the moment never settles: {self.describe()}")

    # -- driving ---------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        self._wrap_executor()
        await self.source.start()
        self._wrap_link()
        await self.quiet()

    async def step(self, dt: float | None = None) -> None:
        dt = self.dt if dt is None else dt
        await self.quiet()
        self.t += dt
        await self.clock.advance(dt)
        await self.quiet()
        self._catch_up_plug()
        port = self.port
        self.hub.hold = port is None  # frames wait in the hub until the link has the new port open
        before, plugs = self.hub.session_bytes, self.hub.unplugs
        self.hub.step(self.t)
        if port is not None and plugs == self.hub.unplugs and self.hub.plugged and self.hub.session_bytes >= before:
            n = port.rig_number  # (fewer: the hub came back on a new pty this step; that port is the old one's)
            self.written[n] = self.written.get(n, 0) + self.hub.session_bytes - before
        if plugs != self.hub.unplugs:
            # the reader thread notices the cable went when the machine gets round to it: the link
            # must know at this step on every machine, or what follows depends on real time
            link = self.source.link
            await self._until(lambda: link.closed or link._conn is None or link._conn.lost is not None,  # noqa: SLF001
                              "the link noticing the unplug")
        await self.quiet()

    async def advance_to(self, t: float) -> None:
        """Steps of ``dt`` (the last one shorter) until board time ``t``."""
        while self.t < t - 1e-9:
            await self.step(min(self.dt, t - self.t))

    async def advance(self, seconds: float) -> None:
        end = self.t + seconds
        while self.t < end - 1e-9:
            await self.step()

    async def run(self, coro, limit: float = 600.0):
        """Start the rig, run ``coro`` while fake time moves on, close the rig; ``coro``'s result."""
        await self.start()
        task = asyncio.ensure_future(coro)
        try:
            while not task.done():
                if self.t >= limit:
                    raise LockstepHang(f"not done after {limit:g} s of board time: {self.describe()}")
                await self.step()
            return task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            await self.close()

    async def close(self) -> None:
        await self.source.close()
        self.hub.close()
        if self._loop is not None:
            self._loop.__dict__.pop("run_in_executor", None)

    def describe(self) -> str:
        link = self.source.link
        return (f"t={self.t:.2f} pending={self.pending} sent={self.sent} received={self.received} "
                f"written={self.written} heard={self.heard} port={'open' if self.port else 'none'} "
                f"plugged={self.hub.plugged} connected={link.connected if link else None} fds={len(os.listdir('/proc/self/fd'))}")
