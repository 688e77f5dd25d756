"""A fake hub on a pty for link tests: the controller opens a path (a symlink
to the pty's slave side, so "replugging" can swap the pty under it), the fake
answers through HubSide. Everything runs on the test's event loop."""

from __future__ import annotations

import asyncio
import os
import tty

from coindrel.hub import protocol as p
from coindrel.hub.channelmap import load_channel_map
from coindrel.hub.hubside import HubSide


class FakeHub:
    def __init__(self, path, cm=None, *, t_us=1_000_000, answer=True, **hubside):
        self.path = str(path)
        self.cm = cm or load_channel_map()
        self.t_us = t_us
        self.side = HubSide(self.cm, clock_us=lambda: self.t_us, **hubside)
        self.answer = answer  # False: a hub that hears but does not answer
        self.master = None
        self.slave = None
        self.received = bytearray()
        self.written = 0
        self.got_data = asyncio.Event()
        self.plug()

    # -- the "USB cable" -----------------------------------------------------------
    def plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(master)
        os.set_blocking(master, False)
        name = os.ttyname(slave)
        self.slave = slave  # held open (as a plugged-in device is): no hang-up until unplugged
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(name, tmp)
        os.replace(tmp, self.path)
        self.master = master
        asyncio.get_running_loop().add_reader(master, self._readable)

    def unplug(self) -> None:
        if self.master is not None:
            asyncio.get_running_loop().remove_reader(self.master)
            os.close(self.master)
            os.close(self.slave)
            self.master = self.slave = None
        if os.path.lexists(self.path):
            os.unlink(self.path)

    def close(self) -> None:
        self.unplug()

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # the other side hung up
            asyncio.get_running_loop().remove_reader(self.master)
            return
        self.received += data
        if self.answer:
            out = self.side.feed(data)
            if out:
                self.write(out)
        self.got_data.set()

    def write(self, data: bytes) -> None:
        if self.master is not None:
            os.write(self.master, data)
            self.written += len(data)  # a test waits for all of it on the other side (a pty moves it later)

    # -- what a hub says -------------------------------------------------------------
    def tick(self, us: int) -> int:
        self.t_us += us
        return self.t_us

    def send(self, msg: p.Message) -> None:
        self.write(self.side.frame(msg))

    def boot(self) -> None:
        self.write(self.side.boot())

    def reset(self, boot_id=None, t_us=500_000) -> None:
        """The hub restarts (power blip, watchdog): new boot, seq and clock from zero."""
        self.t_us = t_us
        self.side.reboot(boot_id)
        self.write(self.side.boot())

    def coin(self, beam: int, duration_us: int = 10_000, gap_us: int = 5_000) -> None:
        t = self.tick(gap_us)
        self.write(self.side.coin(t, beam, duration_us))
        self.tick(duration_us)

    def flip(self, switch: int, to: str, raw: int = 2330, mid_us: int = 15_000) -> None:
        t = self.tick(1_000)
        self.write(self.side.hall(t, switch, "mid", 2650) + self.side.hall(t + mid_us, switch, to, raw))
        self.tick(mid_us)

    def heartbeat(self) -> None:
        self.write(self.side.heartbeat(self.tick(1)))

    def commands(self) -> list:
        return [f.msg for f in self.side.commands]
