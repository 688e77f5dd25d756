"""A match's setup, variants and turn results are small frozen values (no
dataclasses: a quick command's start could not afford the import)."""

from __future__ import annotations

import copy
import pickle

import pytest

from coindrel.engine import Match, MatchError, MatchSetup, TurnClock, TurnResult, Variants


def test_variants_are_frozen_values():
    v = Variants(holes=True)
    assert v == Variants(True, False, False) and hash(v) == hash(Variants(holes=True)) and v != Variants()
    assert v.replace(halved=True) == Variants(holes=True, halved=True) and v == Variants(holes=True)
    with pytest.raises(AttributeError):
        v.holes = False
    assert pickle.loads(pickle.dumps(v)) == v and copy.deepcopy(v) == v
    assert repr(v) == "Variants(holes=True, halved=False, shuffled=False)"
    with pytest.raises(TypeError):
        Variants(holes=True, colour=1)
    with pytest.raises(TypeError):
        Variants(True, holes=True)


def test_a_setup_checks_itself_and_round_trips():
    s = MatchSetup(players=("Ann", "Bo"), seed=7, clock=30, variants=Variants(halved=True))
    assert MatchSetup.from_dict(s.to_dict()) == s
    assert pickle.loads(pickle.dumps(s)) == s and {s: 1}[MatchSetup.from_dict(s.to_dict())] == 1
    assert s.replace(seed=8).seed == 8 and s.seed == 7
    assert MatchSetup(values=[[1] * 16] * 4).values == ((1,) * 16,) * 4  # normalised to tuples
    for bad in ({"seed": "x"}, {"seed": True}, {"clock": 0}, {"clock": "60"}):
        with pytest.raises(MatchError):
            MatchSetup(**bad)


def test_a_turn_clock_compares_and_shows_its_state():
    c = TurnClock(30)
    c.start(0.0)
    assert TurnClock.from_dict(c.to_dict()) == c and c != TurnClock(30)
    assert repr(c).startswith("TurnClock(limit=30, running=True")


def test_turn_results_are_named_tuples_a_match_makes_in_one_step():
    m = Match(MatchSetup(start="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"))
    r = m.play(0)
    assert type(r) is TurnResult and r.player == 1 and r.round == 1 and r.board == m.board.text()
    assert r.to_json()["exits"] == list(r.exits) and r.totals == m.totals
    assert TurnResult(*r) == r and r._replace(points=99).points == 99
    with pytest.raises(AttributeError):
        r.points = 3
