"""A coin a hand put on a pad facing away from its inlet, tipped on unseen
to the pad below by the next coin's flip (reconcile/tipped.py)."""

import json

from benchmarks import scoring
from benchmarks.models.virtual_runs import run_virtual
from coindrel.engine import standard_geometry
from coindrel.engine.core import COIN
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.faults import CoinAdded
from coindrel.reconcile.offline import load, reconcile_log
from coindrel.reconcile.tipped import UPPER, TipWatch


def test_a_coin_found_on_a_pad_lists_the_rocker_above_that_may_have_tipped_it_there():
    # Virtual board: a coin put on R1S2's pad, its lever side (R1S2's inlet is
    # left, its pad right). Drop 20's coin (in flight with 19's) flips R1S2 and tips it on to R2S2's
    # empty pad; nothing sensed differs. Drop 30 meets R2S2 and finds a coin:
    # a coin put on R2S2, or on R1S2 and tipped. Both are listed, R2S2 first.
    log, truth = run_virtual(248159310, ["coin_added@R1S2,t=25.0"])
    out = [r.to_json() for r in reconcile_log(load([json.dumps(d) for d in log]))[1]]
    rec = next(r for r in out if r["drop"] == 30)
    keys = [(d["fault"], d["where"]) for d in rec["diagnosis"]]
    assert ("coin_added", "R2S2") in keys and ("coin_added", "R1S2") in keys
    assert keys.index(("coin_added", "R2S2")) < keys.index(("coin_added", "R1S2"))
    line = rec["diagnosis"][keys.index(("coin_added", "R1S2"))]
    assert "tipped it on to R2S2" in line["say"] and "drops 19-20" in line["say"]  # drop 20's coin, in flight with 19's
    (res,) = scoring.score_faults(out, scoring.virtual_truth(truth, log[1:]))
    assert res["flagged"] and res["listed"]


def _codes(g, pads: dict, coins=()):
    codes = bytearray(len(g.labels))
    for s, label in enumerate(g.labels):
        codes[s] = pads.get(label, g.inlets[s]) | (COIN if label in coins else 0)
    return bytes(codes)


class _Rep:
    def __init__(self, n):
        self.drop = n


def test_only_a_flip_from_a_pad_facing_away_from_the_inlet_and_onto_an_empty_inlet_side_pad_is_kept():
    g = standard_geometry()
    u, s = g.labels.index("R1S2"), g.labels.index("R2S2")
    assert g.outs[u][1] == s and g.inlets[u] == 0  # R1S2's right outlet feeds R2S2; its inlet is left
    flips = [0] * len(g.labels)
    flips[u] = 1
    w = TipWatch(g)
    w.after_group(_codes(g, {"R1S2": 1}), flips, {u}, _codes(g, {"R1S2": 0}), [_Rep(7)])
    assert w.into == {s: [(u, "7")]}
    found = [Finding(CoinAdded("R2S2"), 0.8)]
    extra = w.extend(found, {label: i for i, label in enumerate(g.labels)})[1]
    assert extra.fault == CoinAdded("R1S2", tipped_to="R2S2", via="7") and abs(extra.confidence - 0.8 * UPPER) < 1e-9
    # the next coin to meet R2S2 would have shown that coin: forgotten
    w.after_group(_codes(g, {}), [0] * len(g.labels), {s}, _codes(g, {}), [_Rep(8)])
    assert w.into == {}
    # a pad on the inlet side: a hand's coin there would have stopped the coin (seen), nothing kept
    w.after_group(_codes(g, {"R1S2": 0}), flips, {u}, _codes(g, {"R1S2": 1}), [_Rep(9)])
    assert w.into == {}
