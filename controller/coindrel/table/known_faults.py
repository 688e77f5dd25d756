"""The board's persistent faults, as the reconciler knows them, kept across
a restart: ``board-faults.journal`` in the state directory, in the match
journal's record format (a CRC per line, fdatasync before it counts).
Every change appends the whole knowledge (``reconcile.knowledge``) as one
``note`` record, with the match's drop numbers of the reconciler's drops,
so the faults are "seen since drop N" of the same match after a restart
as before it; the last intact record is what a restart finds. A damaged
or unreadable file is named in the log, kept byte-exact in ``damaged/``,
and the table goes on learning the faults again.

Why a file beside the match journal rather than notes in it: the faults
belong to the board and outlive the match (``earlier_match``), as the
board's timing does (``board-timing.json``).
"""

from __future__ import annotations

import logging
import time
from functools import partial
from pathlib import Path

from ..reconcile import knowledge
from .journal import Journal, JournalError, keep_copy, read_journal, utc_stamp, write_durably
from .records import FORMAT, encode

log = logging.getLogger("coindrel.table")
FILE = "board-faults.journal"
COMPACT = 64  # records before the file is written anew with the knowledge alone


class FaultsFile:
    def __init__(self, state_dir: str | Path, *, datasync=None):
        self.dir = Path(state_dir)
        self.path = self.dir / FILE
        self._kw = {"datasync": datasync} if datasync is not None else {}
        # where the next record goes (None: the file is written anew); no file is held open between
        # saves: a table is built again and again (a restart, a test) and never leaks a descriptor
        self._end: tuple[int, int] | None = None
        self.last: dict | None = None  # what the file holds now (as written or read)

    def load(self) -> tuple[dict | None, list[str]]:
        """(the last intact record's data, messages for the log)."""
        if not self.path.exists() and not self.path.is_symlink():
            return None, []
        try:
            found = read_journal(self.path)
        except JournalError as e:
            return None, [f"{e}; the board's faults are learned again"]
        state = None
        for r in found.records:
            if r.kind == "note" and isinstance(r.data, dict) and "faults" in r.data:
                state = r.data
        messages = []
        if found.damage is not None or found.holes:
            what = found.damage.describe() if found.damage is not None else \
                "; ".join(f"{h.where()} is damaged ({h.reason})" for h in found.holes)
            copy = self.keep_damaged()
            messages.append(f"{self.path}: {what}; the board's faults are read from the last intact record"
                            + (f" (the file is kept byte-exact as {copy})" if copy else ""))
        self.last = state
        return state, messages

    def keep_damaged(self) -> Path | None:
        self._end = None  # written anew on the next save
        try:
            return keep_copy(self.dir / "damaged", f"board-faults-{utc_stamp(time.time())}", ".journal",
                             self.path.read_bytes())
        except OSError as e:
            log.warning("could not keep a copy of the damaged %s: %s", self.path, e.strerror)
            return None

    def save(self, state: dict) -> None:
        """Make ``state`` durable (nothing when it did not change). Raises JournalError."""
        if state == self.last:
            return
        if self._end is None or self._end[0] > COMPACT:
            self._rewrite(state)
        else:
            n, size = self._end
            self._end = None  # until the record is on disk: after a failed write the file is written anew
            j = Journal.reopen(self.path, n, size, **self._kw)
            try:
                j.append("note", state)
                self._end = (j.next_n, j.size)
            finally:
                j.close()
        self.last = state

    def _rewrite(self, state: dict) -> None:
        self._end = None
        lines = encode(1, "begin", {"format": FORMAT, "board_faults": True}) + encode(2, "note", state)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            write_durably(self.path, lines)
        except OSError as e:
            raise JournalError(f"cannot save the board's faults to {self.path}: {e.strerror}") from None
        self._end = (3, len(lines))


class KnownFaultsMixin:
    """Part of ``daemon.Table``."""

    _faults_file: FaultsFile | None = None
    _faults_read = False  # the file was read (once a process: later, the reconciler holds what it said)
    _faults_saved: dict | None = None

    def _known_faults_file(self) -> FaultsFile | None:
        if self._faults_file is None and getattr(self.store, "dir", None) is not None:
            self._faults_file = FaultsFile(self.store.dir, datasync=getattr(self.store, "_datasync", None))
        return self._faults_file

    def saved_faults(self) -> dict | None:
        """What the file held when this process started (read once)."""
        f = self._known_faults_file()
        if f is None:
            return None
        if not self._faults_read:
            self._faults_read = True
            self._faults_saved, messages = f.load()
            for m in messages:
                log.warning("%s", m)
        return self._faults_saved

    def give_known_faults(self, rec, codes=None) -> bool:
        """The saved knowledge into ``rec`` (a reconciler this process built
        with none); False when there is none or it does not read (named in
        the log, the file kept in ``damaged/``)."""
        saved = self.saved_faults()
        if saved is None:
            return False
        try:
            knowledge.load(rec, saved.get("faults"), codes)
        except ValueError as e:
            f = self._faults_file
            copy = f.keep_damaged()
            log.warning("%s: %s; the board's faults are learned again%s", f.path, e,
                        f" (the file is kept as {copy})" if copy else "")
            self._faults_saved = f.last = None
            return False
        return True

    def resume_known_faults(self) -> None:
        """A match resumed after a restart: the reconciler's faults as they
        were (their worlds' weights too, so the confidence is the same), and
        the match's numbers of its drops when the knowledge is of this match."""
        saved = self.saved_faults()
        if self.reconciler is None or saved is None or self.flow.match is None:
            return
        if not self.give_known_faults(self.reconciler, self.flow.match.board.codes):
            return
        if self.journal is not None and saved.get("match") == self.journal.match_id:
            try:
                numbers = {int(k): int(v) for k, v in saved.get("numbers") or []}
                first = int(saved.get("first") or 0)
            except (TypeError, ValueError):
                return  # the faults stand; their drops read as an earlier match's
            self.drop_numbers, self.numbers_for, self.match_first_drop = numbers, self.flow.match, first
        self._faults_file.last = saved  # nothing changed yet: no write

    def lying_halls(self) -> frozenset:
        """The switches whose hall the board's persistent faults hold lying
        (likelier than not): "Board is right" keeps their believed side."""
        from ..engine import catalog

        out = set()
        for f in self.persistent_faults():
            if f["fault"] == catalog.HALL_FAULT and f["confidence"] > 0.5 and f["where"] in self.geometry.labels:
                out.add(self.geometry.labels.index(f["where"]))
        return frozenset(out)

    def save_known_faults(self) -> None:
        """Save the reconciler's knowledge once it changed (after drops, and
        after the match set the board: an answer, an undo, a new match)."""
        f = self._known_faults_file()
        if f is None or self.reconciler is None:
            return
        m = self.flow.match
        numbered = self.journal is not None and m is not None and self.numbers_for is m
        frame = {"match": self.journal.match_id if numbered else None,
                 "numbers": sorted([k, v] for k, v in self.drop_numbers.items()) if numbered else [],
                 "first": self.match_first_drop if numbered else 0}
        if self._diag is None:
            _write(f, frame, knowledge.dump(self.reconciler))
        else:
            self._diag.call(knowledge.dump).add_done_callback(partial(_written, f, frame))


def _write(f: FaultsFile, frame: dict, dumped: dict) -> None:
    try:
        f.save({**frame, "faults": dumped})
    except JournalError as e:
        log.warning("%s; the board's faults are kept in memory only", e)


def _written(f: FaultsFile, frame: dict, done) -> None:
    if done.exception() is None:
        _write(f, frame, done.result())


__all__ = ["FILE", "FaultsFile", "KnownFaultsMixin"]
