"""board3: a third board model, written from sensing.md, rules.md and the
hub's documents alone (not from coindrel.virtual nor board2), as a held-out
test of the reconciler: its own timing, sensor quirks, players and fault
mechanics. ``Session(seed, drops, faults=[(name, where, from_drop, rate,
opts)]).run()`` gives (observation log lines, ground truth lines)."""

from .geometry import Board
from .session import Session

__all__ = ["Board", "Session"]
