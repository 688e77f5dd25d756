"""The crash-safe journal of a match: an append-only file of checksummed
records (``records``), written so that a kill -9 or a power cut at any moment
loses nothing that was confirmed.

Why an fsynced append-only log rather than SQLite in WAL mode:

- Same cost, one round trip: with ``synchronous=FULL`` SQLite also syncs its
  WAL on every commit; here a confirmed record is one ``write`` and one
  ``fdatasync`` of one file (benchmarks/bench_journal.py measures it). The
  directory is synced only when a journal is created, moved or cut.
- The failure we must handle is the torn tail of the last write, and here it
  is explicit: every line carries a CRC, the reader stops at the first line
  it cannot trust, the daemon says what was cut and keeps a byte-exact copy.
  SQLite would drop a torn WAL frame silently, and real damage to its main
  file ends in "database disk image is malformed" with nothing resumable.
  The tests cut and flip the journal at every byte offset.
- A match is a sequence, replayed in order (``Match.replay``); it needs no
  queries, and a finished match is one self-contained file a person can read,
  copy or attach to a bug report.

Durability rules kept here: a record is confirmed only after ``fdatasync``
returns (it covers the file size, which is all an append changes); a new
journal is written under a temporary name, synced, renamed into place and its
directory synced, so a journal always starts with its header; a failed write
is rolled back with ``ftruncate`` so the file never keeps half a record
while the daemon runs on; after a failed sync the journal refuses further
writes (the kernel may have dropped the pages), and a restart recovers from
what is on disk.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import CoindrelError
from .records import FORMAT, Damage, Record, RecordError, encode, scan


class JournalError(CoindrelError, ValueError):
    """The match could not be saved, or a saved match could not be read."""


class DiskFull(JournalError):
    """The file system holding the journal has no room left (or the user's
    quota is used up): the table tells the players what is saved (daemon).
    ``what``: the write that failed, and the system's words for it."""

    def __init__(self, what: str):
        super().__init__(f"the disk is full: {what}; free space on it")
        self.what = what


FULL = (errno.ENOSPC, errno.EDQUOT)


def _failed(e: OSError, what: str, fix: str) -> JournalError:
    if e.errno in FULL:
        return DiskFull(f"{what} ({e.strerror})")
    return JournalError(f"{what}: {e.strerror}; {fix}")


def fsync_dir(path: str | Path) -> None:
    """Make a directory's entries (creations, renames, removals) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_durably(path: Path, data: bytes, mode: int = 0o640) -> None:
    """Create ``path`` with ``data`` atomically: it exists complete or not at all."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        # a full disk left 0-byte .tmp files behind, one per failed save, never used again
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


PROBE = "room-probe.tmp"  # (.tmp: a probe a kill left behind goes with the start's leftovers)


def probe_room(state_dir: str | Path, size: int = 4096) -> OSError | None:
    """Whether the disk holding ``state_dir`` takes a write again (a full
    disk's wait): ``size`` bytes written and synced to a probe file, which is
    removed whatever happened. None when it could; else the system's error."""
    path = Path(state_dir) / PROBE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
    except OSError as e:
        return e
    try:
        _write_all(fd, b"\0" * size)
        os.fsync(fd)
        return None
    except OSError as e:
        return e
    finally:
        os.close(fd)
        try:
            path.unlink()
        except OSError:
            pass


def move_durably(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst`` (same file system) and sync both directories."""
    os.replace(src, dst)
    fsync_dir(dst.parent)
    if src.parent.resolve() != dst.parent.resolve():
        fsync_dir(src.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def utc_stamp(wall: float) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(wall))


class Journal:
    """Appends records to one journal file.

    ``append(..., durable=True)`` returns once the record is on disk.
    ``durable=False`` writes at once (safe from a crash of the process, since
    the kernel holds the data) and leaves the sync to the next durable record
    or ``sync()``: the daemon uses that for the burst of board events of a
    cascade, committing them together.
    """

    def __init__(self, path: Path, fd: int, next_n: int, size: int, *, wall: Callable[[], float] = time.time,
                 datasync: Callable[[int], None] = os.fdatasync):
        self.path = path
        self._fd: int | None = fd
        self.next_n = next_n
        self.size = size  # bytes written (and kept) so far
        self.synced_size = size
        self._wall = wall
        self._datasync = datasync
        self._broken: str | None = None

    # -- opening -----------------------------------------------------------------

    @classmethod
    def create(cls, path: Path, begin: dict, first: Iterable[tuple[str, Any]] = (), at: float | None = None,
               **kw) -> "Journal":
        """A new journal holding ``begin`` and the ``first`` records, made
        durable before it appears under its name. Refuses to overwrite.
        ``at``: the wall-clock time to stamp them with (default: now)."""
        if path.exists():
            raise JournalError(f"{path} already exists; it holds a match that must be finished or abandoned first")
        now = kw.get("wall", time.time)() if at is None else at
        lines = [encode(1, "begin", {"format": FORMAT, **begin}, now)]
        for n, (kind, data) in enumerate(first, start=2):
            lines.append(encode(n, kind, data, None if kind == "ev" else now))
        data = b"".join(lines)
        try:
            write_durably(path, data)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        except OSError as e:
            raise _failed(e, f"cannot create the match journal {path}", _fix(path)) from None
        return cls(path, fd, len(lines) + 1, len(data), **kw)

    @classmethod
    def reopen(cls, path: Path, next_n: int, size: int, **kw) -> "Journal":
        """Append to a journal that recovery has checked and cut to ``size``."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        except OSError as e:
            raise JournalError(f"cannot open the match journal {path} for writing: {e.strerror}; {_fix(path)}") from None
        actual = os.fstat(fd).st_size
        if actual != size:
            os.close(fd)
            raise JournalError(f"{path} is {actual} bytes but recovery kept {size}; is another coindrel writing to it?")
        return cls(path, fd, next_n, size, **kw)

    # -- writing -----------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._fd is None

    @property
    def unsynced(self) -> bool:
        return self.synced_size != self.size

    def append(self, kind: str, data: Any, durable: bool = True) -> int:
        """Write one record; returns its number."""
        return self.append_many([(kind, data)], durable)[0]

    def append_many(self, items: Iterable[tuple[str, Any]], durable: bool = True) -> list[int]:
        """Write several records in one write (and one sync)."""
        fd = self._writable()
        now = self._wall()
        numbers, lines = [], []
        n = self.next_n
        try:
            for kind, data in items:
                lines.append(encode(n, kind, data, None if kind == "ev" else now))
                numbers.append(n)
                n += 1
        except RecordError as e:
            raise JournalError(f"cannot save to {self.path}: {e}") from None
        if not lines:
            return []
        blob = b"".join(lines)
        try:
            _write_all(fd, blob)
        except OSError as e:
            self._roll_back(fd)
            raise _failed(e, f"cannot save the match to {self.path}", _fix(self.path)) from None
        self.size += len(blob)
        self.next_n = n
        if durable:
            self.sync()
        return numbers

    def sync(self) -> None:
        """Make everything written so far durable."""
        fd = self._writable()
        if self.synced_size == self.size:
            return
        try:
            self._datasync(fd)
        except OSError as e:
            # After a failed fsync the kernel may already have thrown the
            # pages away; writing on would pretend they were saved.
            self._broken = f"saving to {self.path} failed ({e.strerror})"
            raise _failed(e, f"saving to {self.path} failed", "restart coindrel to recover the match from what is on disk") from None
        self.synced_size = self.size

    def _roll_back(self, fd: int) -> None:
        try:
            os.ftruncate(fd, self.size)
        except OSError as e:
            self._broken = f"a failed write left a partial record in {self.path} ({e.strerror})"

    def _writable(self) -> int:
        if self._fd is None:
            raise JournalError(f"the journal {self.path} is closed")
        if self._broken:
            raise JournalError(f"{self._broken}; restart coindrel to recover the match from what is on disk")
        return self._fd

    def close(self) -> None:
        """Sync what is pending (if the journal is healthy) and close."""
        if self._fd is None:
            return
        try:
            if not self._broken and self.unsynced:
                self.sync()
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _fix(path: Path) -> str:
    return (f"check that {path.parent} is on a writable, not full file system and owned by the "
            "user coindrel runs as (the service's StateDirectory= creates it)")


def keep_copy(keep_dir: Path, name: str, suffix: str, data: bytes) -> Path:
    """Save ``data`` durably in ``keep_dir`` as ``name + suffix``, or under
    ``name-K + suffix`` when that is taken (an earlier copy is never replaced)."""
    keep_dir.mkdir(parents=True, exist_ok=True)
    copy = keep_dir / f"{name}{suffix}"
    k = 1
    while copy.exists():
        copy = keep_dir / f"{name}-{k}{suffix}"
        k += 1
    write_durably(copy, data)
    return copy


def cut_tail(path: Path, damage: Damage, keep_dir: Path, wall: float) -> tuple[Path, str]:
    """Cut ``path`` at ``damage.offset``, first saving the cut bytes durably in
    ``keep_dir``. Returns the copy's path and a message for the log."""
    with open(path, "rb") as f:
        f.seek(damage.offset)
        tail = f.read()
    copy = keep_copy(keep_dir, f"{path.stem}-{utc_stamp(wall)}-at{damage.offset}", ".cut", tail)
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.ftruncate(fd, damage.offset)
        os.fsync(fd)
    finally:
        os.close(fd)
    return copy, f"{path}: {damage.describe()}; cut it off and kept a copy in {copy}"


def read_journal(path: Path):
    """Scan a journal file (read-only)."""
    from ..limits import JOURNAL, read_limited

    try:
        data = read_limited(path, JOURNAL)
    except OSError as e:
        if e.errno == errno.EACCES:
            fix = "run coindrel as the user that owns the state directory (the service's user, coindrel)"
        else:
            fix = ("only coindrel writes there: move it out of the way (nothing of a match is lost; it is not a "
                   "journal) or choose another state directory")
        raise JournalError(f"cannot read {path}: {e.strerror}; {fix}") from None
    return scan(data)


__all__ = ["DiskFull", "FULL", "Journal", "JournalError", "PROBE", "Record", "cut_tail", "fsync_dir", "keep_copy", "move_durably",
           "probe_room", "read_journal", "write_durably"]
