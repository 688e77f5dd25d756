"""Serving the virtual hub live: a pty (the controller opens it like
/dev/coindrel-hub) or a TCP socket (``socket://HOST:PORT``, pyserial's URL).

Virtual time is paced against a real clock with a speed factor (``kernel.Pace``);
speed 0 runs flat out while coins, drops or faults are pending and at real
speed when the board is idle, so heartbeats keep the link content. Commands
from the controller are handled at the board's current time.

An unplugged cable closes the port: the pty disappears (a new one, with a
new name, appears on replug; the symlink follows it) or the TCP client is
dropped and new connections are refused until replug.

The socket serves one controller at a time, as a hub's port does. A second
one is refused with ``hub.text.IN_USE`` (a text line, never a frame), once
the first has had ``GRACE`` to be found gone: a daemon restarted after kill -9
gets in, because the kernel closed the dead one's socket and its end arrives
at once. A client whose machine vanished without closing is found gone when
the heartbeats written to it go unacknowledged for ``USER_TIMEOUT``.
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import tty
from typing import TYPE_CHECKING

from ..engine import EngineError
from ..hub.text import IN_USE

GRACE = 1.0  # s a second client waits for the first one's close to arrive before it is refused
USER_TIMEOUT = 10.0  # s of unacknowledged heartbeats before a client's machine counts as gone (TCP_USER_TIMEOUT)

if TYPE_CHECKING:
    from .live import Server


class Transport:
    """Moves bytes between the wire hub and one client without ever blocking
    the loop: what the client has not taken yet waits in ``backlog``."""

    def __init__(self, server: "Server"):
        self.server = server

    async def open(self) -> None: ...

    def connected(self) -> bool:
        return False

    def send(self, data: bytes) -> None: ...

    def backlog(self) -> int:
        return 0

    async def writable(self, timeout: float) -> None: ...

    async def close(self) -> None: ...


class PtyTransport(Transport):
    """A pty whose other end the controller opens like a serial port. The
    slave stays open here too, so the port keeps its settings and the data
    written while no controller has it open, as a USB serial device does."""

    def __init__(self, server, link: str | None = None):
        super().__init__(server)
        self.link = link
        self.master = self.slave = -1
        self.path = ""
        self.buf = bytearray()
        self.waiter: asyncio.Future | None = None

    async def open(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no newline translation: bytes pass as they are
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        if self.link:
            if os.path.lexists(self.link) and not os.path.islink(self.link):  # only ever replace our own link
                raise OSError(errno.EEXIST, "something that is not a symlink is there; not replaced", self.link)
            tmp = f"{self.link}.tmp{os.getpid()}"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, self.link)
        asyncio.get_running_loop().add_reader(self.master, self._readable)
        self.server.say(f"virtual hub on {self.path}" + (f" (link {self.link})" if self.link else ""))

    def connected(self) -> bool:
        return self.master >= 0

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 4096)
        except OSError:
            return
        if data:
            self.server.incoming(data)

    def send(self, data: bytes) -> None:
        self.buf += data
        self._push()

    def _push(self) -> None:
        loop = asyncio.get_running_loop()
        while self.buf and self.master >= 0:
            try:
                n = os.write(self.master, self.buf)
            except BlockingIOError:
                loop.add_writer(self.master, self._push)  # the reader is behind: try again when it reads
                return
            except OSError:
                self.buf.clear()
                break
            del self.buf[:n]
        if self.master >= 0:
            loop.remove_writer(self.master)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def backlog(self) -> int:
        return len(self.buf)

    async def writable(self, timeout: float) -> None:
        if not self.buf:
            return
        self.waiter = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(self.waiter, timeout)
        except asyncio.TimeoutError:
            pass

    async def close(self) -> None:
        if self.master >= 0:
            loop = asyncio.get_running_loop()
            loop.remove_reader(self.master)
            loop.remove_writer(self.master)
            for fd in (self.master, self.slave):
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = -1
        self.buf.clear()
        if self.link and os.path.islink(self.link) and os.readlink(self.link) == self.path:
            os.unlink(self.link)


class SocketTransport(Transport):
    """A TCP server for one client at a time (pyserial's ``socket://`` URL)."""

    def __init__(self, server, host: str, port: int):
        super().__init__(server)
        self.host, self.port = host, port
        self.srv: asyncio.AbstractServer | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.accepting = True
        self.gone = asyncio.Event()  # the client's handler has ended
        self.refused = 0  # clients refused while this one has the port

    async def open(self) -> None:
        try:
            self.srv = await asyncio.start_server(self._client, self.host, self.port)
        except OSError as e:
            fix = {errno.EADDRINUSE: f"something already listens there (another virtual board?): stop it, or choose "
                                     f"another port (socket://{self.host}:0 picks a free one)",
                   errno.EADDRNOTAVAIL: "that address is not this machine's: use 127.0.0.1 (or localhost)",
                   errno.EACCES: "ports below 1024 need root: choose a port from 1024 up"}.get(e.errno, "check the host and port")
            what = os.strerror(e.errno).lower() if e.errno else str(e)
            raise EngineError(f"cannot serve on socket://{self.host}:{self.port}: {what}; {fix}") from None
        self.port = self.srv.sockets[0].getsockname()[1]
        self.server.say(f"virtual hub on socket://{self.host}:{self.port}")

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.accepting:
            writer.close()
            return
        if not await self._free():
            await self._refuse(writer)
            return
        if not self.accepting:  # unplugged while it waited
            writer.close()
            return
        self.writer = writer
        self.refused = 0
        self._time_out_unacknowledged(writer)
        self.server.client_changed(True)
        try:
            while True:
                data = await reader.read(4096)
                if not data:
                    break
                self.server.incoming(data)
        except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):  # reset, or timed out (USER_TIMEOUT)
            pass
        finally:
            if self.writer is writer:
                self.writer = None
                self.server.client_changed(False)
                self.gone.set()
            writer.close()

    async def _free(self) -> bool:
        """Whether the port is free for a new client, once the one it has
        (if any) had GRACE to be found gone (several may wait: one gets it)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GRACE
        while self.connected():
            left = deadline - loop.time()
            if left <= 0:
                return False
            self.gone.clear()
            try:
                await asyncio.wait_for(self.gone.wait(), left)
            except asyncio.TimeoutError:
                return not self.connected()
        return True

    async def _refuse(self, writer: asyncio.StreamWriter) -> None:
        # Two daemons taking the port from each other would each get the
        # other's replayed events; the second is told why, and the first keeps it.
        if not self.refused:
            self.server.say("another controller tried to connect: refused (one controller at a time; "
                            "the first one keeps the board)")
        self.refused += 1
        try:
            writer.write(IN_USE + b"\r\n")
            await asyncio.wait_for(writer.drain(), GRACE)
        except (OSError, asyncio.TimeoutError):
            pass
        writer.close()

    @staticmethod
    def _time_out_unacknowledged(writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        option = getattr(socket, "TCP_USER_TIMEOUT", None)  # Linux
        if sock is not None and option is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, option, int(USER_TIMEOUT * 1000))
            except OSError:
                pass

    def connected(self) -> bool:
        return self.writer is not None and not self.writer.is_closing()

    def send(self, data: bytes) -> None:
        if self.connected():
            self.writer.write(data)

    def backlog(self) -> int:
        return self.writer.transport.get_write_buffer_size() if self.connected() else 0

    async def writable(self, timeout: float) -> None:
        if self.connected():
            try:
                await asyncio.wait_for(self.writer.drain(), timeout)
            except (asyncio.TimeoutError, ConnectionError):
                pass

    async def unplug(self) -> None:
        self.accepting = False
        if self.writer is not None:
            self.writer.close()
            self.writer = None
            self.gone.set()

    def replug(self) -> None:
        self.accepting = True

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.srv is not None:
            self.srv.close()
            await self.srv.wait_closed()


def parse_url(url: str) -> tuple[str, str | None, int | None]:
    """``pty`` or ``socket://HOST:PORT`` -> (kind, host, port)."""
    if url == "pty":
        return ("pty", None, None)
    if url.startswith("socket://"):
        host, _, port = url[len("socket://"):].rpartition(":")
        try:
            number = int(port)
        except ValueError:
            number = None
        if number is not None and 0 <= number <= 65535:
            return ("socket", host or "127.0.0.1", number)
        if number is not None:
            raise EngineError(f"--serve {url!r}: port {number} is not a TCP port; give 1..65535 (0 picks a free one)")
    raise EngineError(f"--serve {url!r}: write 'pty' or socket://HOST:PORT (port 0 picks a free one)")
