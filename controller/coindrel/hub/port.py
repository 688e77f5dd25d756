"""The hub's serial port and the thread that reads it, for ``HubLink``.

``serial.serial_for_url`` opens the port, so ``/dev/coindrel-hub``,
``socket://host:port`` and ``rfc2217://host:port`` all work. A reader thread
(pyserial's ``ReaderThread``, reading in bulk) hands each chunk it reads to
the event loop in one callback: everything waiting is read at once on every
transport, never a byte per call.
"""

from __future__ import annotations

import asyncio


def open_serial(url: str, baudrate: int = 115200):
    import serial

    # The Pico's USB serial ignores the baud rate, but 1200 would reboot it
    # into its bootloader (MicroPython's 1200-baud touch): never use that.
    return serial.serial_for_url(url, baudrate=baudrate, timeout=None, write_timeout=2, exclusive=True)


def _drain(port) -> bytes:
    """Whatever else is already waiting on ``port``, without blocking: one big
    read rather than a byte at a time (pyserial's socket:// reports at most 1
    byte waiting, so its reader thread would hand over every byte alone)."""
    sock = getattr(port, "_socket", None)
    if sock is not None:
        import select

        parts = []
        # select first: the socket has a timeout, so a bare recv would wait it out
        while select.select([sock], [], [], 0)[0]:
            try:
                chunk = sock.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            parts.append(chunk)
        return b"".join(parts)
    n = port.in_waiting
    return port.read(n) if n else b""


def _bulk_reader_thread():
    import serial
    from serial.threaded import ReaderThread

    class BulkReader(ReaderThread):
        """pyserial's ReaderThread, reading everything that is waiting at once on every transport."""

        def run(self):
            if not hasattr(self.serial, "cancel_read"):
                self.serial.timeout = 1
            self.protocol = self.protocol_factory()
            try:
                self.protocol.connection_made(self)
            except Exception as e:  # noqa: BLE001 - as ReaderThread
                self.alive = False
                self.protocol.connection_lost(e)
                self._connection_made.set()
                return
            error = None
            self._connection_made.set()
            while self.alive and self.serial.is_open:
                try:
                    data = self.serial.read(self.serial.in_waiting or 1)
                    if data:
                        data += _drain(self.serial)
                except (serial.SerialException, OSError) as e:  # a pulled cable: EIO from in_waiting's ioctl too
                    error = e
                    break
                if data:
                    try:
                        self.protocol.data_received(data)
                    except Exception as e:  # noqa: BLE001 - as ReaderThread
                        error = e
                        break
            self.alive = False
            self.protocol.connection_lost(error)
            self.protocol = None

    return BulkReader


class Connection:
    """One open port with its reader thread; bytes and loss go to the loop."""

    def __init__(self, link: "HubLink", port, ident: int):
        from serial.threaded import Protocol

        ReaderThread = _bulk_reader_thread()

        loop = asyncio.get_running_loop()

        class _Proto(Protocol):
            def data_received(self, data):
                loop.call_soon_threadsafe(link._on_data, ident, bytes(data))

            def connection_lost(self, exc):
                loop.call_soon_threadsafe(link._on_lost, ident, exc)

        self.ident = ident
        self.port = port
        self.loop = loop
        self.thread = ReaderThread(port, _Proto)
        self.lost: str | None = None

    def start(self) -> None:
        self.thread.start()

    async def write(self, data: bytes) -> None:
        await self.loop.run_in_executor(None, self.thread.write, data)

    async def close(self) -> None:
        try:
            await self.loop.run_in_executor(None, self.thread.close)
        except Exception:  # noqa: BLE001 - closing a port that is already gone
            pass
