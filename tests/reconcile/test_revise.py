"""Revision records (sensing.md section 4) from the reviser alone: what later
worlds say about an earlier drop's tied explanations."""

from types import SimpleNamespace

from coindrel.engine import BoardState, PadNotHolding, standard_geometry
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.faults import CoinAdded
from coindrel.reconcile.revise import Reviser
from coindrel.reconcile.world import World


def _report(drop, findings):
    return SimpleNamespace(drop=drop, ok=False, diagnosis=findings)


def test_a_leader_later_drops_rule_out_is_revised_even_while_the_rest_still_ties():
    g = standard_geometry()
    codes = BoardState.empty(g).codes
    slip, here, there = PadNotHolding("R3S2"), CoinAdded("R2S1"), CoinAdded("R3S2")
    rev = Reviser(g)
    rev.note(_report(18, [Finding(slip, 0.43), Finding(here, 0.26), Finding(there, 0.26)]))
    # Both coin stories led to one board (a merged world): nothing tells them
    # apart, but no world believes the pad any more.
    worlds = [World(g, codes, frozenset(), 0.0, story=(here, there))]
    out = rev.update(worlds, 40.0)
    assert len(out) == 1
    d = out[0].to_json()
    assert d["revises"] == 18 and d["verdict"] == "revised" and d["drop"] is None
    named = [(x["fault"], x["where"]) for x in d["diagnosis"]]
    assert set(named) == {("coin_added", "R2S1"), ("coin_added", "R3S2")}
    assert all(x["confidence"] == 0.5 for x in d["diagnosis"])
    assert "rule that out" in d["diagnosis"][0]["say"]


def test_a_leader_still_held_is_not_revised_into_a_tie():
    g = standard_geometry()
    codes = BoardState.empty(g).codes
    slip, here = PadNotHolding("R3S2"), CoinAdded("R2S1")
    rev = Reviser(g)
    rev.note(_report(5, [Finding(slip, 0.5), Finding(here, 0.45)]))
    worlds = [World(g, codes, frozenset({slip}), 0.0), World(g, codes, frozenset(), -0.1, story=(here,))]
    assert rev.update(worlds, 9.0) == []
