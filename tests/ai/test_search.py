"""The look-ahead: positions follow the match rules exactly, and the pruned,
cached search gives the same values as a plain, independent minimax."""

import pytest

from coindrel.ai import GreedyPlayer, Position, RandomPlayer, Searcher, WIN
from coindrel.ai.search import custom_values
from coindrel.engine import VALUES, BoardState, EngineError, Match, MatchRandom, MatchSetup, Variants, drop

EMPTY = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def same(p: Position, m: Match) -> None:
    assert p.board == m.board
    assert (p.round, p.round_scores, p.totals, p.to_move, p.last_drop) == (
        m.round, m.round_scores, m.totals, m.to_move, m.last_drop_pending)
    assert p.values[p.round - 1] == m.values
    assert p.target == m.target


@pytest.mark.parametrize("seed", range(12))
def test_position_play_follows_the_match_through_every_round(seed):
    """Targets, last drops, round changes and the match end, drop by drop."""
    m = Match(MatchSetup(seed=seed, variants=Variants(halved=seed % 3 == 0, holes=seed % 4 == 1)))
    p = Position.from_match(m)
    players = (GreedyPlayer(seed), RandomPlayer(seed + 1))
    rounds_seen = set()
    while True:
        entry = players[m.to_move - 1].choose(m)
        step = p.play(entry)
        result = m.play(entry)
        assert step.points == result.points and step.exits == result.exits
        assert step.reaches_target == result.last_drop
        assert step.ends_match == result.over
        if m.over:
            assert step.next is None and step.totals == m.totals
            break
        assert step.ends_round == (m.round != result.round)
        p = step.next
        same(p, m)
        rounds_seen.add(m.round)
    assert rounds_seen == {1, 2, 3, 4}


def test_position_checks_its_input():
    board = BoardState.parse(EMPTY)
    with pytest.raises(EngineError, match="would have ended"):
        Position(board, round=1, round_scores=(10, 3), to_move=1)
    with pytest.raises(EngineError, match="round 5"):
        Position(board, round=5)
    with pytest.raises(EngineError, match="1 or 2"):
        Position(board, to_move=3)
    with pytest.raises(EngineError, match="below this round"):
        Position(board, round_scores=(5, 0), totals=(2, 0))
    with pytest.raises(EngineError, match="BoardState"):
        Position(EMPTY)
    with pytest.raises(EngineError, match="entry 8"):
        Position(board).play(8)
    with pytest.raises(EngineError, match="over"):
        m = Match(MatchSetup(seed=1))
        while not m.over:
            m.play(0)
        Position.from_match(m)
    # The opponent reached the target: the drop to make is the last one.
    assert Position(board, round_scores=(3, 12), to_move=1).last_drop


def test_shuffled_rounds_not_yet_revealed_use_the_mean_value():
    m = Match(MatchSetup(seed=4, variants=Variants(shuffled=True)))
    p = Position.from_match(m)
    assert p.values[0] == m.values
    for r in (1, 2, 3):
        assert set(p.values[r]) == {sum(VALUES[r]) / 16}


def test_custom_value_tables_are_checked():
    assert custom_values([[1] * 16] * 4)[0] == (1,) * 16
    with pytest.raises(EngineError):
        custom_values([[1] * 15] * 4)


# -- an independent reference: plain minimax over Position.play ----------------


def reference(p: Position, depth: int, threat: float) -> float:
    """Value for the player to move: final total difference over the horizon."""
    me = p.to_move - 1
    diff = p.totals[me] - p.totals[1 - me]
    if depth == 0:
        best = max(sum(p.values[p.round - 1][x] for x in drop(p.board, [e]).exits) for e in range(8))
        return diff + threat * best
    best = -float("inf")
    for e in range(8):
        step = p.play(e)
        if step.next is None:
            final = step.totals[me] - step.totals[1 - me]
            v = final + (WIN if final > 0 else -WIN if final < 0 else 0)
        else:
            v = -reference(step.next, depth - 1, threat)
        best = max(best, v)
    return best


def random_positions(count, seed):
    """Positions from random matches, many near a target, a last drop or the end."""
    rng = MatchRandom(seed)
    out = []
    while len(out) < count:
        m = Match(MatchSetup(seed=rng.randbelow(10**6)))
        players = (GreedyPlayer(rng.randbelow(99)), RandomPlayer(rng.randbelow(99)))
        while not m.over:
            if m.last_drop_pending or rng.random() < 0.03 or (m.round == 4 and rng.random() < 0.2):
                out.append(Position.from_match(m))
            m.play(players[m.to_move - 1].choose(m))
    return out[:count]


@pytest.mark.parametrize("depth,threat", [(1, 0.0), (2, 0.0), (2, 0.75), (3, 0.5)])
def test_search_values_equal_plain_minimax(depth, threat):
    positions = random_positions(14 if depth < 3 else 6, seed=depth * 10 + int(threat * 4))
    assert any(p.last_drop for p in positions) and any(p.round == 4 for p in positions)
    searcher = Searcher(depth, threat)  # one searcher: its caches must not leak between positions
    for p in positions:
        rated = searcher.rate(p)
        me = p.to_move - 1
        diff = p.totals[me] - p.totals[1 - me]
        for value, entry, points in rated:
            step = p.play(entry)
            assert points == step.points
            if step.next is None:
                final = step.totals[me] - step.totals[1 - me]
                want = final + (WIN if final > 0 else -WIN if final < 0 else 0)
            else:
                want = -reference(step.next, depth - 1, threat)
            assert value == pytest.approx(want - diff), (p.board.text(), entry)
        assert [v for v, _, _ in rated] == sorted((v for v, _, _ in rated), reverse=True)


def test_two_drop_value_is_points_now_minus_best_reply():
    p = random_positions(1, seed=3)[0]
    while p.last_drop:
        p = p.play(0).next
    for line in Searcher(2).analyse(p):
        if line.step.next is not None and not line.step.reaches_target:
            assert line.value == line.points - line.reply


def test_the_last_drop_of_the_match_is_a_win_or_a_loss():
    board = BoardState.parse("RLLLLLLL/LLLLLLL/RLLLLLLL/LLLLLLL/RLLLLLLL")
    # Player 1 trails by 1 in totals and takes the match's last drop: entry 1 scores 12 (exit 1).
    p = Position(board, round=4, round_scores=(70, 85), totals=(150, 151), to_move=1)
    assert p.last_drop
    lines = Searcher(2).analyse(p)
    best = lines[0]
    assert best.entry == 0 and best.points == 12 and best.value >= WIN / 2 and best.reply is None
    assert all(l.value <= -WIN / 2 for l in lines if l.points == 0)


def test_reaching_the_target_early_can_be_worse_than_waiting():
    """The search sees that the round change brings new values."""
    board = BoardState.parse("RLLLLLLL/LLLLLLL/RLLLLLLL/LLLLLLL/RLLLLLLL")
    p = Position(board, round=1, round_scores=(8, 0), to_move=1)
    step = p.play(0)
    assert step.reaches_target and step.next.last_drop and step.next.round == 1
    after = step.next.play(3)
    assert after.ends_round and after.next.round == 2 and after.next.round_scores == (0, 0)
    assert after.next.to_move == 1  # turns keep alternating across rounds


def test_caches_are_reused_and_bounded():
    p = random_positions(1, seed=9)[0]
    s = Searcher(3, 0.5)
    first = s.rate(p)
    assert s.tt and s.drops
    nodes = s.nodes
    assert s.rate(p) == first
    assert s.nodes - nodes <= 8  # the second search is answered from the cache at the root's children
    assert Searcher(3, 0.5).rate(p) == first

    small = Searcher(3, 0.5, cache_limit=40)
    small.rate(p)
    assert len(small.tt) > 40
    assert small.rate(p) == first  # over the limit: cleared before the next search, same answer
    assert len(small.tt) < nodes


def test_searcher_rejects_a_bad_depth():
    with pytest.raises(EngineError):
        Searcher(0)


def test_a_kept_searcher_starts_afresh_for_other_values_or_targets():
    """Deep lines of a halved final round end the match sooner: a cache
    filled for the full round must not answer for the halved one."""
    board = BoardState.parse("rrrlLRRL/LlRrllL/rLLlLrRL/LllrLrL/lrLrLLlL")
    full = Position(board, round=4, round_scores=(34, 32), totals=(100, 101), to_move=1)
    halved = Position(board, round=4, round_scores=(34, 32), totals=(100, 101), to_move=1, targets=(10, 40, 20, 40))
    kept = Searcher(4, 0.5)
    assert kept.rate(full) == Searcher(4, 0.5).rate(full)
    assert kept.rate(halved) == Searcher(4, 0.5).rate(halved) != kept.rate(full)
    values = [list(v) for v in full.values]
    values[3][0] = 30
    other = Position(board, round=4, round_scores=(34, 32), totals=(100, 101), to_move=1, values=values)
    assert kept.rate(other) == Searcher(4, 0.5).rate(other)
