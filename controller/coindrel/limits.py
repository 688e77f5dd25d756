"""Reading a file the table needs without trusting its size or its kind.

``geometry = "/dev/zero"`` must not read 4 GB, and a named pipe must not
hang the daemon: every file coindrel reads goes through ``read_limited``,
which opens without blocking, refuses what is not a regular file and stops
one byte past the limit. The errors are ``OSError``s with a ``strerror`` in
plain words, so each caller's existing "cannot read ... (why)" message says
what is wrong.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import CoindrelError

KIB, MIB = 1 << 10, 1 << 20
CONFIG = MIB  # coindrel.toml: a few KiB
BOARD = MIB  # a board (geometry) file: a few KiB
LESSON = MIB
SMALL = MIB  # board-timing.json and the like
JOURNAL = 256 * MIB  # a long match writes a few MiB


class NotAFile(CoindrelError, OSError):
    """A path that is a device, pipe, socket or folder where a file was asked for."""


class TooLarge(CoindrelError, OSError):
    """A file over the size such a file can be."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n // MIB} MiB" if n >= MIB and n % MIB == 0 else f"{n // KIB} KiB" if n >= KIB else f"{n} bytes"


def read_limited(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(errno.EINVAL, f"it is {_kind(st.st_mode)}, not a file", str(path))
        if st.st_size > limit:
            raise TooLarge(errno.EFBIG, f"it is {_size(st.st_size)}, more than the {_size(limit)} such a file can be",
                           str(path))
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(limit + 1 - total, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew while we read it
            raise TooLarge(errno.EFBIG, f"it is more than the {_size(limit)} such a file can be", str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text_limited(path: str | Path, limit: int) -> str:
    """``read_limited`` as UTF-8 text (UnicodeDecodeError as for ``read_text``)."""
    return read_limited(path, limit).decode("utf-8")


__all__ = ["CONFIG", "BOARD", "JOURNAL", "LESSON", "NotAFile", "SMALL", "TooLarge", "read_limited", "read_text_limited"]


# File systems the kernel makes up: nothing coindrel writes can be kept there,
# and they answer "No such file or directory" to a new file or folder.
KERNEL_FS = frozenset({"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "securityfs",
                       "configfs", "tracefs", "pstore", "bpf", "efivarfs", "autofs", "mqueue", "hugetlbfs",
                       "fusectl", "binfmt_misc", "rpc_pipefs", "nsfs"})


def file_system_of(path: str | Path) -> tuple[str, str] | None:
    """(type, mount point) of the file system ``path`` lies on, from
    /proc/self/mounts; None where that cannot be told."""
    try:
        real = os.path.realpath(path)
        with open("/proc/self/mounts", "rb") as f:
            lines = f.read(MIB).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    best = None
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        if real == point or real.startswith(point.rstrip("/") + "/"):
            if best is None or len(point) >= len(best[1]):
                best = (parts[2], point)
    return best


def made_up(path: str | Path) -> str | None:
    """"P is on M (T), a file system the kernel makes up" when ``path`` lies
    on one of ``KERNEL_FS`` (root may "write" there by os.access; the write
    fails only when made), else None."""
    fs = file_system_of(path)
    if fs is None or fs[0] not in KERNEL_FS:
        return None
    return f"{path} is on {fs[1]} ({fs[0]}), a file system the kernel makes up"


def why_unwritable(path: str | Path, error: OSError) -> str:
    """Why coindrel cannot keep files in the folder ``path``, in plain words
    (``error`` is what the system said): /proc/1 answers "No such file or
    directory", which names no real problem."""
    p = Path(path)
    made = made_up(p)
    if made:
        return f"{made}, where nothing can be stored"
    code = error.errno
    if code == errno.EROFS:
        fs = file_system_of(p)
        return f"{p} is on the read-only file system mounted at {fs[1]}" if fs else f"{p} is on a read-only file system"
    if code in (errno.EACCES, errno.EPERM):
        try:
            import getpass

            user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no name for this user: say it without
            user = f"uid {os.getuid()}"
        return f"{user} may not write in {error.filename or p}"
    if code == errno.ENOSPC:
        return f"the file system of {p} is full"
    if code == errno.ENOENT and error.filename and Path(error.filename).parent.is_dir():
        return f"the file system of {p} does not let anyone create {error.filename} (not a place for files)"
    return f"{error.filename or p}: {error.strerror or error}"


def unwritable_advice(path: str | Path, error: OSError, choose: str) -> str:
    """What to do about a folder coindrel may not write in: ``choose`` says
    how to give another one ("give --state-dir", "set state_dir to"). A
    read-only file system is not a matter of a user's rights: "a folder the
    user may write" sent a newcomer to chmod a folder on a read-only disk."""
    if error.errno == errno.EROFS:
        fs = file_system_of(path)
        where = fs[1] if fs else "that file system"
        return (f"{choose} a folder on a disk mounted read-write, or make {where} writable (sudo mount -o "
                f"remount,rw {where}; a Raspberry Pi with the overlay file system on keeps nothing across a "
                "reboot: turn it off in raspi-config, Performance Options)")
    return f"{choose} a folder on a disk that the user coindrel runs as may write, e.g. /var/lib/coindrel"
