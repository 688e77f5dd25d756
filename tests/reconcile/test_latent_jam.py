"""A coin that stuck in a chute where it would have come to rest unseen
(issue 13: a jam ties with a coin taken off the pad below, and later coins
through that chute must revise it)."""

import json

from benchmarks import scoring
from benchmarks.models.board2 import Session
from coindrel.engine import BoardState, Jam, standard_geometry
from coindrel.engine.core import COIN
from coindrel.reconcile.offline import load, reconcile_log
from coindrel.reconcile.physics import Physics

G = standard_geometry()


def test_the_chute_each_resting_coin_came_by_is_known():
    p = Physics(G)
    codes = bytearray(BoardState.empty(G).codes)
    seen = 0
    for k in range(40):  # coins resting on row 1 came from an entry: no chute
        came = p.rests_via(codes, p.starts([k % 8]), p.base)
        for t, vias in came.items():
            assert codes[t] & COIN and vias and all(G.outs[parent][side] == t for parent, side in vias)
        seen += len(came)
    assert seen >= 5


def test_every_chute_a_coin_reached_a_resting_pad_by_may_have_brought_the_coin_resting_there():
    """Two coins of one cascade reach R4S5 from both sides: which one rests
    is the order they meet the rocker in, which the cascade does not fix."""
    p = Physics(G)
    both = 0
    for k in range(200):
        codes = bytearray(BoardState.empty(G).codes)
        rng = __import__("random").Random(k)
        for s in range(G.switch_count):
            codes[s] = rng.choice((0, 1, COIN, COIN | 1)) if G.labels[s][1] != "1" else rng.choice((0, 1))
        came = p.rests_via(codes, p.starts([rng.randrange(8)]), p.base)
        for t, vias in came.items():
            assert all(G.outs[parent][side] == t for parent, side in vias)
            both += len({parent for parent, _ in vias}) == 2
    assert both > 0


def test_a_jam_whose_coin_would_have_rested_unseen_is_listed_where_it_shows_and_revised():
    # board2: the chute below R1S8's right outlet catches coins from drop 12 on;
    # the first it caught would have rested on R3S8 without a sound. Drop 22's
    # coin reaches R3S8 from R2S7 and finds it empty.
    log, truth = Session(868202078, drops=45, faults=[("jam", "R1S8 right outlet", 12, 1.0, {})]).run()
    rec, reports = reconcile_log(load([json.dumps(d) for d in log]))
    out = [r.to_json() for r in reports]
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and res["listed"] and res["top1"]
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert ("jam", "R1S8 right outlet") in [(d["fault"], d["where"]) for d in first["diagnosis"]]
    rev = next(r for r in out if r["verdict"] == "revised" and r["revises"] == first["drop"])
    assert (rev["diagnosis"][0]["fault"], rev["diagnosis"][0]["where"]) == ("jam", "R1S8 right outlet")
    assert Jam("R1S8", 1) in rec.worlds[0].faults
