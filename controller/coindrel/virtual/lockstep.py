"""A virtual hub on a pty that moves only when told: for end-to-end tests
and benchmarks that drive the table, the link and the board on one fake clock.

    hub = LockstepHub(board, WireHub(board), "/tmp/x/coindrel-hub")
    hub.step(t)          # answer the controller, run the board to t, write its frames
    hub.events_written   # board events (beam broken, hall change) sent so far

The controller opens the symlink like /dev/coindrel-hub. Frames are held
until it has the port open (pyserial empties a port's input as it opens it,
so a frame written before would be lost for reasons that are the test's, not
the hub's). An unplug fault closes the pty (the controller's reads fail, as
with a pulled USB cable); the replug opens a new one behind the same symlink.
"""

from __future__ import annotations

import os
import tty

from ..hub import protocol as p


class LockstepHub:
    def __init__(self, board, wire, link: str):
        self.board, self.wire, self.link = board, wire, link
        self.master = -1
        self.opened = False  # the controller has the port open
        self.hold = False  # the caller knows better: not yet (e.g. the port is still being opened)
        self.pending = b""
        self.events_written = 0
        self.frames_written = 0
        self.session_bytes = 0  # written into the pty now open (a replug starts again)
        self.unplugs = 0
        wire.on_plug = self._plug
        self._open()

    def _open(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        os.close(slave)  # while nobody has the port open, reading the master fails with EIO
        self.opened = False
        os.set_blocking(self.master, False)
        self.session_bytes = 0
        tmp = f"{self.link}.tmp"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(name, tmp)
        if os.path.lexists(self.link) and not os.path.islink(self.link):  # only ever replace our own link
            os.unlink(tmp)
            raise OSError(17, "something that is not a symlink is there; not replaced", self.link)
        os.replace(tmp, self.link)

    def _close(self) -> None:
        if self.master >= 0:
            os.close(self.master)
        self.master = -1
        self.opened = False
        self.pending = b""

    def _plug(self, plugged: bool) -> None:
        if plugged:
            self._open()
        else:
            self.unplugs += 1
            self._close()
            # as udev removes /dev/coindrel-hub with the cable: a link left with the old
            # name could open a pty number the kernel gave to someone else meanwhile
            if os.path.lexists(self.link):
                os.unlink(self.link)

    @property
    def plugged(self) -> bool:
        return self.master >= 0


    def step(self, t: float) -> None:
        self._read()
        self.board.run_until(t)
        self._read()
        self._write()

    def _read(self) -> None:
        while self.master >= 0:
            try:
                data = os.read(self.master, 4096)
            except (BlockingIOError, InterruptedError):
                self.opened = True
                return
            except OSError:  # EIO: nobody has the other end open
                self.opened = False
                return
            self.opened = True
            if not data:
                return
            self.wire.receive(data)

    def _write(self) -> None:
        if self.master < 0 or not self.opened or self.hold:
            return  # held in the hub's queue until the controller opens the port
        while self.wire.outbox:
            line = self.wire.outbox.popleft()
            for ch in line.split(b"\n"):
                if ch.startswith(b":"):
                    self._count(ch + b"\n")
            self.pending += line
        self.wire.queued = 0
        while self.pending:
            try:
                n = os.write(self.master, self.pending)
            except (BlockingIOError, InterruptedError):
                return  # the reader is behind; the rest goes on the next step
            self.pending = self.pending[n:]
            self.session_bytes += n

    def _count(self, line: bytes) -> None:
        try:
            msg = p.decode(line, "hub").msg
        except p.ProtocolError:
            return  # garbage a fault put on the line
        self.frames_written += 1
        if isinstance(msg, p.Hall) or (isinstance(msg, p.Beam) and msg.broken):
            self.events_written += 1

    def close(self) -> None:
        self._close()
        if os.path.lexists(self.link):
            os.unlink(self.link)
