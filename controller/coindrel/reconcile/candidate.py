"""A diagnosis hypothesis's parts: a *move* (one supposed change to a world)
and a *candidate* (a world, its moves, the cascade they give and the sensor
faults that cascade needs), with what each candidate uses to account for
the drop."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import Jam, PadNotHolding, SwitchStuck
from ..engine.core import COIN, HOLE, PAD_R


@dataclass(frozen=True, eq=False)
class Move:
    kind: str  # stuck slip chute add remove pad fix entry entry+rest unchatter hand hand_after hand_at (stray: cleared)
    s: int = -1  # switch (or entry for entry moves)
    side: int = -1
    fault: object = None  # what a person is told (None: the derivation names it)
    cost: float = 0.0

    # A move is its kind, place and kind of fault (the fault's fields and the
    # cost follow from them); hashing only those keeps the search's
    # bookkeeping off the fault objects.
    def __eq__(self, other):
        if other.__class__ is not Move:
            return NotImplemented
        return self.kind == other.kind and self.s == other.s and self.side == other.side \
            and self.fault.__class__ is other.fault.__class__

    def __hash__(self):
        return hash((self.kind, self.s, self.side, self.fault.__class__))


@dataclass
class Candidate:
    world: object
    moves: tuple
    entries: tuple  # true entries, in drop order
    trace: object
    derivation: object
    cost: float  # log: moves + derived sensor faults
    hand: dict = field(default_factory=dict)  # stray groups: switch -> hand flips
    codes0: bytes = b""  # the state the cascade started from (moves applied)
    stuck: frozenset = frozenset()
    slips: frozenset = frozenset()
    jams: frozenset = frozenset()
    removed: frozenset = frozenset()  # known faults this candidate drops (fixed)
    cleared: tuple = ()  # jammed outlets whose coins came free
    spared: frozenset = frozenset()  # known intermittent faults that did not act this time (kept)
    sticky: tuple = ()  # (switch, passes that found it stuck): a pivot that stuck on some coins only
    _shown: list | None = field(default=None, repr=False, compare=False)

    @property
    def logp(self) -> float:
        return self.world.logw + self.cost

    @property
    def size(self) -> int:
        """How many new things this explanation claims (for single-before-pair)."""
        return sum(1 for m in self.moves if m.kind not in ("entry", "entry+rest", "unchatter", "phantom", "handful", "left")) + len(self.derivation.new)

    def new_faults(self) -> list:
        out = [m.fault for m in self.moves if m.fault is not None and m.kind not in ("fix", "spare")]
        out.extend(self.derivation.new)
        return out

    def shown(self) -> list:
        """Every fault this explanation uses to account for the drop."""
        if self._shown is None:
            self._shown = self._find_shown()
        return list(self._shown)

    def _find_shown(self) -> list:
        out = list(dict.fromkeys(self.new_faults() + list(self.derivation.exercised)))
        idx = self.world.index
        physical = idx.stuck | idx.slips | {s for s, _ in idx.jams}
        if not physical:
            return out
        for a in self.trace.arrivals:  # known physical faults a coin met
            s = a >> 3
            if s not in physical:
                continue
            for f in idx.at(s):
                if isinstance(f, (SwitchStuck, PadNotHolding, Jam)) and f not in out and f not in self.removed and f not in self.spared:
                    if _mattered(f, a, self):
                        out.append(f)
        return out


def _mattered(f, arrival: int, cand: Candidate) -> bool:
    code = arrival & 7
    s = arrival >> 3
    g = cand.world.geometry
    if code == HOLE:
        return False
    rests = (code & PAD_R) == g.inlets[s] and not code & COIN
    if isinstance(f, SwitchStuck):
        return not rests or s in cand.slips
    if isinstance(f, PadNotHolding):
        return rests
    return bool(cand.trace.jams.get((s, f.side)))
