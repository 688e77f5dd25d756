"""Traces and explanations agree with the engine."""

from hypothesis import given, strategies as st

from coindrel.engine import COIN, HOLE, VALUES, BoardState, MatchRandom, drop
from coindrel.lessons import Scoring, explain, trace, wrap


@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 7), min_size=1, max_size=3), st.booleans())
def test_trace_agrees_with_drop(seed, entries, holes):
    board = BoardState.random(MatchRandom(seed), coin_chance=0.5)
    if holes:
        for s in board.geometry.hole_switches:
            board.codes[s] &= 1  # no coin where a switch is taken out
        board.make_holes_in_place()
    tr = trace(board, entries)
    outcome = drop(board, entries)
    assert tr.exits == outcome.exits and tr.flips == outcome.flips
    assert tr.board == outcome.board and tr.swallowed == outcome.swallowed
    # Resting coins: catches add one, knocks take one away.
    assert outcome.board.resting() - board.resting() == sum(tr.caught) - sum(tr.loose)
    # A coin is knocked loose only by a flip, and only from a pad that held one.
    for s, n in enumerate(tr.loose):
        assert n <= tr.flips[s]
        if n:
            assert board.codes[s] & COIN or tr.caught[s]
    assert all(board.codes[s] == HOLE for s in tr.holes)
    assert set(tr.entries) == set(entries) and {board.geometry.entry_switches[e] for e in entries} <= tr.visited
    lines = explain(tr, Scoring(VALUES[1], 1, (0, 0), 40))
    assert all(len(line) <= 21 for line in lines)
    text = " ".join(lines)
    for label in tr.flipped + tr.knocked_loose + tr.rested:
        assert label in text
    for x in set(tr.exits):
        assert f"Exit {x + 1}" in text or (len(set(tr.exits)) > 3 and str(x + 1) in text)


def test_explanation_words_for_scores_target_and_last_drop():
    board = BoardState.parse("RLLLLLLL/LLLLLLL/RLLLLLLl/LLLLLLL/RLLLLLLr")
    tr = trace(board, [0])
    lines = explain(tr, Scoring(VALUES[0], 1, (8, 6), 10))
    assert lines == ["Flipped: R1S1 R3S1", "R5S1.", "Exit 1: 2 points", "Player 1: 8+2 = 10",
                     "Target 10 reached!", "Player 2 gets", "one last drop."]
    tr2 = trace(tr.board, [7])
    lines = explain(tr2, Scoring(VALUES[0], 2, (10, 6), 10, last_drop=True))
    assert "Exit 16 x2: 4 points" in lines and "Total: 6 points" in lines
    assert lines[-3:] == ["That was the last", "drop: round 1 over", "(10 to 12)."]


def test_caught_only_and_holes():
    tr = trace(BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"), [2])
    assert explain(tr, Scoring(VALUES[0])) == ["Caught on R1S3."]
    assert explain(tr, Scoring(VALUES[0], 1, (0, 0))) == ["Caught on R1S3.", "No coin reached an", "exit: no points.",
                                                          "Player 1: 0+0 = 0"]
    tr = trace(BoardState.parse("LLRLLLLL/LoLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL"), [2])
    assert tr.swallowed == 1 and "1 coin fell in a hole" in " ".join(explain(tr, Scoring(VALUES[0])))


def test_wrap_keeps_lines_short():
    assert all(len(l) <= 21 for l in wrap("Flipped: R1S1 R1S2 R1S3 R1S4 R1S5 R1S6 R1S7 R1S8"))
    assert wrap("") == [""]
