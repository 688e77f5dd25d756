"""Every conformance vector, through the Python API."""

import pytest

from coindrel.engine import BoardState, Match, MatchSetup, Variants, drop
from tests.support import load_vectors

DROPS = load_vectors("drops.jsonl")
MATCHES = load_vectors("matches.jsonl")


def test_the_vectors_are_all_here():
    assert len(DROPS) == 300 and len(MATCHES) == 30


@pytest.mark.parametrize("case", DROPS, ids=[c["id"] for c in DROPS])
def test_drop_vector(case):
    state = BoardState.parse(case["board"])
    before = state.text()
    outcome = drop(state, case["entries"])
    assert outcome.to_json() == case["expect"]
    assert state.text() == before  # drop() never changes its input


@pytest.mark.parametrize("case", MATCHES, ids=[c["id"] for c in MATCHES])
def test_match_vector(case):
    setup = MatchSetup(variants=Variants.from_dict(case["variants"]), start=case["start"], values=case.get("values"))
    match = Match(setup)
    turns = [match.play(entry).to_json() for entry in case["drops"]]
    expect = case["expect"]
    assert turns == expect["turns"]
    assert match.over
    assert match.winner == expect["winner"]
    assert match.board.rows() == expect["board"]
