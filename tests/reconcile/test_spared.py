"""A world with a known intermittent physical fault stays held when another
world fits a drop as it is and this one fits once its fault let the coin pass."""

import math

from coindrel.engine import BoardState, PadNotHolding, standard_geometry
from coindrel.events import EntryEvent
from coindrel.reconcile import Reconciler
from coindrel.reconcile.world import World

from .helpers import run_events


def test_a_slipping_pad_that_held_this_coin_keeps_its_world_while_another_world_fits_as_it_is():
    g = standard_geometry()
    empty = BoardState.empty(g)
    slip = PadNotHolding("R1S1")
    rec = Reconciler(g, empty)
    # An earlier drop left two explanations: a pad that does not hold, or
    # none at all (e.g. a hall that lied). A coin into entry 1 now rests on
    # R1S1's empty pad, with no event: the plain world fits as it is; the
    # slipping pad's world fits only if the pad held this time (rate < 1).
    rec.worlds = [World(g, empty.codes), World(g, empty.codes, frozenset({slip}), math.log(0.5))]
    out = run_events(rec, [EntryEvent(10.0, 0)])
    assert [r.ok for r in out] == [True]
    held = [w for w in rec.worlds if slip in w.faults]
    assert held, "the slipping pad's world died on the first coin it spared"
    assert held[0].logw > math.log(0.01)
