"""Revision records (sensing.md section 4) from the reviser alone: what later
worlds say about an earlier drop's tied explanations."""

import math
from types import SimpleNamespace

import pytest

from coindrel.engine import BoardState, Jam, PadNotHolding, standard_geometry
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.faults import CoinAdded, CoinRemoved
from coindrel.reconcile.revise import Reviser
from coindrel.reconcile.world import World, normalise


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


def test_a_one_off_assumed_again_later_at_the_same_place_does_not_confirm_the_earlier_drop():
    g = standard_geometry()
    codes = BoardState.empty(g).codes
    taken, jam = CoinRemoved("R5S8"), Jam("R3S8", 1)
    rev = Reviser(g)
    rev.note(_report(27, [Finding(taken, 0.5), Finding(jam, 0.45)]))
    # The jam world (since drop 27) needed that coin taken off again at drop
    # 37: its story has it, but not as drop 27's explanation.
    worlds = [World(g, codes, frozenset({jam}), 0.0, story=(taken,), origin={(jam, 27): 1.0, (taken, 37): 1.0}),
              World(g, codes, frozenset(), math.log(0.01), story=(taken,), origin={(taken, 27): 1.0})]
    out = rev.update(worlds, 60.0)
    assert [(x["fault"], x["where"]) for x in out[0].to_json()["diagnosis"]][0] == ("jam", "R3S8 right outlet")


def test_two_stories_merged_into_one_world_keep_the_share_of_the_weight_each_had():
    g = standard_geometry()
    codes = BoardState.empty(g).codes
    taken, jam = CoinRemoved("R5S8"), Jam("R3S8", 1)
    likely = World(g, codes, frozenset({jam}), 0.0, origin={(jam, 27): 1.0})
    unlikely = World(g, codes, frozenset({jam}), math.log(1 / 9), story=(taken,), origin={(taken, 27): 1.0, (jam, 37): 1.0})
    (w,) = normalise([likely, unlikely], 6, math.log(1e-5))
    assert w.story == (taken,)
    assert w.support(jam, 27) == pytest.approx(0.9) and w.support(jam, 40) == pytest.approx(1.0)
    assert w.support(taken, 27) == pytest.approx(0.1)
    assert w.support(CoinRemoved("R1S1"), 27) == 0.0


def test_a_tie_after_a_sure_leader_is_told_once_later_drops_settle_it_and_the_leader_stays_first():
    from coindrel.reconcile.faults import ExitSensorChatter

    g = standard_geometry()
    codes = BoardState.empty(g).codes
    chatter, taken, here, there = ExitSensorChatter(4), CoinRemoved("R5S2"), Jam("R4S1", 1), Jam("R4S2", 0)
    rev = Reviser(g)
    # A drop with two faults: a sure one, and a second one of three alike.
    rev.note(_report(24, [Finding(chatter, 0.86), Finding(taken, 0.29), Finding(here, 0.29), Finding(there, 0.29)]))
    still = [World(g, codes, frozenset({chatter, f}), 0.0, origin={(chatter, 24): 1.0, (f, 24): 1.0}) for f in (here, there)]
    assert rev.update(still, 70.0) == []
    settled = [World(g, codes, frozenset({chatter, there}), 0.0, origin={(chatter, 24): 1.0, (there, 24): 1.0})]
    out = rev.update(settled, 75.0)
    assert len(out) == 1
    d = out[0].to_json()
    assert [(x["fault"], x["where"]) for x in d["diagnosis"]] == [("exit_sensor_chatter", "exit 5"), ("jam", "R4S2 left outlet")]
    assert d["diagnosis"][1]["say"].startswith("Drop 24, later drops tell which")
    assert rev.update(settled, 80.0) == []  # told once


def test_a_sure_leader_alone_is_not_followed():
    g = standard_geometry()
    rev = Reviser(g)
    rev.note(_report(3, [Finding(PadNotHolding("R3S2"), 0.9), Finding(CoinAdded("R2S1"), 0.05), Finding(CoinAdded("R3S2"), 0.05)]))
    assert rev.pending == []


def test_a_new_leader_more_likely_than_all_the_others_together_revises_short_of_ruling_the_first_out():
    g = standard_geometry()
    codes = BoardState.empty(g).codes
    here, there, taken = Jam("R2S3", 1), Jam("R2S4", 0), CoinRemoved("R3S4")
    rev = Reviser(g)
    rev.note(_report(12, [Finding(here, 0.5), Finding(there, 0.25), Finding(taken, 0.25)]))
    # Later coins down R2S3's right outlet arrived: its jam now 0.3 of the
    # weight, the coin taken off R3S4 0.55, more than both jams together.
    worlds = [World(g, codes, frozenset({here}), math.log(0.3), origin={(here, 12): 1.0}),
              World(g, codes, frozenset({there}), math.log(0.15), origin={(there, 12): 1.0}),
              World(g, codes, frozenset(), math.log(0.55), story=(taken,), origin={(taken, 12): 1.0})]
    (r,) = rev.update(worlds, 80.0)
    d = r.to_json()["diagnosis"]
    assert [(x["fault"], x["where"]) for x in d][0] == ("coin_removed", "R3S4")
    assert "later drops make this likelier" in d[0]["say"]


def test_a_new_leader_short_of_half_does_not_revise():
    g = standard_geometry()
    codes = BoardState.empty(g).codes
    here, there, taken = Jam("R2S3", 1), Jam("R2S4", 0), CoinRemoved("R3S4")
    rev = Reviser(g)
    rev.note(_report(12, [Finding(here, 0.5), Finding(there, 0.25), Finding(taken, 0.25)]))
    worlds = [World(g, codes, frozenset({here}), math.log(0.3), origin={(here, 12): 1.0}),
              World(g, codes, frozenset({there}), math.log(0.25), origin={(there, 12): 1.0}),
              World(g, codes, frozenset(), math.log(0.45), story=(taken,), origin={(taken, 12): 1.0})]
    assert rev.update(worlds, 80.0) == []
