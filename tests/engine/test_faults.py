"""Predicting a drop as if faults were present (sensing.md's fault table)."""

import pytest
from hypothesis import given

from coindrel.engine import (
    BoardState,
    EngineError,
    EntrySensorDead,
    ExitSensorDead,
    HallFault,
    Jam,
    L,
    PadNotHolding,
    R,
    SwitchStuck,
    drop,
    predict,
    switch_rule,
)

from .strategies import boards, entry_lists

FLAT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def test_switch_rule_cases():
    # inlet L, pad L empty: rests.
    assert switch_rule(0, L) == (2, (), False)
    # inlet L, pad L full: bounces to the lever (R), flips; passing coin out R, resting coin out L.
    assert switch_rule(2, L) == (R, (R, L), True)
    # inlet L, lever on L (pad R), empty: passes the lever on L, pad moves to L.
    assert switch_rule(1, L) == (L, (L,), True)
    # ... with a coin a person put on the far pad: it tips out through the old pad side.
    assert switch_rule(3, L) == (L, (L, R), True)
    # stuck: nothing flips, a resting coin stays, the coin leaves on the lever side.
    assert switch_rule(2, L, stuck=True) == (2, (R,), False)
    assert switch_rule(1, L, stuck=True) == (1, (L,), False)
    assert switch_rule(0, L, stuck=True) == (2, (), False)
    # pad not holding: the empty pad lets the coin bounce across.
    assert switch_rule(0, L, pad_slips=True) == (R, (R,), True)
    with pytest.raises(EngineError):
        switch_rule(4, L)


def test_healthy_prediction_equals_drop():
    state = BoardState.parse("rllrrrll/rrlrrrl/llrrrrrr/rrrrrrr/rlllllrr")
    p = predict(state, [6])
    o = drop(state, [6])
    assert p.outcome.exits == o.exits and p.outcome.board == o.board
    assert p.observed.exits == o.exits and p.observed.entries == (6,)
    assert p.observed.flips == o.flips


def test_stuck_entry_switch():
    state = BoardState.parse("rLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    healthy = predict(state, [0]).outcome
    assert healthy.flips[0] == 1  # R1S1 flips and tips its coin out
    stuck = predict(state, [0], [SwitchStuck("R1S1")]).outcome
    assert stuck.flips[0] == 0 and stuck.board.has_coin("R1S1") and stuck.board.pad("R1S1") == R


def test_pad_not_holding_sends_the_coin_on():
    state = BoardState.parse(FLAT)
    assert predict(state, [0]).outcome.board.has_coin("R1S1")
    slipped = predict(state, [0], [PadNotHolding("R1S1")]).outcome
    assert not slipped.board.has_coin("R1S1") and slipped.flips[0] == 1


def test_jam_keeps_coins_in_the_board():
    state = BoardState.parse(FLAT)
    # Entry 8 -> R1S8 (inlet R, lever on R): flips, leaves right -> R3S8 -> R5S8 -> exit 16.
    o = predict(state, [7]).outcome
    assert o.exits == (15,)
    jammed = predict(state, [7], [Jam("R1S8", R)]).outcome
    assert jammed.jammed == 1 and not jammed.exits and jammed.flips[7] == 1


def test_dead_sensors_hide_what_happened():
    state = BoardState.parse("LLrrLLLL/roLLror/llLrllrr/lLolorL/lLRRrLLl")
    p = predict(state, [7], [ExitSensorDead(14), EntrySensorDead(7), HallFault("R1S8")])
    assert p.outcome.exits == (14, 15)  # the coins still fell
    assert p.observed.exits == (15,) and p.observed.entries == ()
    g = state.geometry
    assert p.observed.flips[g.index("R1S8")] is None and p.observed.positions[g.index("R1S8")] is None
    assert p.observed.flips[g.index("R3S8")] == 1
    assert [f.name for f in p.faults] == ["exit_sensor_dead", "entry_sensor_dead", "hall_fault"]
    assert [f.where for f in p.faults] == ["exit 15", "entry 8", "R1S8"]


@given(boards(), entry_lists)
def test_faulty_predictions_conserve_coins_and_leave_the_input_alone(state, entries):
    before = state.copy()
    faults = [SwitchStuck("R3S4"), PadNotHolding("R2S3"), Jam("R4S2", L)]
    o = predict(state, entries, faults).outcome
    assert state == before
    assert len(entries) == len(o.exits) + o.swallowed + o.jammed + o.board.resting() - state.resting()
    assert o.flips[state.geometry.index("R3S4")] == 0
