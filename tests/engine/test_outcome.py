"""The drop's flat tables and lazy outcome agree with the readable table walked depth first."""

import copy
import pickle
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coindrel.engine import (
    BoardState,
    EngineError,
    Jam,
    PadNotHolding,
    SwitchStuck,
    cascade,
    drop,
    predict,
    standard_geometry,
    topology,
)
from coindrel.engine.outcome import PlainOutcome
from coindrel.engine.rng import MatchRandom

from .strategies import boards as board_states

G = standard_geometry()


def classic(state, entries, faults=()):
    """The readable table, depth first: (exit counts, flip counts, board, flipped, swallowed, jammed)."""
    t = topology(state.geometry, faults)
    board = state.copy()
    sinks, flipped = cascade(board.codes, t, [t.entries[e] for e in entries])
    n = t.n
    exits = [0] * state.geometry.exit_count
    flips = [0] * n
    for s in sinks:
        if s < t.swallow:
            exits[s - n] += 1
    for s in flipped:
        flips[s] += 1
    return exits, flips, board, tuple(flipped), sinks.count(t.swallow), sinks.count(t.jammed)


def assert_same(o, expected, state):
    exits, flips, board, flipped, swallowed, jammed = expected
    assert list(o.exit_counts) == exits and list(o.flip_counts) == flips
    assert list(o.exits) == [x for x, c in enumerate(exits) for _ in range(c)]
    assert o.flips == tuple(flips)
    assert o.board == board and o.flipped == flipped
    assert (o.swallowed, o.jammed) == (swallowed, jammed)
    assert o.before() == state


@settings(max_examples=300, deadline=None)
@given(board_states(), st.lists(st.integers(0, 7), min_size=1, max_size=8))
def test_flat_tables_agree_with_the_readable_table(state, entries):
    before = state.copy()
    o = drop(state, entries)
    assert state == before
    assert_same(o, classic(state, entries), state)


FAULTS = st.lists(
    st.one_of(
        st.builds(SwitchStuck, st.sampled_from(G.labels)),
        st.builds(PadNotHolding, st.sampled_from(G.labels)),
        st.builds(Jam, st.sampled_from(G.labels), st.integers(0, 1)),
    ),
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(board_states(), st.lists(st.integers(0, 7), min_size=1, max_size=6), FAULTS)
def test_as_if_predictions_agree_with_the_readable_table(state, entries, faults):
    assert_same(predict(state, entries, faults).outcome, classic(state, entries, faults), state)


def test_the_same_fault_objects_reuse_tables_and_new_ones_do_not_get_stale_tables():
    state = BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    stuck = [SwitchStuck("R1S1")]
    first = predict(state, [0], stuck).outcome
    again = predict(state, [0], stuck).outcome
    other = predict(state, [0], [SwitchStuck("R1S2")]).outcome
    assert first.flips == again.flips and first.flips[0] == 0
    assert other.flips == drop(state, [0]).flips  # R1S2 is not on entry 1's way down first


def test_more_coins_than_a_switch_history_holds_fall_back_to_the_plain_cascade():
    state = BoardState.random(MatchRandom(4), G, coin_chance=0.5)
    entries = [0] * 30 + [5] * 25
    o = drop(state, entries)
    assert isinstance(o, PlainOutcome)
    assert_same(o, classic(state, entries), state)
    in_place = state.copy()
    o2 = in_place.drop_in_place(entries)
    assert o2.board is in_place and in_place == o.board


def test_drop_in_place_changes_the_state_and_its_outcome_still_knows_the_board_before():
    state = BoardState.parse("lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL")
    before = state.copy()
    o = state.drop_in_place([3, 4])
    assert o.board is state and state != before and o.before() == before
    assert o.flipped == classic(before, [3, 4])[3]


def test_bad_entries_get_messages():
    state = BoardState()
    for bad, says in (([], "at least one coin"), ([8], "entry 8 is not"), (["1"], "'1' is not"), ([-1], "-1 is not"), (5, "a list")):
        with pytest.raises(EngineError, match=says):
            drop(state, bad)


def test_faults_are_frozen_values_that_pickle():
    f = Jam("R2S3", 1)
    assert f == Jam(switch="R2S3", side=1) and hash(f) == hash(Jam("R2S3", 1)) and f != SwitchStuck("R2S3")
    assert pickle.loads(pickle.dumps(f)) == f and repr(f) == "Jam(switch='R2S3', side=1)"
    with pytest.raises(AttributeError):
        f.side = 0
    with pytest.raises(TypeError):
        Jam("R2S3")


def test_geometry_is_frozen():
    with pytest.raises(AttributeError):
        G.name = "other"
    assert G.rows[0][0] == G.rows[0][0] and G.mirrored() is G.mirrored()


def test_importing_the_engine_leaves_heavy_modules_alone():
    heavy = ("re", "dataclasses", "inspect", "typing", "json", "enum", "importlib.resources", "functools")
    code = f"import sys, coindrel.engine; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_standard_board_reads_exits_from_its_last_row_and_a_jam_there_counts_them():
    assert topology(G).exit_pairs is not None
    jammed = [Jam("R5S3", 0)]
    assert topology(G, jammed).exit_pairs is None and topology(G, [SwitchStuck("R5S3")]).exit_pairs is not None
    rng = MatchRandom(7)
    for _ in range(200):
        state = BoardState.random(rng, G, coin_chance=0.5)
        entries = [rng.randbelow(8) for _ in range(1 + rng.randbelow(4))]
        assert_same(predict(state, entries, jammed).outcome, classic(state, entries, jammed), state)


def test_a_board_whose_exits_are_fed_from_higher_up_counts_them():
    d = G.to_dict()
    d["rows"][3][0]["out"] = ["exit 1", "R5S2"]  # R4S1's left outlet skips the last row
    g = type(G).from_dict(d)
    assert topology(g).exit_pairs is None
    rng = MatchRandom(8)
    for _ in range(200):
        state = BoardState.random(rng, g, coin_chance=0.5)
        entries = [rng.randbelow(8) for _ in range(1 + rng.randbelow(4))]
        assert_same(drop(state, entries), classic(state, entries), state)


def test_more_coins_out_of_one_last_outlet_than_its_nibble_holds_fall_back():
    # A stuck R5S1 sends all 17 coins reaching it out of one outlet (15 at most in its
    # nibble), while no switch sees more coins than its history holds.
    state = BoardState.parse("rrrlrlrR/rrrRrrr/lRlRrRlr/RllrLrR/rlrlrllL")
    entries = [6, 3, 1, 5, 0, 4, 1, 0, 7, 1, 0, 0, 3, 0, 0, 7, 1, 0, 0, 5, 2, 1, 1, 4, 4, 5, 3, 0, 5, 6, 1, 5, 0, 1, 1,
               4, 3, 5, 6]
    stuck = [SwitchStuck("R5S1")]
    o = predict(state, entries, stuck).outcome
    assert isinstance(o, PlainOutcome) and max(o.exit_counts) > 15
    assert_same(o, classic(state, entries, stuck), state)


# -- the fast paths against the plain ones (issue 15) ------------------------------------


@settings(max_examples=200, deadline=None)
@given(board_states(holes=True), st.lists(st.integers(0, 7), min_size=1, max_size=40))
def test_holes_count_what_they_swallow_in_their_own_byte(state, entries):
    # Up to 40 coins: holes swallow past the bytes they count in, and the drop falls back.
    assert_same(drop(state, entries), classic(state, entries), state)


def test_a_hole_that_swallows_more_than_its_byte_counts_falls_back_exactly():
    from coindrel.engine.tables import HOLE_ROOM

    rng, seen = MatchRandom(11), set()
    for k in range(1, 3 * HOLE_ROOM):
        state = BoardState.random(rng, G, coin_chance=0.3)
        for s in G.hole_switches:
            state.codes[s] = 4  # a hole (the Holes variant), whatever rested there
        o = drop(state, [1] * k + [6] * k)
        expected = classic(state, [1] * k + [6] * k)
        assert_same(o, expected, state)
        seen.add(("plain" if isinstance(o, PlainOutcome) else "fast", expected[4] > HOLE_ROOM, expected[4] > 0))
    assert ("fast", False, True) in seen and ("plain", True, True) in seen  # both sides of the bound were tried


def test_the_standard_board_drops_on_its_switch_bytes_alone_and_a_jam_adds_counters():
    assert topology(G).tail == b"" and topology(G, [Jam("R2S3", 0)]).tail
    state = BoardState.random(MatchRandom(12), G, coin_chance=0.5)
    outcomes = [drop(state, [2, 5]), predict(state, [2, 5], [Jam("R2S3", 0)]).outcome,
                drop(state, [0] * 30 + [5] * 25), state.copy().drop_in_place([4])]
    assert isinstance(outcomes[2], PlainOutcome)
    for o in outcomes:
        assert type(o.exit_counts) is bytes and len(o.exit_counts) == G.exit_count


@settings(max_examples=100, deadline=None)
@given(board_states(), st.lists(st.integers(0, 7), min_size=1, max_size=6))
def test_a_drops_board_is_a_board_state_like_any_other(state, entries):
    b = drop(state, entries).board
    assert isinstance(b, BoardState) and b == BoardState.parse(b.text()) and repr(b).startswith("BoardState.parse(")
    assert pickle.loads(pickle.dumps(b)) == b and type(b.copy()) is BoardState and b.copy() == b
    b.codes[0] = 1  # the caller's to change
    assert b.pad("R1S1") == 1 and drop(b, entries).before() == b


def test_a_predictions_sensors_are_worked_out_once_when_asked():
    from coindrel.engine import ExitSensorDead, Prediction, observe

    state = BoardState.random(MatchRandom(13), G, coin_chance=0.5)
    p = predict(state, [3, 4], [ExitSensorDead(5)])
    assert isinstance(p, Prediction) and p.observed is p.observed
    assert p.observed == observe(p.outcome, [3, 4], [ExitSensorDead(5)])
    given_seen = observe(p.outcome, [3, 4])
    assert Prediction(p.outcome, given_seen, (), [3, 4]).observed is given_seen
    assert Prediction(p.outcome, None, (), [3, 4]).observed == given_seen


def test_a_prediction_is_its_own_outcome_and_a_fallen_back_one_holds_its_outcome():
    """predict() makes one object, an Outcome that is also the Prediction; a
    drop that overflowed the working bytes holds the plain cascade's outcome.
    Either reads as the drop() of the same board (faults none) would."""
    from coindrel.engine import Outcome, Prediction, SwitchStuck, observe, topology

    state = BoardState.random(MatchRandom(14), G, coin_chance=0.5)
    p = predict(state, [2, 6])
    assert isinstance(p, Prediction) and isinstance(p.outcome, Outcome) and p.outcome is p
    o = drop(state, [2, 6])
    assert (p.outcome.exits, p.outcome.flips, p.outcome.board) == (o.exits, o.flips, o.board)
    assert repr(p).startswith("Prediction(outcome=Outcome(exits=") and p.observed == observe(o, [2, 6])
    stuck = (SwitchStuck("R2S3"),)
    tables = topology(G, stuck).fast
    past = len(tables[2])
    rows = tuple(tuple((b, past, None) for b in range(256)) for _ in tables[2])
    t = topology(G)
    t.last_faults = (stuck, tables[:2] + (rows,) + tables[3:])  # every cell overflows: the plain cascade
    try:
        fell = predict(state, [2, 6], stuck)
    finally:
        t.last_faults = ((), t.fast)
    again = predict(state, [2, 6], stuck)
    assert isinstance(fell, Prediction) and fell.outcome is not fell and fell.faults == stuck
    assert (fell.outcome.exits, fell.outcome.flips, fell.outcome.board) == (again.exits, again.flips, again.board)
    assert fell.observed == again.observed
    for p in (fell, Prediction(o, None, (), [2, 6])):  # copied and pickled whole, as any outcome is
        for twin in (copy.copy(p), pickle.loads(pickle.dumps(p))):
            assert type(twin) is type(p) and twin.outcome.exits == p.outcome.exits and twin.faults == p.faults


def test_a_drop_too_big_for_an_outcomes_counts_is_an_engine_error_and_true_is_no_entry():
    """Found by a newcomer: 600 coins into one entry raised 'byte must be in
    range(0, 256)' through coindrel show and engine; True counted as entry 1."""
    import pytest

    from coindrel.engine import BoardState, EngineError, drop, standard_geometry

    board = BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", standard_geometry())
    before = bytes(board.codes)
    assert sum(drop(board, [2] * 300).exit_counts) + drop(board, [2] * 300).jammed <= 300  # fits: told
    with pytest.raises(EngineError, match="more than 255 through one exit or switch"):
        drop(board, [2] * 600)
    assert bytes(board.codes) == before
    with pytest.raises(EngineError, match="entry True is not an entry"):
        drop(board, [True, 9])
