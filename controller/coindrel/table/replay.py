"""What a journal holds, and the match it replays to (read-only).

The store uses this to recover (and then cuts what does not replay); the
history reads finished and running matches with it without changing a byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import EngineError, Match
from ..events import EventError, SourceEvent, event_from_json
from .records import Record, Scan
from .salvage import Loss, fill, mend_replay

REOPENED = "reopened"  # a note's key: the match was reopened after its end record (store.reopen)


@dataclass
class Contents:
    records: list[Record]  # every trusted record, in order
    begin: dict = field(default_factory=dict)
    end: dict | None = None  # the summary of a finished or abandoned match
    match: Match | None = None  # the replay of the actions up to ``replayed``
    replayed: int = 0  # act records that replayed
    acts: list[Record] = field(default_factory=list)
    problem: str | None = None  # why replay stopped early
    bad: Record | None = None  # the first record that did not replay
    losses: list[Loss] = field(default_factory=list)  # damaged records in the middle, and what they cost

    @property
    def number(self) -> int | None:
        n = self.begin.get("number")
        return n if isinstance(n, int) else None

    @property
    def match_id(self) -> str:
        return str(self.begin.get("id", ""))

    @property
    def started(self) -> float | None:
        return self.records[0].w if self.records else None

    @property
    def meta(self) -> dict:
        m = self.begin.get("meta")
        return m if isinstance(m, dict) else {}

    def good(self) -> list[Record]:
        """The records the match is rebuilt from: everything before ``bad``."""
        if self.bad is None:
            return self.records
        return [r for r in self.records if r.n < self.bad.n]

    def payloads(self, kind: str) -> list:
        return [r.data for r in self.good() if r.kind == kind]

    @property
    def actions(self) -> list[dict]:
        return [r.data for r in self.acts[: self.replayed]]

    @property
    def event_dicts(self) -> list[dict]:
        return self.payloads("ev")

    def events(self) -> list[SourceEvent]:
        """Board events as objects; a journal only ever holds valid ones."""
        out = []
        for d in self.event_dicts:
            try:
                out.append(event_from_json(d))
            except EventError:
                continue
        return out

    @property
    def verdicts(self) -> list:
        """One per drop: a verdict the table reconciled again after a restart
        (saved, then killed before it scored) is named superseded by a note."""
        superseded = set()
        for r in self.good():
            if r.kind == "note" and isinstance(r.data, dict) and isinstance(r.data.get("superseded"), list):
                superseded.update(n for n in r.data["superseded"] if type(n) is int)
        return [r.data for r in self.good() if r.kind == "verdict" and r.n not in superseded]

    @property
    def corrections(self) -> list:
        return self.payloads("correction")

    @property
    def notes(self) -> list:
        return self.payloads("note")

    @property
    def last_t(self) -> float | None:
        """The latest match time of any action (seconds on the daemon's clock)."""
        ts = [a.get("t") for a in self.actions]
        ts = [t for t in ts if isinstance(t, (int, float)) and not isinstance(t, bool)]
        return max(ts) if ts else None


def _try(actions: list[dict]) -> tuple[Match | None, str]:
    try:
        return Match.replay(actions), ""
    except (EngineError, KeyError, TypeError, ValueError, AttributeError) as e:
        text = str(e) if isinstance(e, EngineError) else f"{type(e).__name__}: {e}"
        return None, text


def read_contents(scan: Scan) -> Contents:
    """Sort a scan's records and replay the match as far as it goes."""
    records, losses = fill(scan.records, scan.holes)
    c = Contents(records=records, losses=losses)
    if not c.records:
        if scan.damage is not None and scan.damage.size:
            # bytes, but not one record: another program's file, or damaged throughout (never "empty")
            c.problem = (f"not a coindrel journal, or damaged throughout: none of its {scan.damage.size} bytes "
                         f"is a record ({scan.damage.reason})")
        else:
            c.problem = "the journal is empty"
        return c
    c.begin = dict(c.records[0].data)
    if c.begin.get("rebuilt"):
        # the store numbered the match when it found the header lost, in a note
        header = next((r.data["header"] for r in c.records if r.kind == "note" and isinstance(r.data, dict)
                       and isinstance(r.data.get("header"), dict)), None)
        if header:
            c.begin.update(header)
    for r in c.records[1:]:
        if r.kind == "act":
            c.acts.append(r)
        elif r.kind == "end" and c.end is None and isinstance(r.data, dict):
            c.end = r.data
        elif r.kind == "note" and isinstance(r.data, dict) and r.data.get(REOPENED) and c.end is not None:
            c.end = None  # its last drop was undone or corrected after it ended: in progress again
    if (not c.acts or c.acts[0].data.get("do") != "setup") and isinstance(c.begin.get("setup"), dict):
        lost = next((x for x in c.losses if x.hole.lost and x.hole.first > 1), None)
        if lost is not None:  # the setup action was damaged: the header holds it too
            setup = Record(lost.hole.first, "act", {"do": "setup", "setup": c.begin["setup"]}, None, lost.hole.offset,
                           0, "rebuilt from the journal's header")
            c.acts.insert(0, setup)
            c.records.insert(next((i for i, r in enumerate(c.records) if r.offset >= setup.offset), len(c.records)),
                             setup)
            c.losses = [Loss(x.hole, "the match setup, rebuilt from the journal's header", (setup,)) if x is lost
                        else x for x in c.losses]
    actions = []
    for r in c.acts:
        if not isinstance(r.data, dict) or not isinstance(r.data.get("do"), str):
            c.bad, c.problem = r, "an action record is not an action"
            break
        actions.append(r.data)
    if not actions:
        c.problem = c.problem or "the journal has no match setup"
        return c
    match, why = _try(actions)
    if match is None and any(loss.hole.lost for loss in c.losses):
        mended, said = mend_replay(c.acts, [loss.hole for loss in c.losses], _try)
        if said:
            rebuilt = next(r for r in mended if r.repaired and r not in c.acts)
            c.acts, actions = mended, [r.data for r in mended]
            c.records.insert(next((i for i, r in enumerate(c.records) if r.offset >= rebuilt.offset), len(c.records)),
                             rebuilt)
            c.losses = [Loss(x.hole, said + " (the record itself is lost)", (rebuilt,)) if x.hole.first == rebuilt.n
                        else x for x in c.losses]
            match, why = _try(actions)
    if match is not None:
        c.match, c.replayed = match, len(actions)
        return c
    # The longest prefix that replays (a prefix of a valid log is valid).
    first, _ = _try(actions[:1])
    if first is None:
        c.bad = c.acts[0]
        c.problem = f"the match setup does not load: {why}"
        return c
    lo, hi = 1, len(actions) - 1  # actions[:lo] replays, actions[:hi + 1] does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _try(actions[:mid])[0] is not None:
            lo = mid
        else:
            hi = mid - 1
    c.match, _ = _try(actions[:lo])
    c.replayed = lo
    c.bad = c.acts[lo]
    c.problem = f"the match does not replay from action {lo + 1}: {_try(actions[: lo + 1])[1]}"
    return c
