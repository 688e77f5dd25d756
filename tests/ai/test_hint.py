"""Hints: the best entry, points now, the opponent's best reply, and the words."""

import json

import pytest

from coindrel.ai import GreedyPlayer, Hint, Position, RandomPlayer, Searcher, fmt_points, hint
from coindrel.engine import BoardState, Match, MatchSetup, Variants, drop

THINK = "LLLLLLLL/LLLLLRL/LLLlLLLr/LLLRLLL/LLLLLLLL"  # the Think ahead lesson's board


def test_hint_weighs_the_reply_not_only_points_now():
    p = Position(BoardState.parse(THINK), round=2)
    h = hint(p)
    assert isinstance(h, Hint) and h.depth == 2 and h.to_move == 1
    assert (h.entry, h.points, h.reply) == (4, 4, 6)
    assert h.short == "Entry 5: 4, reply 6"
    assert h.text.startswith("Entry 5: 4 points now, opponent's best reply 6 (entry 7).")
    assert "Entry 7 scores more now (6) but allows a reply of 11." in h.text
    assert h.lines[0] == "Best: entry 5" and all(len(l) <= 21 for l in h.lines)
    assert [a.entry for a in h.alternatives][0] == 4 and len(h.alternatives) == 8
    assert sorted(a.entry for a in h.alternatives) == list(range(8))
    values = [a.value for a in h.alternatives]
    assert values == sorted(values, reverse=True)


def test_every_alternative_reports_exact_points_and_the_best_reply():
    p = Position(BoardState.parse(THINK), round=2, round_scores=(12, 20))
    for a in hint(p).alternatives:
        outcome = drop(p.board, [a.entry])
        assert a.points == sum(p.values[1][x] for x in outcome.exits)
        assert a.resting == outcome.board.resting() and a.swallowed == outcome.swallowed
        replies = [sum(p.values[1][x] for x in drop(outcome.board, [e]).exits) for e in range(8)]
        assert a.reply == max(replies) and replies[a.reply_entry] == a.reply
        assert len(a.short()) <= 21


def test_hint_from_a_match_equals_hint_from_its_position():
    m = Match(MatchSetup(seed=8))
    players = (GreedyPlayer(1), RandomPlayer(2))
    for _ in range(25):
        m.play(players[m.to_move - 1].choose(m))
    a, b = hint(m), hint(Position.from_match(m))
    assert a == b
    assert hint(m, searcher=Searcher(2, 0.75)) == a  # a kept searcher gives the same hint


def test_the_last_drop_of_the_round_and_of_the_match_say_so():
    board = BoardState.parse("RLLLLLLL/LLLLLLL/RLLLLLLL/LLLLLLL/RLLLLLLL")
    h = hint(Position(board, round=2, round_scores=(30, 41), totals=(60, 70), to_move=1))
    assert h.best.ends_round and "last drop of round 2" in h.text and "round 3 starts" in h.text
    assert h.short.endswith(", last")
    end = hint(Position(board, round=4, round_scores=(70, 85), totals=(150, 151), to_move=1))
    assert end.entry == 0 and end.best.ends_match and end.best.decided == "win"
    assert "you win 162 to 151" in end.text and end.short == "Entry 1: 12, wins"
    assert end.reply is None and end.lines[-1] == "Last drop of match"


def test_reaching_the_target_is_explained():
    board = BoardState.parse("RLLLLLLL/LLLLLLL/RLLLLLLL/LLLLLLL/RLLLLLLL")
    h = hint(Position(board, round=1, round_scores=(8, 0)))
    reaching = [a for a in h.alternatives if a.reaches_target]
    assert reaching and all(a.points >= 2 for a in reaching)
    if h.best.reaches_target:
        assert "reaches the target of 10" in h.text and "Reaches the target" in h.lines


def test_holes_and_expected_values_show_in_the_words():
    m = Match(MatchSetup(seed=3, variants=Variants(holes=True, shuffled=True)))
    h = hint(m)
    assert json.loads(json.dumps(h.to_json()))["entry"] == h.entry + 1
    assert fmt_points(3.0) == "3" and fmt_points(4.5) == "~4.5" and fmt_points(None) == "-"


@pytest.mark.parametrize("depth", [1, 3, 4])
def test_deeper_hints_are_consistent(depth):
    p = Position(BoardState.parse(THINK), round=2)
    h = hint(p, depth=depth)
    assert h.depth == depth and 0 <= h.entry < 8
    assert h.alternatives[0].value == max(a.value for a in h.alternatives)
