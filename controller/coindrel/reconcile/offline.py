"""Reconciling a recorded observation log with the same reconciler the daemon
runs live: events are fed in time order and the clock is the events' own."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from ..engine import EngineError, geometry_by_name
from ..obslog import ObservationLog, read_log
from .observed import Sensors
from .reconciler import Reconciler
from .report import DropReport
from .timing import Timing


def load(path: str | Path | Iterable[str]) -> ObservationLog:
    """Read a log, turning an unreadable file into a message that says what to do."""
    if isinstance(path, (str, Path)):
        p = Path(path)
        if not p.exists():
            raise EngineError(f"{p}: no such observation log; give the path of a log written by the controller or coindrel virtual-board --log")
        if p.is_dir():
            raise EngineError(f"{p} is a folder; give the observation log file inside it")
        if not p.is_file():  # /dev/zero or a named pipe would be read for ever
            raise EngineError(f"{p}: not a regular file (a device or a pipe); give an observation log file, "
                              "or - to read one from standard input")
        try:
            return read_log(p)
        except UnicodeDecodeError:
            raise EngineError(f"{p}: not a text file; an observation log is JSON Lines") from None
        except OSError as e:
            raise EngineError(f"{p}: cannot read it ({e.strerror})") from None
    return read_log(path)


def reconciler_for(log: ObservationLog, sensors: Sensors | None = None, timing: Timing | None = None) -> Reconciler:
    """A reconciler set up as the log's header says (board, variants, start
    state; ``sensors`` when the header names a build with fewer sensors)."""
    header = log.header
    geometry = geometry_by_name(header.board)
    if sensors is None:
        sensors = Sensors.from_dict(header.extra.get("sensors")) if isinstance(header.extra.get("sensors"), dict) else Sensors()
    return Reconciler(geometry, header.board_state(), header.variants, sensors=sensors, timing=timing)


def replay(rec: Reconciler, events) -> Iterator[DropReport]:
    """Feed ``events`` (time order) and yield every report as it finishes,
    and every revision record when it is written."""
    for ev in events:
        rec.feed(ev)
        yield from rec.poll(ev.t)
        yield from rec.revisions()
    yield from rec.flush()
    yield from rec.revisions()


def reconcile_log(log: ObservationLog, sensors: Sensors | None = None) -> tuple[Reconciler, Iterator[DropReport]]:
    rec = reconciler_for(log, sensors)
    return rec, replay(rec, log.events)


MATCH_SLACK = 0.01  # seconds: a verdict's time is journalled to 1e-4 s; the same drop offline starts within this


class MatchNumbers:
    """The match's number of each drop the reconciler numbers, from a history
    export's drop notes (``{"note": "drop", "drop": N|null, "entry", "t"}``):
    null for a coin that was no drop of the match (a second coin in its turn).
    Told one report at a time (``coindrel reconcile`` writes as it goes)."""

    def __init__(self, notes):
        self.marks = [n for n in notes if n.get("note") == "drop" and isinstance(n.get("t"), (int, float))
                      and (n.get("drop") is None or type(n.get("drop")) is int)]
        self.used: set[int] = set()
        self.out: dict[int, int | None] = {}

    def __bool__(self) -> bool:
        return bool(self.marks)  # not a match's export otherwise

    def tell(self, r) -> None:
        if r.drop is None or getattr(r, "revises", None) is not None:
            return
        entry = None if r.entry is None else r.entry + 1
        best = None
        for i, n in enumerate(self.marks):
            if i in self.used or abs(n["t"] - r.t) > MATCH_SLACK or (n.get("entry") is not None and n.get("entry") != entry):
                continue
            if best is None or abs(n["t"] - r.t) < abs(self.marks[best]["t"] - r.t):
                best = i
        if best is not None:
            self.used.add(best)
            self.out[r.drop] = self.marks[best]["drop"]

    def line(self, r, line: dict) -> dict:
        """``line`` (the report's JSON) with the match's numbers beside the
        reconciler's: ``match_drop`` (and ``match_revises`` on a revision)."""
        self.tell(r)
        if r.drop is not None and r.drop in self.out:
            line["match_drop"] = self.out[r.drop]
        revised = getattr(r, "revises", None)
        if revised is not None and revised in self.out:
            line["match_revises"] = self.out[revised]
        return line


def match_numbers(reports, notes) -> dict[int, int | None] | None:
    """The match's number of each drop the reconciler numbered (``MatchNumbers``);
    None when the log has no drop notes (not a match's export)."""
    numbers = MatchNumbers(notes)
    if not numbers:
        return None
    for r in reports:
        numbers.tell(r)
    return numbers.out
