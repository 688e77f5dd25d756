"""The ground-truth log: what really happened on the virtual board.

Tests and benchmarks score the controller against it, so it says plainly
what the sensors may not: every injected fault, and every drop's true
physical outcome. JSON Lines, numbers 1-based like sensing.md's events::

    {"kind": "header", "log": "ground-truth", "format": 1, "board": "standard",
     "variants": {...}, "seed": 7, "state": [5 rows], "timing": {...}}
    {"kind": "fault", "id": 1, "t": 2.0, "fault": "switch_stuck", "where": "R3S2",
     "persistent": true, "until": 9.0}
    {"kind": "fault_end", "id": 1, "t": 9.0, "why": "until"}
    {"kind": "drop", "drop": 3, "entry": 4, "t": 2.5, "t_end": 3.1, "player": 1,
     "before": "LLLL.../...", "after": "...", "exits": [9, 10], "flips": {"R1S4": 1},
     "swallowed": 0, "jammed": [], "rested": ["R2S3"], "missed": [], "faults": [1],
     "overlap": [], "engine": {"exits": [9, 10], "flips": {"R1S4": 1}}, "as_engine": true}
    {"kind": "stray", "cause": "moved_by_hand", "fault": 4, "t": ..., "exits": [...], ...}
    {"kind": "end", "t": 60.0, "board": "...", "jammed_in_board": 0}

- ``fault`` lines come when a fault takes effect (an action that had to wait
  for a moving rocker is logged when it happened); ``applied: false`` with a
  ``why`` when it could not happen (no coin to remove). One-off faults get a
  ``fault_end`` with ``why: "acted"`` and the ``drop`` they acted on.
- A ``drop`` line is written when the last coin of that drop has come to rest
  (so lines are ordered by when drops finished). ``exits``, ``flips``,
  ``swallowed``, ``jammed``, ``rested`` are the true physical outcome of the
  coins that drop put in motion; ``faults`` the ids of faults that acted on it
  (including sensors that misreported it); ``engine`` is the engine's healthy
  prediction from the true board before the drop, and ``as_engine`` whether
  the physics matched it (null when other drops were in flight at the same
  time, ``overlap``, since then only the combined outcome is defined).
- A ``stray`` line is a cascade no drop caused: coins tipped out by a hand,
  jammed coins released.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from ..nesting import loads_json


@dataclass(eq=False)
class Cascade:
    """Coins set moving by one cause (a drop, a hand, a released jam)."""

    id: int
    kind: str  # "drop" or "stray"
    t: float
    entry: int | None = None  # 0-based
    player: int | None = None
    cause: str = ""
    fault: int | None = None
    before: str = ""
    in_flight: int = 0
    exits: list = field(default_factory=list)
    flips: dict = field(default_factory=dict)  # switch label -> count
    swallowed: int = 0
    jammed: list = field(default_factory=list)
    rested: list = field(default_factory=list)
    missed: list = field(default_factory=list)  # beams that did not see a coin of it
    faults: set = field(default_factory=set)
    overlap: set = field(default_factory=set)
    engine: dict | None = None

    def to_json(self, t_end: float, after: str) -> dict:
        exits = sorted(x + 1 for x in self.exits)
        flips = dict(sorted(self.flips.items()))
        if self.kind == "drop":
            d = {"kind": "drop", "drop": self.id, "entry": self.entry + 1, "t": round(self.t, 6), "t_end": round(t_end, 6)}
            if self.player is not None:
                d["player"] = self.player
            d["before"] = self.before
        else:
            d = {"kind": "stray", "cause": self.cause, "t": round(self.t, 6), "t_end": round(t_end, 6)}
            if self.fault is not None:
                d["fault"] = self.fault
        d.update(
            after=after,
            exits=exits,
            flips=flips,
            swallowed=self.swallowed,
            jammed=list(self.jammed),
            rested=list(self.rested),
            missed=list(self.missed),
            faults=sorted(self.faults),
        )
        if self.kind == "drop":
            d["overlap"] = sorted(self.overlap)
            if self.engine is not None:
                d["engine"] = self.engine
                d["as_engine"] = None if self.overlap else (exits == self.engine["exits"] and flips == self.engine["flips"])
        return d


class TruthLog:
    """Writes ground-truth lines to a file or a stream; keeps them in ``lines``
    too when there is no file (or ``keep``), so a soak run's memory stays flat."""

    def __init__(self, target: str | Path | IO[str] | None = None, keep: bool | None = None):
        self.lines: list[dict] = []
        self.keep = target is None if keep is None else keep
        self.counts: dict[str, int] = {}
        self.unlike_engine = 0  # drops whose physics differed from the engine's healthy prediction
        self._own = isinstance(target, (str, Path))
        try:
            # a line at a time: what a stopped or killed board leaves is every drop so far
            self._f = open(target, "w", encoding="utf-8", buffering=1) if self._own else target
        except OSError as e:
            from ..engine import EngineError

            raise EngineError(f"--truth {target}: cannot write ({e.strerror})") from None

    def write(self, d: dict) -> None:
        kind = d.get("kind")
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if d.get("as_engine") is False:
            self.unlike_engine += 1
        if self.keep:
            self.lines.append(d)
        if self._f is not None:
            self._f.write(json.dumps(d, separators=(", ", ": ")) + "\n")

    def flush(self) -> None:
        if self._f is not None:
            self._f.flush()

    def close(self) -> None:
        if self._f is not None:
            self._f.flush()
            if self._own:
                self._f.close()
        self._f = None

    def of_kind(self, kind: str) -> list[dict]:
        return [d for d in self.lines if d.get("kind") == kind]


def read_truth(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [loads_json(line) for line in f if line.strip()]
