"""The hub's serial port and the thread that reads it, for ``HubLink``.

``serial.serial_for_url`` opens the port, so ``/dev/coindrel-hub``,
``socket://host:port`` and ``rfc2217://host:port`` all work. A reader thread
hands what it reads to the event loop; everything waiting is read at once on
every transport, never a byte per call.

The loop can also read the port itself (``Connection.drain``): before the
link calls a hub silent it takes whatever is waiting, so a reader thread the
machine starved is never mistaken for a hub that stopped talking. Both read
only what is already waiting, under one lock, into one queue: the bytes
reach the link in the order they came, whoever read them.
"""

from __future__ import annotations

import asyncio
import collections
import errno
import select
import threading

from .device import NotAPort, PortBusy, busy_message, not_a_serial_port

WAIT = 0.5  # real seconds a reader waits before looking at ``alive`` again (closing never hangs)


def open_serial(url: str, baudrate: int = 115200):
    """The open port; ``NotAPort`` for a device that is no serial port,
    ``PortBusy`` (naming who has it, when /proc can tell) for one another
    program holds: the words a person needs, not pyserial's ioctl errors."""
    import serial

    if "://" not in url:
        what = not_a_serial_port(url)
        if what:
            raise NotAPort(f"{url} is {what}")
    try:
        # The Pico's USB serial ignores the baud rate, but 1200 would reboot it
        # into its bootloader (MicroPython's 1200-baud touch): never use that.
        return serial.serial_for_url(url, baudrate=baudrate, timeout=None, write_timeout=2, exclusive=True)
    except serial.SerialException as e:
        if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK) and "lock" in str(e):
            raise PortBusy(busy_message(url)) from None
        raise


def _socket_of(port):
    """The socket of a ``socket://`` port (read directly: pyserial reports at
    most 1 byte waiting there); None for every other transport (rfc2217 has a
    socket too, but its bytes are telnet that only its own thread may read)."""
    if type(port).__module__.endswith("protocol_socket"):
        return getattr(port, "_socket", None)
    return None


def _fd_of(port):
    """Something ``select`` can wait on without reading, or None (rfc2217,
    loop://, a port of another kind: only a blocking read can wait there)."""
    sock = _socket_of(port)
    if sock is not None:
        return sock
    if type(port).__module__.endswith("serialposix"):
        try:
            return port.fileno()
        except Exception:  # noqa: BLE001 - not open, or no descriptor
            return None
    return None


def _readable(fd, timeout: float, extra=()) -> list:
    return select.select([fd, *extra], [], [], timeout)[0]


def _read_waiting(port, fd) -> bytes:
    """Every byte already waiting on ``port``, without blocking; raises the
    port's error when the other side has gone (readable, but nothing to read)."""
    import serial

    sock = _socket_of(port)
    if sock is not None:
        parts = []
        while _readable(sock, 0):
            chunk = sock.recv(65536)
            if not chunk:
                if parts:
                    break  # the close is found on the next read
                raise serial.SerialException("the socket was closed by the other side")
            parts.append(chunk)
        return b"".join(parts)
    n = port.in_waiting  # EIO from its ioctl when a cable is pulled
    if n:
        return port.read(n)
    if _readable(fd, 0):
        return port.read(1)  # readable with nothing waiting: a hang-up, which this read reports
    return b""


class Connection:
    """One open port with its reader thread; bytes and loss go to the loop."""

    def __init__(self, link: "HubLink", port, ident: int):  # noqa: F821 (link.py imports this module)
        from serial.threaded import Protocol, ReaderThread

        loop = asyncio.get_running_loop()
        conn = self

        class _Proto(Protocol):
            def data_received(self, data):
                loop.call_soon_threadsafe(conn.hand_over)

            def connection_lost(self, exc):
                loop.call_soon_threadsafe(link._on_lost, ident, exc)

        class _Reader(ReaderThread):
            def run(self):
                conn._read_loop(self, _Proto())

        self.ident = ident
        self.port = port
        self.loop = loop
        self.link = link
        self.clock = getattr(link, "clock", None)
        self.fd = _fd_of(port)
        self.lock = threading.Lock()  # held by whoever reads, while it reads and queues
        self.inbox: collections.deque[tuple[float | None, bytes]] = collections.deque()
        self.arrived: float | None = None  # the link's clock when the bytes being handed over were read
        self.thread = _Reader(port, _Proto)
        self.lost: str | None = None

    def start(self) -> None:
        self.thread.start()

    def _now(self):
        return self.clock.monotonic() if self.clock is not None else None

    def _read_loop(self, thread, proto) -> None:
        import serial

        thread.protocol = proto
        thread._connection_made.set()
        error = None
        abort = [a for a in (getattr(self.port, "pipe_abort_read_r", None),) if a is not None]
        if self.fd is None and not hasattr(self.port, "cancel_read"):
            self.port.timeout = WAIT
        while thread.alive and self.port.is_open:
            try:
                if self.fd is not None:
                    if self.fd not in _readable(self.fd, WAIT, abort) or not thread.alive:
                        continue
                    with self.lock:
                        data = _read_waiting(self.port, self.fd)
                        if data:
                            self.inbox.append((self._now(), data))
                else:
                    data = self.port.read(self.port.in_waiting or 1)  # can only wait by reading
                    if data:
                        with self.lock:
                            self.inbox.append((self._now(), data))
            except (serial.SerialException, OSError, ValueError) as e:  # a pulled cable: EIO; a closed fd: ValueError
                error = e
                break
            if data:
                proto.data_received(data)
        thread.alive = False
        proto.connection_lost(error)
        thread.protocol = None

    def drain(self) -> int:
        """Read (on the loop) whatever is waiting on the port and hand it over
        with everything the reader thread read but the loop has not yet had;
        how many bytes. A port that fails here is left for the reader to report."""
        n = 0
        if self.fd is not None and not self.lost:
            with self.lock:
                try:
                    data = _read_waiting(self.port, self.fd)
                except Exception:  # noqa: BLE001 - the reader thread sees the loss and reports it
                    data = b""
                if data:
                    self.inbox.append((self._now(), data))
        for _t, data in list(self.inbox):
            n += len(data)
        self.hand_over()
        return n

    def hand_over(self) -> None:
        """Give the link every chunk queued so far, in the order it was read."""
        while True:
            with self.lock:
                if not self.inbox:
                    return
                t, data = self.inbox.popleft()
            self.arrived = t
            self.link._on_data(self.ident, data)

    async def write(self, data: bytes) -> None:
        await self.loop.run_in_executor(None, self.thread.write, data)

    async def close(self) -> None:
        try:
            await self.loop.run_in_executor(None, self.thread.close)
        except Exception:  # noqa: BLE001 - closing a port that is already gone
            pass
