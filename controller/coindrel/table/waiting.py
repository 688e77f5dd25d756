"""What waits at the table outside any match, kept across a restart: the
club's match requests not yet answered (``clubrequest.WAITING`` at most)
and the ids of the last requests taken, so a request the broker delivers
again after a restart is not shown twice.

``waiting.journal`` in the state directory, in the match journal's record
format (``records``: a CRC per line, fdatasync before a change counts):
each change appends the whole waiting state as one ``note`` record, and
the last intact one is what a restart finds. A damaged record costs that
change only (the one before it is read instead), and the damaged file is
kept byte-exact in ``damaged/``. Every ``COMPACT`` records the file is
written anew (atomically) with the state alone.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from .clubrequest import WAITING, MatchRequest, RequestError, match_request
from .journal import FULL, DiskFull, Journal, JournalError, keep_copy, read_journal, utc_stamp, write_durably
from .records import FORMAT, encode

log = logging.getLogger("coindrel.table")
FILE = "waiting.journal"
COMPACT = 64  # records before the file is written anew with the state alone
SEEN_KEPT = 32


def request_json(req: MatchRequest) -> dict:
    clock = {"off": None, "turbo": 5, "30": 30, "60": 60, "120": 120}[req.clock]
    v = req.variants
    return {"id": req.id, "players": list(req.players), "clock": clock,
            "variants": {"holes": v.holes, "halved": v.halved, "shuffled": v.shuffled}}


class WaitingJournal:
    def __init__(self, state_dir: str | Path, *, datasync=None, wall=None):
        self.dir = Path(state_dir)
        self.path = self.dir / FILE
        self._kw = {k: v for k, v in (("datasync", datasync), ("wall", wall)) if v is not None}
        self._journal: Journal | None = None
        self._last: dict | None = None

    # -- reading ---------------------------------------------------------------------------

    def load(self) -> tuple[list[MatchRequest], tuple[str, ...], list[str]]:
        """(requests waiting, ids seen, messages for the log) as the last
        intact record says; nothing when there is no file."""
        if not self.path.exists() and not self.path.is_symlink():
            return [], (), []
        messages: list[str] = []
        try:
            found = read_journal(self.path)
        except JournalError as e:
            return [], (), [f"{e}; the club's waiting requests are not restored"]
        state = None
        for r in found.records:
            if r.kind == "note" and isinstance(r.data, dict) and "club" in r.data:
                state = r.data
        if found.damage is not None or found.holes:
            what = found.damage.describe() if found.damage is not None else \
                "; ".join(f"{h.where()} is damaged ({h.reason})" for h in found.holes)
            copy = self._keep_damaged()
            messages.append(f"{self.path}: {what}; the waiting club requests are read from the last intact record"
                            + (f" (the file is kept byte-exact as {copy})" if copy else ""))
            self._journal = None  # written anew on the next change
        requests, seen = self._state(state, messages)
        self._last = state
        return requests, seen, messages

    def _state(self, state, messages: list[str]) -> tuple[list[MatchRequest], tuple[str, ...]]:
        if state is None:
            return [], ()
        out = []
        for obj in state.get("club") or []:
            try:
                out.append(match_request(obj))
            except RequestError as e:
                messages.append(f"{self.path}: a saved club request is not one this table plays ({e}); dropped")
        seen = tuple(str(s) for s in (state.get("seen") or []) if isinstance(s, str))[-SEEN_KEPT:]
        return out[:WAITING], seen

    def _keep_damaged(self) -> Path | None:
        try:
            data = self.path.read_bytes()
            return keep_copy(self.dir / "damaged", f"waiting-{utc_stamp(time.time())}", ".journal", data)
        except OSError as e:
            log.warning("could not keep a copy of the damaged %s: %s", self.path, e.strerror)
            return None

    # -- writing ---------------------------------------------------------------------------

    def save(self, requests, seen) -> None:
        """Make the waiting state durable (nothing when it did not change).
        Raises JournalError when it cannot be saved."""
        state = {"club": [request_json(r) for r in requests], "seen": list(seen)[-SEEN_KEPT:]}
        if state == self._last:
            return
        j = self._journal
        if j is None or j.closed or j.next_n > COMPACT:
            self._rewrite(state)
        else:
            j.append("note", state)
        self._last = state

    def _rewrite(self, state: dict) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        lines = encode(1, "begin", {"format": FORMAT, "waiting": True}) + encode(2, "note", state)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            write_durably(self.path, lines)
            self._journal = Journal.reopen(self.path, 3, len(lines), **self._kw)
        except OSError as e:
            if e.errno in FULL:
                raise DiskFull(f"cannot save the waiting club requests to {self.path} ({e.strerror})") from None
            raise JournalError(f"cannot save the waiting club requests to {self.path}: {e.strerror}") from None

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None


__all__ = ["FILE", "WaitingJournal", "request_json"]
