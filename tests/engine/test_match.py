"""Match flow beyond the vectors: clock, timeouts, reveal, undo, replay, variants."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coindrel.ai import GreedyPlayer, RandomPlayer
from coindrel.engine import (
    PHASE_FALLING,
    PHASE_OVER,
    PHASE_REVEAL,
    PHASE_TURN,
    VALUES,
    Match,
    MatchError,
    MatchSetup,
    Variants,
    drop,
)
from coindrel.engine.match import TurnResult

FLAT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def play_out(match: Match, seed=1):
    players = [GreedyPlayer(seed), RandomPlayer(seed + 1)]
    while not match.over:
        match.play(players[match.to_move - 1].choose(match))
    return match


def test_a_new_match_reveals_round_one_before_any_clock():
    m = Match(MatchSetup(clock=30, start=FLAT))
    assert m.phase == PHASE_REVEAL and m.round == 1 and m.target == 10
    assert m.values == VALUES[0]
    assert m.remaining(100.0) == 30
    m.reveal_done(100.0)
    assert m.phase == PHASE_TURN and m.remaining(112.5) == 17.5


def test_clock_stops_while_coins_fall_and_while_paused():
    m = Match(MatchSetup(clock=30, start=FLAT))
    m.reveal_done(0.0)
    m.pause(10.0)
    assert m.remaining(50.0) == 20.0
    m.resume(50.0)
    m.coin_seen(55.0)
    assert m.phase == PHASE_FALLING and m.remaining(99.0) == 15.0
    m.play(0, now=60.0)
    assert m.phase == PHASE_TURN and m.remaining(61.0) == 29.0  # a fresh clock for the next player


def test_expiry_chooses_a_seeded_random_entry_and_replays():
    m = Match(MatchSetup(clock=5, start=FLAT, seed=42))
    m.reveal_done(0.0)
    assert m.expire(4.9) is None
    forced = m.expire(5.0)
    assert forced is not None and m.forced_entry == forced
    assert m.expire(6.0) is None  # chosen once
    result = m.play(forced, now=6.5)
    assert result.forced_entry == forced
    again = Match(MatchSetup(clock=5, start=FLAT, seed=42))
    again.reveal_done(0.0)
    assert again.expire(5.0) == forced
    assert Match.replay(m.log).log == m.log


def test_expiry_entries_are_uniform():
    m = Match(MatchSetup(clock=5, start=FLAT, seed=7))
    seen = [0] * 8
    for _ in range(4000):
        seen[m.rng.randbelow(8)] += 1
    assert min(seen) > 400 and max(seen) < 600


def test_last_drop_and_round_change():
    m = Match(MatchSetup(start=FLAT))
    r1 = m.record(0, [0, 1, 2], FLAT)  # 6 points: not there yet
    assert r1.points == 6 and not r1.last_drop
    r2 = m.record(0, [3] * 5, FLAT)  # player 2 reaches 10: player 1 is owed the last drop
    assert r2.player == 2 and r2.last_drop and m.status() == "Last drop of the round"
    r3 = m.record(3, [4] * 8, FLAT)  # the response overtakes, but earns no further response
    assert r3.player == 1 and not r3.last_drop and r3.round == 1 and r3.round_scores == (22, 10)
    assert m.round == 2 and m.round_scores == (0, 0) and m.totals == (22, 10) and m.target == 40
    assert m.phase == PHASE_REVEAL and m.to_move == 2  # turns keep alternating across rounds


def test_a_whole_match_ends_with_a_winner_and_replays_identically():
    m = play_out(Match(MatchSetup(start=FLAT, seed=3, variants=Variants(shuffled=True, holes=True))))
    assert m.phase == PHASE_OVER and m.round == 4
    assert m.winner in (1, 2, "draw")
    replayed = Match.replay(m.log)
    assert replayed.log == m.log and replayed.totals == m.totals and replayed.board == m.board
    assert [r.to_json() for r in replayed.results] == [r.to_json() for r in m.results]
    with pytest.raises(MatchError, match="over"):
        m.play(0)


def test_shuffled_values_are_a_permutation_and_follow_the_seed():
    def round_values(seed):
        m = play_out(Match(MatchSetup(start=FLAT, seed=seed, variants=Variants(shuffled=True))))
        return [a["values"] for a in m.log if a["do"] == "reveal"]

    a, b, c = round_values(5), round_values(5), round_values(6)
    assert a == b and a != c
    for k, vals in enumerate(a):
        assert sorted(vals) == sorted(VALUES[k])


def test_halved_final_round_target():
    m = Match(MatchSetup(start=FLAT, variants=Variants(halved=True)))
    m.s.round = 3
    assert m.target == 40
    m.s.round = 1
    assert m.target == 40
    m.s.round = 2
    assert m.target == 20


def test_undo_restores_everything_including_the_generator():
    m = Match(MatchSetup(start=FLAT, seed=9, variants=Variants(shuffled=True), values=None))
    players = [RandomPlayer(1), RandomPlayer(2)]
    while m.round < 2:
        m.play(players[m.to_move - 1].choose(m))
    before = (m.totals, m.round_scores, m.board.text(), m.to_move, m.round, m.values, m.rng.getstate())
    entry = players[m.to_move - 1].choose(m)
    m.play(entry)
    undone = m.undo()
    assert isinstance(undone, TurnResult) and undone.entry == entry
    assert (m.totals, m.round_scores, m.board.text(), m.to_move, m.round, m.values, m.rng.getstate()) == before
    assert Match.replay(m.log).board == m.board


def test_undo_keeps_the_board_before_even_if_that_board_object_is_changed_later():
    m = Match(MatchSetup(start=FLAT))
    old = m.board
    m.play(2)
    old.set_pad("R1S1", 1)  # a caller still holding the board before the drop
    old.place_coin("R5S8")
    m.undo()
    assert m.board.text() == FLAT and m.board is not old
    m.play(2)
    m.undo()  # undo twice over the same snapshot shape
    assert m.board.text() == FLAT and m.board.geometry is m.geometry


def test_undo_across_a_round_change():
    m = Match(MatchSetup(start=FLAT))
    m.record(0, [], FLAT)
    m.record(0, [0] * 5, FLAT)
    m.record(3, [], FLAT)  # ends round 1
    assert m.round == 2
    m.undo()
    assert m.round == 1 and m.last_drop_pending and m.to_move == 1


def test_record_scores_what_the_exits_saw_and_keeps_the_belief():
    m = Match(MatchSetup(start=FLAT))
    after = "lLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
    r = m.record(0, [0, 15], after)
    assert r.points == 4 and m.board.text() == after
    with pytest.raises(MatchError, match="not an exit"):
        m.record(1, [16])


@pytest.mark.parametrize(
    "setup, words",
    [
        (dict(start="lLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"), "every pad empty"),
        (dict(start="LLLLLLLL/LoLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"), "Holes variant is off"),
        (dict(start="LLLLLLLL/LLoLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", variants=Variants(holes=True)), "removes only"),
        (dict(players=("Ann", "")), "two players"),
        (dict(clock=-1), "positive"),
        (dict(values=[[1] * 16] * 3), "4 rounds"),
    ],
)
def test_bad_setups(setup, words):
    with pytest.raises(Exception, match=words):
        Match(MatchSetup(**setup))


def test_holes_variant_removes_the_four_switches():
    m = Match(MatchSetup(start=FLAT, variants=Variants(holes=True)))
    assert m.board.holes() == ["R2S2", "R2S6", "R4S3", "R4S5"]


def test_random_start_follows_the_seed():
    a = Match(MatchSetup(seed=11)).board.text()
    assert a == Match(MatchSetup(seed=11)).board.text() and a != Match(MatchSetup(seed=12)).board.text()


def test_replay_refuses_a_log_that_does_not_fit():
    m = Match(MatchSetup(start=FLAT, clock=5, seed=1))
    m.reveal_done(0.0)
    m.expire(6.0)
    log = [dict(a) for a in m.log]
    log[-1]["entry"] = (log[-1]["entry"] + 1) % 8
    with pytest.raises(MatchError, match="line 4"):
        Match.replay(log)
    with pytest.raises(MatchError, match="setup"):
        Match.replay([{"do": "drop"}])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.integers(0, 7), min_size=400, max_size=400))
def test_each_drop_scores_its_exits_values_and_logs_the_board_it_leaves(seed, entries):
    # play() reads exits from the exit table and the board text without calls: the plain forms agree.
    m = Match(MatchSetup(seed=seed, variants=Variants(shuffled=True)))
    pick = iter(entries)
    while not m.over:
        before, values = m.board.copy(), m.values
        r = m.play(next(pick))
        o = drop(before, [r.entry])
        assert r.exits == o.exits and r.points == sum(values[x] for x in o.exits)
        line = next(a for a in reversed(m.log) if a["do"] == "drop")  # a reveal may follow it
        assert r.board == o.board.text() == line["board"] and line["exits"] == list(o.exits)
    assert len(m.results) < 400


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 5)), min_size=300, max_size=300))
def test_play_with_undos_scores_as_the_plain_drop_with_the_values_of_the_round_it_is_in(seed, moves):
    # play() remembers exit patterns with their points per round's values; undos
    # over round changes bring older values back, and the points follow them.
    m = Match(MatchSetup(seed=seed, variants=Variants(shuffled=True)))
    for entry, undo in moves:
        if m.over:
            break
        if undo == 0 and m.results:
            m.undo()
            assert m.over is (m.phase == PHASE_OVER)
            continue
        before, values = m.board.copy(), m.values
        r = m.play(entry)
        o = drop(before, [entry])
        assert (r.exits, r.points, r.board) == (o.exits, sum(values[x] for x in o.exits), o.board.text())
        assert m.board == o.board and m.over is (m.phase == PHASE_OVER) is r.over
    if m.over:
        m.undo()
        assert not m.over and m.phase != PHASE_OVER


def test_play_on_a_board_whose_exits_are_fed_from_higher_up(tmp_path):
    import json

    from coindrel.engine import standard_geometry, topology

    d = standard_geometry().to_dict()
    d["rows"][3][0]["out"] = ["exit 1", "R5S2"]  # R4S1's left outlet skips the last row
    path = tmp_path / "skip.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    m = Match(MatchSetup(board=str(path), seed=4))
    assert topology(m.geometry).exit_pairs is None  # play() keys its patterns on the exit counters
    for k in range(200):
        if m.over:
            break
        before, values = m.board.copy(), m.values
        r = m.play(k * 5 % 8)
        o = drop(before, [r.entry])
        assert (r.exits, r.points, r.board) == (o.exits, sum(values[x] for x in o.exits), o.board.text())
    assert m.over


def test_play_falls_back_to_the_plain_drop_when_the_working_bytes_overflow():
    from coindrel.engine import topology

    plain, fast = Match(MatchSetup(seed=6)), Match(MatchSetup(seed=6))
    # Tables whose every cell overflows, as a count leaving its byte's room
    # does: the loop indexes past the rows' end (drop() falls back too).
    g = plain.geometry
    tables = topology(g).fast
    past = len(tables[2])  # the next switch: past the rows' end
    rows = tuple(tuple((b, past, None) for b in range(256)) for _ in tables[2])
    object.__setattr__(g, "_fast", tables[:2] + (rows,) + tables[3:])  # the geometry is frozen (and shared)
    try:
        for entry in (1, 5, 2, 7, 0, 3):
            plain.play(entry)
    finally:
        object.__setattr__(g, "_fast", tables)
    for entry in (1, 5, 2, 7, 0, 3):
        fast.play(entry)
    assert plain.results == fast.results and plain.board == fast.board and plain.log == fast.log


def test_undo_of_a_recorded_drop_gives_the_turn_back_without_a_clock():
    """Found by a newcomer: with the clock off, an undo of a drop recorded
    from the board (its coin seen first) left the match "falling", and the
    table then said a coin was lost."""
    from coindrel.engine import drop as engine_drop

    m = Match(MatchSetup(seed=3))
    m.reveal_done(0.0)
    m.coin_seen(1.0)
    o = engine_drop(m.board, [2])
    m.record(2, o.exits, o.board, 2.0)
    m.undo(3.0)
    assert m.phase == "turn" and m.to_move == 1
    m.coin_seen(4.0)  # and the next coin is seen as usual
    assert m.phase == "falling"
