"""The hub's port: whatever is waiting is read at once on every transport,
so a burst reaches the event loop in a few callbacks, never one per byte
(pyserial's socket:// says at most one byte is waiting; issue 15)."""

from __future__ import annotations

import asyncio
import os
import socket
import tty

from coindrel.hub.port import Connection, open_serial

BURST = bytes(range(256)) * 64  # 16 KiB in one write


class Recorder:
    """Stands in for the link: the callbacks a Connection makes on the loop."""

    def __init__(self, want: int):
        self.chunks: list[bytes] = []
        self.got = 0
        self.want = want
        self.done = asyncio.Event()
        self.lost = None

    def _on_data(self, ident, data):
        self.chunks.append(data)
        self.got += len(data)
        if self.got >= self.want:
            self.done.set()

    def _on_lost(self, ident, exc):
        self.lost = exc
        self.done.set()


async def _read_burst(url: str, send) -> Recorder:
    rec = Recorder(len(BURST))
    port = await asyncio.get_running_loop().run_in_executor(None, open_serial, url)
    conn = Connection(rec, port, 1)
    conn.start()
    try:
        send(BURST)
        await asyncio.wait_for(rec.done.wait(), 60)  # a ceiling only a hang reaches
    finally:
        await conn.close()
    return rec


def test_a_burst_on_socket_url_arrives_in_a_few_reads():
    srv = socket.create_server(("127.0.0.1", 0))
    url = f"socket://127.0.0.1:{srv.getsockname()[1]}"
    peer: list[socket.socket] = []

    def send(data):  # the port has connected (the backlog holds it): accept and write the burst at once
        c, _ = srv.accept()
        peer.append(c)
        c.sendall(data)

    try:
        rec = asyncio.run(_read_burst(url, send))
    finally:
        for c in peer:
            c.close()
        srv.close()
    assert b"".join(rec.chunks) == BURST
    assert len(rec.chunks) < 64, f"{len(rec.chunks)} callbacks for {len(BURST)} bytes: reads are not in bulk"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def test_a_burst_on_a_pty_arrives_in_a_few_reads():
    master, slave = os.openpty()
    tty.setraw(master)
    try:
        rec = asyncio.run(_read_burst(os.ttyname(slave), lambda data: _write_all(master, data)))
    finally:
        os.close(master)
        os.close(slave)
    assert b"".join(rec.chunks) == BURST
    assert len(rec.chunks) < 64, f"{len(rec.chunks)} callbacks for {len(BURST)} bytes: reads are not in bulk"


def test_a_port_with_nothing_to_wait_on_is_read_by_its_thread_alone():
    """loop:// (like rfc2217://) has no descriptor to wait on: only its reader
    thread reads it; a drain hands over what that thread read and never reads
    the port itself (two readers could reorder bytes)."""
    import serial

    async def main():
        rec = Recorder(len(BURST))
        port = serial.serial_for_url("loop://", timeout=None)
        conn = Connection(rec, port, 1)
        assert conn.fd is None
        conn.start()
        try:
            port.write(BURST)
            await asyncio.wait_for(rec.done.wait(), 60)
            assert conn.drain() == 0
        finally:
            await conn.close()
        return rec

    rec = asyncio.run(main())
    assert b"".join(rec.chunks) == BURST
