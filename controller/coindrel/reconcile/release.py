"""Coins stopped at a jam coming free while a group of drops falls.

A chute that wedged a coin holds the coins sent down it after, stacked on
the first, until the stack lets go: most often when one more coin lands on
it (the weight pushes the wedged coin through), sometimes of its own. The
stack then leaves all at once: the rocker or exit below meets the coins
within a few tens of milliseconds of each other, as many as the chute held
and the coin that pushed them. That is what tells a jam from a dead beam
below it (a dead beam never counts those coins) and from a beam that
counts one coin twice (the count is the stack's, not a repeat). The chute
may be clear for good after, or catch the next coins again.
"""

from __future__ import annotations

import math

from ..engine import Jam, catalog
from .candidate import Move
from .faults import CATCHES_AGAIN, LETS_GO_ALONE, PRIOR, JamCleared
from .sensors import _fault

_FREED = math.log(PRIOR[catalog.JAM_CLEARED])
_AGAIN = math.log(CATCHES_AGAIN)
_CLEAR = math.log(1.0 - CATCHES_AGAIN)
_ALONE = math.log(LETS_GO_ALONE)


def release_moves(world, trace, labels, base: tuple = ()) -> list[Move]:
    """For every jam of ``world`` holding coins: its stack let go in this
    group, clear for good (``release``) or catching again (``release+``);
    likelier when a coin of the group landed on the stack (``trace`` sent
    one there)."""
    if not world.jammed or any(m.kind.startswith("release") for m in base):
        return []
    out = []
    held = world.index.jams
    for (s, side), count in world.jammed:
        if not count or (s, side) not in held:
            continue
        cost = _FREED + (0.0 if trace.jams.get((s, side)) else _ALONE)
        f = _fault(JamCleared, labels[s], side)
        out.append(Move("release", s, side, fault=f, cost=cost + _CLEAR))
        out.append(Move("release+", s, side, fault=f, cost=cost + _AGAIN))
    return out


def released(world, move: Move, jams: set, freed: list, removed: list, geometry, labels) -> list[int]:
    """Apply a release move to a hypothesis being built: its outlet no
    longer stops coins in this group (``jams``), it is noted ``freed`` (and
    ``removed`` when clear for good); returns where its stopped coins start."""
    s, side = move.s, move.side
    jams.discard((s, side))
    freed.append((s, side))
    if move.kind == "release":
        removed.append(_fault(Jam, labels[s], side))
    return [geometry.outs[s][side]] * world.jammed_at().get((s, side), 0)
