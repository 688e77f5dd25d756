"""A coin that came to rest on a pad and slid off it a moment later (it sat
half on the pad, or the pad gave way under it): the pad does not hold
(sensing.md's ``pad_not_holding``: a coin that should rest on the empty pad
goes across instead), this time late. Its rocker then flips, at a coin's
pace, with no coin arriving, and the coin falls on through the lever side
(rules.md section 3), between drops or while another drop's coins fall.

Only a coin that came to rest lately (``SETTLING``): one that has sat still
for minutes does not go by itself. The reconciler keeps, per switch, when
its best explanation last left a coin newly at rest there (``note_settled``).
"""

from __future__ import annotations

import math

from ..engine import PadNotHolding
from ..engine import catalog
from ..engine.core import COIN, HOLE, PAD_R
from .candidate import Move
from .faults import PRIOR
from .sensors import _fault

LATE = math.log(0.3)  # a pad that lets go of its coin late, against one that never held it
SETTLING = 10.0  # seconds after it came to rest that a coin may still slide off
KEPT = 60.0  # how long a rest is remembered at all
_PAD = math.log(PRIOR[catalog.PAD_NOT_HOLDING])


def can_slide(world, s: int, t: float, now: float) -> bool:
    """A coin rests on ``s``'s pad (its inlet side) since ``t``, lately enough to slide off at ``now``."""
    code = world.codes[s]
    return 0 <= now - t <= SETTLING and code != HOLE and bool(code & COIN) and (code & PAD_R) == world.geometry.inlets[s]


def late_move(world, s: int, label: str) -> Move:
    known = s in world.index.slips
    return Move("late", s, fault=None if known else _fault(PadNotHolding, label), cost=LATE + (0.0 if known else _PAD))


def late_moves(search, world, skip) -> list:
    """The search's ``late`` moves: a coin that rested lately on a rocker whose hall shows it flipping."""
    obs = search.obs
    return [late_move(world, s, search.labels[s]) for s, t in sorted(search.settling.items())
            if s not in skip and obs.flips[s] and can_slide(world, s, t, obs.t0)]


def note_settled(settling: dict, best, t: float) -> None:
    """Where the best explanation of a group left a coin newly at rest, and
    when: such a coin may still slide off."""
    before, after = best.codes0, best.trace.codes
    for s in best.trace.visited():
        if after[s] != HOLE and after[s] & COIN and not (before and before[s] & COIN):
            settling[s] = t
        else:
            settling.pop(s, None)
    for s in [s for s, t0 in settling.items() if t - t0 > KEPT]:
        del settling[s]
