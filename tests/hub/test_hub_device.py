"""What a hub url's device is, without opening it (coindrel.hub.device):
/dev/null is told from a serial port, a port another program holds names
who holds it, and the hub link says either once, in those words, instead of
pyserial's "Inappropriate ioctl" or "[Errno 11]" on every retry."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from coindrel.events import StatusEvent
from coindrel.hub.device import NotAPort, PortBusy, lock_holder, not_a_serial_port
from coindrel.hub.port import open_serial
from coindrel.sources.base import ManualClock
from coindrel.sources.hub import HubSource

linux = pytest.mark.skipif(not os.path.exists("/proc/tty/drivers"), reason="needs Linux's /proc/tty/drivers")


@pytest.fixture
def pty():
    master, slave = os.openpty()
    yield os.ttyname(slave)
    os.close(master)
    os.close(slave)


@linux
def test_dev_null_is_no_serial_port_and_a_pty_is_one(pty, tmp_path):
    assert not_a_serial_port("/dev/null") == "character device 1:3, not a serial port"
    assert not_a_serial_port(pty) == ""
    (tmp_path / "hub").symlink_to("/dev/null")
    assert not_a_serial_port(str(tmp_path / "hub")) == "character device 1:3 (/dev/null), not a serial port"
    assert not_a_serial_port(str(tmp_path / "not-there")) == ""  # an unplugged hub: waited for, not refused


def test_without_the_kernels_list_nothing_is_claimed(tmp_path):
    assert not_a_serial_port("/dev/null", proc=str(tmp_path)) == ""
    assert lock_holder("/dev/null", proc=str(tmp_path)) == ""


def test_the_lock_holder_is_read_from_proc_locks(tmp_path):
    st = os.stat("/dev/null")
    where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    (tmp_path / "locks").write_text(f"1: FLOCK  ADVISORY  WRITE 77 00:00:1 0 EOF\n"
                                    f"2: FLOCK  ADVISORY  WRITE 4242 {where} 0 EOF\n"
                                    f"2: -> FLOCK  ADVISORY  WRITE 99 {where} 0 EOF\n")
    (tmp_path / "4242").mkdir()
    (tmp_path / "4242" / "cmdline").write_bytes(b"python3\0-m\0coindrel\0run\0\x1b[2J\0")
    assert lock_holder("/dev/null", proc=str(tmp_path)) == "pid 4242: python3 -m coindrel run \\x1b[2J"
    (tmp_path / "4242" / "cmdline").unlink()
    assert lock_holder("/dev/null", proc=str(tmp_path)) == "pid 4242"  # it ended meanwhile: the pid alone


@linux
def test_a_second_open_of_a_pty_names_the_program_that_has_it(pty):
    first = open_serial(pty)
    try:
        with pytest.raises(PortBusy) as caught:
            open_serial(pty)
        text = str(caught.value)
        assert text.startswith(f"{pty} is in use by another program (another coindrel run? pid {os.getpid()}: ")
        assert os.path.basename(sys.executable) in text or "python" in text
        assert "Errno" not in text
    finally:
        first.close()
    open_serial(pty).close()  # free again once the first has closed it


@linux
def test_opening_dev_null_says_what_it_is():
    with pytest.raises(NotAPort, match="/dev/null is character device 1:3, not a serial port"):
        open_serial("/dev/null")


async def _statuses(src, clock, retries: int, delay: float):
    """The source's status events over ``retries`` more attempts, ``delay`` apart on its clock."""
    opened = []
    link = src.link
    inner = link.open_port

    def counting(url, baudrate):
        opened.append(url)
        return inner(url, baudrate)

    link.open_port = counting
    for n in range(1, retries + 1):
        await asyncio.wait_for(link.wait_until(lambda: len(opened) >= n and link.down_reason is not None), 60)
        await clock.wait_sleepers(1)
        await clock.advance(delay)
    return [e for e in src.pending() if isinstance(e, StatusEvent)], opened


@linux
def test_the_link_says_once_that_dev_null_is_no_serial_port():
    async def main():
        clock = ManualClock()
        src = HubSource("/dev/null", clock=clock, refuse_delay=30.0)
        await src.start()
        try:
            return await _statuses(src, clock, 3, 30.0)
        finally:
            await src.close()

    said, opened = asyncio.run(main())
    assert len(opened) >= 3, "it keeps looking, slowly"
    assert [e.state for e in said] == ["disconnected"], said
    assert "/dev/null is character device 1:3, not a serial port: set [board.hub] url" in said[0].detail
    assert "every 30 s" in said[0].detail and "ioctl" not in said[0].detail


@linux
def test_the_link_says_once_who_has_the_port(pty):
    async def main():
        clock = ManualClock()
        src = HubSource(pty, clock=clock, max_reconnect_delay=5.0)
        await src.start()
        try:
            return await _statuses(src, clock, 3, 5.0)
        finally:
            await src.close()

    holder = open_serial(pty)
    try:
        said, opened = asyncio.run(main())
    finally:
        holder.close()
    assert len(opened) >= 3
    assert [e.state for e in said] == ["disconnected"], said
    assert f"{pty} is in use by another program (another coindrel run? pid {os.getpid()}: " in said[0].detail
    assert "trying again every 5 s" in said[0].detail and "Errno" not in said[0].detail


@linux
def test_a_port_gone_after_it_was_in_use_is_said_again(pty, tmp_path):
    """Said once while it lasts, but a new state is news: the screen must
    not keep saying "in use" once the hub has gone."""
    link_path = tmp_path / "coindrel-hub"
    link_path.symlink_to(pty)

    async def main():
        clock = ManualClock()
        src = HubSource(str(link_path), clock=clock, max_reconnect_delay=5.0)
        await src.start()
        try:
            await asyncio.wait_for(src.link.wait_until(lambda: src.link.down_reason is not None), 60)
            await clock.wait_sleepers(1)  # it waits to try again
            holder.close()
            link_path.unlink()  # unplugged
            await clock.advance(5.0)
            await asyncio.wait_for(src.link.wait_until(lambda: "cannot open" in (src.link.down_reason or "")), 60)
            return [e for e in src.pending() if isinstance(e, StatusEvent)]
        finally:
            await src.close()

    holder = open_serial(pty)
    try:
        said = asyncio.run(main())
    finally:
        holder.close()
    assert [e.state for e in said] == ["disconnected", "disconnected"], said
    assert "in use by another program" in said[0].detail and "waiting for it to come back" in said[1].detail
