"""What a hub url that names a device file is, told without opening it:
whether it is a serial port at all (``/proc/tty/drivers`` lists every tty
driver's major number and minors), and who holds its lock when another
program has it (``/proc/locks`` names the pid, ``/proc/PID/cmdline`` the
program). Linux only; elsewhere, or when /proc cannot be read, nothing is
known and nothing is claimed.
"""

from __future__ import annotations

import os
import stat

from ..errors import CoindrelError
from .text import clean

PROC = "/proc"


class PortBusy(CoindrelError):
    """The port is there, but another program holds it (the exclusive lock)."""


class NotAPort(CoindrelError):
    """The device is there, but it is no serial port (``/dev/null``, a disk)."""


def _tty_ranges(proc: str) -> list[tuple[int, int, int]] | None:
    try:
        with open(os.path.join(proc, "tty", "drivers")) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    out = []
    for line in lines:
        parts = line.split()  # name, node, major, minors ("0" or "0-1048575"), type
        if len(parts) < 5:
            continue
        try:
            lo, _, hi = parts[-2].partition("-")
            out.append((int(parts[-3]), int(lo), int(hi or lo)))
        except ValueError:
            continue
    return out


def not_a_serial_port(path: str, proc: str = PROC) -> str:
    """What ``path`` is when it is a device but no serial port ("character
    device 1:3, not a serial port" for /dev/null); "" when it is a tty, is
    not there, or cannot be told."""
    try:
        st = os.stat(path)
    except OSError:
        return ""
    if not stat.S_ISCHR(st.st_mode):
        return ""  # files and folders are refused by name where the url is read
    ranges = _tty_ranges(proc)
    if not ranges:
        return ""
    major, minor = os.major(st.st_rdev), os.minor(st.st_rdev)
    if any(m == major and lo <= minor <= hi for m, lo, hi in ranges):
        return ""
    real = os.path.realpath(path)
    return f"character device {major}:{minor}{f' ({real})' if real != path else ''}, not a serial port"


def lock_holder(path: str, proc: str = PROC) -> str:
    """"pid N: its command line" of the process holding an flock on ``path``
    (pyserial's exclusive lock), or "" when that cannot be found."""
    try:
        st = os.stat(path)
        with open(os.path.join(proc, "locks")) as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    # /proc/locks names the file as MAJOR:MINOR:INODE of its filesystem (major, minor in hex)
    want = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    for line in lines:
        parts = line.split()
        if len(parts) < 6 or parts[1] == "->":  # "->": a waiter, not the holder
            continue
        try:
            major, minor, inode = parts[5].split(":")
            if (int(major, 16), int(minor, 16), int(inode)) != want:
                continue
            pid = int(parts[4])
        except ValueError:
            continue
        if pid <= 0:
            continue  # an open-file-description lock has no one pid
        try:
            with open(os.path.join(proc, str(pid), "cmdline"), "rb") as f:
                cmd = f.read().rstrip(b"\0").replace(b"\0", b" ")
        except OSError:
            return f"pid {pid}"
        return f"pid {pid}: {clean(cmd, 120)}" if cmd else f"pid {pid}"
    return ""


def busy_message(path: str, proc: str = PROC) -> str:
    who = lock_holder(path, proc)
    return f"{path} is in use by another program (another coindrel run?{' ' + who if who else ''})"
