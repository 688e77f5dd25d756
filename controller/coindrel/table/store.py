"""The state directory: the match in progress, the history, and recovery.

Layout (``[storage] state_dir``, /var/lib/coindrel under systemd)::

    match.journal              the match in progress (absent between matches)
    history/0042-20260301T141502Z.journal   finished and abandoned matches
    damaged/                   byte-exact copies of whatever recovery cut off
    board-faults.journal       the board's persistent faults as last known (known_faults.py)
    board-timing.json          the board's timing as learned (diagnosing.py)
    waiting.journal            the club's requests waiting for a person (waiting.py)
    lock                       held by the one daemon using the directory

On start, ``recover()`` turns whatever a crash or power cut left into a match
to resume: it cuts an untrustworthy tail (keeping a copy), cuts actions the
engine cannot replay (keeping a copy), completes a finished match's move to
history, and says what it did in plain words.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import __version__
from ..engine import Match
from .history import CURRENT, DAMAGED, HISTORY, NUMBER, SUFFIX, MatchSummary, history_files, match_summary
from .journal import (JournalError, cut_tail, fsync_dir, move_durably, read_journal, utc_stamp,
                      write_durably)
from .matchjournal import MatchJournal
from .records import Damage, Record
from .replay import REOPENED, Contents, read_contents

log = logging.getLogger("coindrel.table")


class StoreError(JournalError):
    """The state directory cannot be used as asked."""


@dataclass
class Recovery:
    """What ``recover()`` found: a match to resume (or none) and what it did."""

    messages: list[str] = field(default_factory=list)
    match: Match | None = None
    journal: MatchJournal | None = None
    contents: Contents | None = None

    @property
    def records(self) -> list[Record]:
        return self.contents.good() if self.contents else []

    @property
    def events(self):
        return self.contents.events() if self.contents else []

    @property
    def verdicts(self) -> list:
        return self.contents.verdicts if self.contents else []

    @property
    def corrections(self) -> list:
        return self.contents.corrections if self.contents else []

    @property
    def notes(self) -> list:
        return self.contents.notes if self.contents else []

    @property
    def meta(self) -> dict:
        return self.contents.meta if self.contents else {}

    @property
    def last_t(self) -> float | None:
        return self.contents.last_t if self.contents else None

    def time_offset(self, now: float) -> float:
        """Add this to the daemon's monotonic clock so match time carries on
        from the last saved action: after a reboot the monotonic clock starts
        again near zero, and the turn clock must neither jump nor count the
        time the table was down."""
        return (self.last_t or 0.0) - now


CHOOSE = "give [storage] state_dir in the configuration (coindrel sim: --state-dir)"


class MatchStore:
    def __init__(self, state_dir: str | Path, *, keep_matches: int = 0, wall: Callable[[], float] = time.time,
                 datasync: Callable[[int], None] = os.fdatasync, choose: str = CHOOSE):
        self.dir = Path(state_dir)
        self.choose = choose  # how to give another state directory, for the messages
        self.current = self.dir / CURRENT
        self.history_dir = self.dir / HISTORY
        self.damaged_dir = self.dir / DAMAGED
        self.keep_matches = keep_matches
        self._wall = wall
        self._datasync = datasync
        self._lock_fd: int | None = None

    # -- the lock ----------------------------------------------------------------

    def open(self) -> "MatchStore":
        """Create the directories and take the lock: one daemon per directory."""
        for d, holds in ((self.dir, "the match in progress and the history"),
                         (self.history_dir, "the finished matches"), (self.damaged_dir, "copies of damaged records")):
            if (d.exists() or d.is_symlink()) and not d.is_dir():
                raise StoreError(f"{d} is {'a broken link' if not d.exists() else 'a file'}, not a directory; coindrel "
                                 f"keeps {holds} there: move it aside (it may hold something of yours) and start again")
        try:
            for d in (self.dir, self.history_dir, self.damaged_dir):
                if not d.is_dir():
                    d.mkdir(mode=0o750, parents=True, exist_ok=True)
                    fsync_dir(d.parent)  # a new directory is only durable once its parent is synced
            fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        except OSError as e:
            from ..limits import unwritable_advice, why_unwritable

            raise StoreError(f"cannot use the state directory {self.dir}: {why_unwritable(self.dir, e)}; "
                             f"{unwritable_advice(self.dir, e, self.choose)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            other = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise StoreError(f"another coindrel (pid {other or '?'}) is using {self.dir}; stop it first "
                                 "(sudo systemctl stop coindrel) or give this one its own [storage] state_dir") from None
            raise
        pid = f"{os.getpid()}\n".encode()
        try:  # who holds the lock, for the message above; the flock is the lock (a full disk may refuse this)
            os.ftruncate(fd, 0)
            os.pwrite(fd, pid, 0)
        except OSError as e:
            log.warning("cannot note this pid in %s: %s", self.dir / "lock", e.strerror)
        self._lock_fd = fd
        return self

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def __enter__(self) -> "MatchStore":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def _need_lock(self) -> None:
        if self._lock_fd is None:
            raise StoreError("open the match store first (MatchStore.open)")

    def _kw(self) -> dict[str, Any]:
        return {"wall": self._wall, "datasync": self._datasync}

    # -- recovery ------------------------------------------------------------------

    def recover(self) -> Recovery:
        self._need_lock()
        out = Recovery()
        self._remove_leftovers(out)
        from .diagnosing import check_timing_file

        out.messages += filter(None, [check_timing_file(self.dir, self.damaged_dir)])
        if not self.current.exists():
            return out
        scan = read_journal(self.current)
        contents = read_contents(scan)
        if contents.match is None:
            if scan.records:
                why = contents.problem
            elif scan.damage is not None and scan.damage.size:
                why = (f"it is not a coindrel journal, or is damaged throughout: none of its {scan.damage.size} "
                       f"bytes is a record ({scan.damage.reason})")
            else:
                why = "it is empty"
            self._set_aside(f"holds no match that can be resumed ({why})", out)
            return out
        if scan.damage:
            out.messages.append(cut_tail(self.current, scan.damage, self.damaged_dir, self._wall())[1])
        size = scan.good_size
        if contents.bad is not None:
            # Intact on disk but not a match this engine can continue (written
            # by another version, or by hand): keep it, resume before it.
            bad = contents.bad
            later = sum(1 for r in scan.records if r.n > bad.n)
            tail = Damage(bad.offset, size - bad.offset, bad.n, contents.problem or "", False, later)
            copy, _ = cut_tail(self.current, tail, self.damaged_dir, self._wall())
            cut = sum(1 for r in scan.records if r.n >= bad.n and r.kind == "act" and isinstance(r.data, dict)
                      and r.data.get("do") == "drop")
            drops = (f"; the match resumes without the {cut} drop{'s' if cut != 1 else ''} among them: check the "
                     "score with the players") if cut else ""
            out.messages.append(f"{self.current}: record {bad.n} does not replay ({contents.problem}); cut it and the "
                                f"{later} record(s) after it ({tail.size} bytes) off and kept a copy in {copy}{drops}")
            size = bad.offset
        header = self._number_rebuilt_header(contents)
        notes = self._keep_damaged(contents, out)
        size = _end_with_newline(self.current, size)
        good = contents.good()
        end = contents.end  # a note that the match was reopened after its end makes it in progress again
        if end is not None:
            self._to_history(self.current, contents.number, contents.match_id)
            out.messages.append(f"match #{contents.number} had ended ({end.get('result')}); moved it to the history")
            return out
        journal = MatchJournal.reopen(self.current, max(r.n for r in good) + 1, size, **self._kw())
        if notes or header:
            # so that the next start neither copies nor reports these again
            journal.note({k: v for k, v in (("damaged", notes), ("header", header)) if v})
        journal.number, journal.match_id, journal.started = contents.number or 0, contents.match_id, contents.started
        match = contents.match
        saved = contents.actions
        journal.acts = len(saved)
        if match.log[: len(saved)] == saved:
            journal.sync_match(match)  # actions the replay derived but a crash kept from the disk
        elif any(loss.hole.lost for loss in contents.losses):
            journal.acts = len(match.log)  # the replay re-derives what a damaged record held, at every read
        else:
            journal.acts = len(match.log)
            out.messages.append(f"{self.current}: the saved actions differ from their replay by this version of "
                                "the engine; resuming from the replay")
        out.match, out.journal, out.contents = match, journal, contents
        return out

    def _number_rebuilt_header(self, contents: Contents) -> dict:
        """A journal whose header was lost gets the next free match number
        (kept in a note, so it stays the same)."""
        if not contents.begin.get("rebuilt") or contents.number is not None:
            return {}
        number = self._next_number()
        first = next((r.w for r in contents.records if r.w is not None), None)
        header = {"number": number, "id": f"{number:04d}-{utc_stamp(first if first is not None else self._wall())}"}
        contents.begin.update(header)
        return header

    def _keep_damaged(self, contents: Contents, out: Recovery) -> list[dict]:
        """Copy each damaged record byte-exact to ``damaged/`` and say which
        record of which match it was and what it cost. Holes an earlier start
        already handled (its note says so) are left alone."""
        handled = set()
        for r in contents.records:
            if r.kind == "note" and isinstance(r.data, dict) and isinstance(r.data.get("damaged"), list):
                handled |= {d.get("offset") for d in r.data["damaged"] if isinstance(d, dict)}
        notes = []
        which = f"match #{contents.number}" + (f" ({contents.match_id})" if contents.match_id else "")
        for loss in contents.losses:
            h = loss.hole
            if h.offset in handled or (contents.bad is not None and h.offset >= contents.bad.offset):
                continue  # handled before, or cut off with the records that do not replay
            later = sum(1 for r in contents.records if r.offset > h.offset and not r.repaired)
            kept = ""
            if h.size:
                with open(self.current, "rb") as f:
                    f.seek(h.offset)
                    raw = f.read(h.size)
                name = contents.match_id or self.current.stem
                copy = _free_name(self.damaged_dir / f"{name}-record{h.first}-at{h.offset}.damaged")
                self.damaged_dir.mkdir(parents=True, exist_ok=True)
                write_durably(copy, raw)
                kept = f"; kept a byte-exact copy in {copy}"
            one = h.first == h.last or h.stray
            damaged = ("is" if one else "are") + (" damaged" if h.size else " missing")
            damaged = "is no record" if h.stray else "are out of order" if h.moved else damaged
            after = "" if h.moved else f"; the {later} record{'s' if later != 1 else ''} after it still count"
            out.messages.append(f"{self.current}: {h.where()} of {which} {damaged} ({h.reason}): {loss.said}"
                                f"{after}{kept}")
            notes.append(loss.to_json() | {"copy": kept[len('; kept a byte-exact copy in '):] or None})
        return notes

    def _remove_leftovers(self, out: Recovery) -> None:
        for p in self.dir.glob("*.tmp"):
            # A journal that was being created: never confirmed, never used.
            p.unlink(missing_ok=True)
        for p in self.damaged_dir.glob("*.tmp"):
            p.unlink(missing_ok=True)

    def _set_aside(self, why: str, out: Recovery) -> None:
        dst = self.damaged_dir / f"{self.current.stem}-{utc_stamp(self._wall())}{SUFFIX}"
        dst = _free_name(dst)
        move_durably(self.current, dst)
        out.messages.append(f"{self.current} {why}; moved it, every byte kept, to {dst} and starting afresh "
                            "(if it was a match of yours, restore the journal from a backup while coindrel is stopped)")

    # -- matches -------------------------------------------------------------------

    def begin(self, match: Match, meta: dict | None = None) -> MatchJournal:
        """Start journalling a new match (its log so far included)."""
        self._need_lock()
        if self.current.exists():
            raise StoreError(f"a match is already in progress in {self.current}; finish or abandon it first")
        number = self._next_number()
        wall = self._wall()
        match_id = f"{number:04d}-{utc_stamp(wall)}"
        # The setup is kept in the header too: each rebuilds the other if a record is damaged (salvage).
        begin = {"number": number, "id": match_id, "app": f"coindrel {__version__}", "meta": meta or {},
                 "setup": match.log[0]["setup"]}
        journal = MatchJournal.create(self.current, begin, [("act", a) for a in match.log], at=wall, **self._kw())
        journal.number, journal.match_id, journal.started, journal.acts = number, match_id, wall, len(match.log)
        return journal

    def finish(self, journal: MatchJournal, match: Match) -> MatchSummary:
        """The match is over: record its summary and move it to the history."""
        if not match.over:
            raise StoreError("the match is not over yet; abandon it to stop early")
        return self._end(journal, match, "finished", "")

    def abandon(self, journal: MatchJournal, match: Match, why: str = "") -> MatchSummary:
        """Stop a match early; it is kept in the history as abandoned."""
        return self._end(journal, match, "abandoned", why)

    def _end(self, journal: MatchJournal, match: Match, result: str, why: str) -> MatchSummary:
        self._need_lock()
        journal.sync_match(match)
        summary = match_summary(match, result=result, number=journal.number, match_id=journal.match_id,
                                started=journal.started, ended=self._wall(), why=why)
        journal.append("end", summary)
        journal.close()
        dst = self._to_history(journal.path, journal.number, journal.match_id)
        self.prune()
        return MatchSummary.from_dict(summary, dst)

    def reopen(self, summary: MatchSummary) -> MatchJournal:
        """A match just filed as finished takes more: its last drop is undone
        or corrected. Its journal moves back from the history; the note that
        says it was reopened is held (``MatchJournal.hold``) and written in one
        write with the undo or the correction it is for. A kill between the
        move and that write leaves the match as it was filed (``recover``
        moves it back, and the question that led here is asked again,
        ``questions``); one after it resumes the match in progress with the
        change. A later end files it again."""
        self._need_lock()
        path = summary.path
        if path is None or not path.is_file():
            raise StoreError(f"match #{summary.number} is no longer in the history; it stays as it was filed")
        if self.current.exists():
            raise StoreError(f"a match is already in progress in {self.current}; match #{summary.number} stays filed")
        move_durably(path, self.current)
        scan = read_journal(self.current)
        good = scan.records
        journal = MatchJournal.reopen(self.current, max(r.n for r in good) + 1, scan.good_size, **self._kw())
        journal.number, journal.match_id, journal.started = summary.number or 0, summary.id, summary.started
        journal.acts = sum(1 for r in good if r.kind == "act")
        journal.hold("note", {REOPENED: "its last drop was undone or corrected after it had ended"})
        return journal

    def note_filed(self, summary: MatchSummary, data: dict) -> None:
        """Append one note to a filed match's journal (the players' answer to
        its last drop's question, given after it was filed)."""
        self._need_lock()
        path = summary.path
        if path is None or not path.is_file():
            raise StoreError(f"match #{summary.number} is no longer in the history")
        scan = read_journal(path)
        if scan.damage is not None or not scan.records:
            raise StoreError(f"{path} is damaged; the answer is not added to it")
        with MatchJournal.reopen(path, max(r.n for r in scan.records) + 1, scan.good_size, **self._kw()) as j:
            j.note(data)

    def _to_history(self, path: Path, number: int | None, match_id: str) -> Path:
        name = match_id if match_id and NUMBER.match(match_id) else f"{number or 0:04d}-{utc_stamp(self._wall())}"
        dst = _free_name(self.history_dir / f"{name}{SUFFIX}")
        move_durably(path, dst)
        return dst

    def _next_number(self) -> int:
        numbers = [0]
        for p in history_files(self.dir):
            m = NUMBER.match(p.name)
            if m:
                numbers.append(int(m.group(1)))
        return max(numbers) + 1

    def prune(self) -> list[Path]:
        """Keep only the newest ``keep_matches`` finished matches (0: keep all)."""
        if self.keep_matches <= 0:
            return []
        files = history_files(self.dir)
        gone = files[: max(0, len(files) - self.keep_matches)]
        for p in gone:
            p.unlink(missing_ok=True)
        if gone:
            fsync_dir(self.history_dir)
        return gone


def _end_with_newline(path: Path, size: int) -> int:
    """The scanner accepts a file that does not end in a newline only when
    the last record's newline is one flipped bit (repaired, and its damaged
    copy kept): put the newline back before anything is appended after it."""
    with open(path, "rb+") as f:
        f.seek(max(0, size - 1))
        if size and f.read(1) != b"\n":
            f.seek(size - 1)
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
    return size


def _free_name(path: Path) -> Path:
    k, candidate = 1, path
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{k}{path.suffix}")
        k += 1
    return candidate


def open_store(state_dir: str | Path, **kw) -> MatchStore:
    return MatchStore(state_dir, **kw).open()


__all__ = ["MatchJournal", "MatchStore", "Recovery", "StoreError", "open_store"]
