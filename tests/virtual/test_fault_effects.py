"""One-off faults, fault windows and the edge cases of fault actions."""

from __future__ import annotations

import pytest

from coindrel.engine import EngineError, Variants
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.virtual import BoardConfig, Collect, VirtualBoard, fault_from_text

ALL_L = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def go(faults, drops, start=ALL_L, **config):
    out = Collect()
    cfg = BoardConfig(seed=5, start=start, **config)
    board = VirtualBoard(cfg, faults=[fault_from_text(f, cfg.geometry) for f in faults], outputs=[out])
    for t, e in drops:
        board.drop(e, t)
    board.finish()
    return board, out, board.truth.lines


def kinds(truth, kind):
    return [x for x in truth if x["kind"] == kind]


def test_a_one_off_stuck_lever_sticks_once():
    # R1S4 full after drop 1; drops 2 and 4 reach its lever: only the first is stuck
    _, out, truth = go(["switch_stuck@R1S4,t=1,once"], [(0.5, 3), (2.0, 3), (3.5, 3), (5.0, 3)])
    drops = kinds(truth, "drop")
    assert "R1S4" not in drops[1]["flips"] and drops[1]["faults"] == [1]
    assert [e["why"] for e in kinds(truth, "fault_end")] == ["acted"]
    assert all(d["as_engine"] for d in drops[2:])


def test_a_one_off_pad_slip_and_a_window():
    _, _, truth = go(["pad_not_holding@R1S4,t=0.1,once"], [(0.5, 3), (2.0, 3)])
    d1, d2 = kinds(truth, "drop")
    assert d1["rested"] == [] and d1["exits"] == [12] and d1["faults"] == [1]
    assert d2["faults"] == [] and d2["as_engine"]  # acted once, then gone
    _, _, truth = go(["pad_not_holding@R1S4,t=1,until=3"], [(0.5, 3), (2.0, 3), (4.0, 3)])
    assert [f["why"] for f in kinds(truth, "fault_end")] == ["until"]


def test_an_unseated_rocker_reseats_when_it_next_moves():
    board, out, truth = go(["switch_unseated@R1S4,t=1,once"], [(0.5, 3), (2.0, 3)])
    r1s4 = [e.pos for e in out.events if isinstance(e, SwitchEvent) and e.switch == "R1S4"]
    assert r1s4 == ["mid", "R"]  # off its seat at rest, then the flip seats it on the other side
    assert [f["why"] for f in kinds(truth, "fault_end")] == ["reseated"]
    assert board.world.unseat[board.geometry.index("R1S4")] == 0.0


def test_a_one_off_hall_glitch_and_a_reading_at_a_rail():
    _, out, truth = go(["hall_fault@R2S2,mode=inverted,t=1,once,duration=0.2"], [(0.5, 0)])
    r2s2 = [(e.pos, round(e.t, 2)) for e in out.events if isinstance(e, SwitchEvent) and e.switch == "R2S2"]
    assert [p for p, _ in r2s2] == ["mid", "R", "mid", "L"] and r2s2[-1][1] <= 1.25
    assert kinds(truth, "fault_end")[0]["why"] == "glitch over"
    _, out, _ = go(["hall_fault@R2S2,mode=stuck,value=0,t=1,until=2"], [])
    assert [(code, arg) for _, code, arg, _ in out.errors] == [(3, 9)]
    assert "R2S2 hall reads 0, at a supply rail" in out.errors[0][3]


def test_beams_that_miss_half_the_coins():
    from coindrel.virtual.rand import Stream

    s = Stream(1, "drops")
    faults = [f"exit_sensor_dead@exit {x},chance=0.5" for x in range(1, 17)]
    _, out, truth = go(faults, [(0.5 + 2.5 * k, s.below(8)) for k in range(200)])
    drops = kinds(truth, "drop")
    true = sum(len(d["exits"]) for d in drops)
    seen = sum(1 for e in out.events if isinstance(e, ExitEvent))
    missed = sum(len(d["missed"]) for d in drops)
    assert true >= 100 and seen + missed == true and 0.35 < seen / true < 0.65


def test_chatter_counts_each_coin_count_plus_one_times():
    _, out, _ = go(["entry_sensor_chatter@entry 4,count=3"], [(0.5, 3), (2.5, 3)])
    assert sum(1 for e in out.events if isinstance(e, EntryEvent)) == 8


def test_hands_and_coins_that_cannot_happen_are_logged_not_applied():
    _, _, truth = go(["moved_by_hand@R1S1,t=1,to=L", "coin_added@R1S4,t=1", "coin_added@R1S4,t=1.5"], [])
    faults = kinds(truth, "fault")
    assert faults[0]["applied"] is False and "already sits L" in faults[0]["why"]
    assert "applied" not in faults[1] and faults[2]["applied"] is False and "already has a coin" in faults[2]["why"]


def test_a_hand_waits_for_a_moving_rocker():
    start = "LLLRLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
    _, out, _ = go([], [(0.5, 3)], start=start)  # the coin flips R1S4 back to L: when?
    t_mid = next(e.t for e in out.events if isinstance(e, SwitchEvent) and e.switch == "R1S4")
    board, out, truth = go([f"moved_by_hand@R1S4,t={t_mid + 0.002}"], [(0.5, 3)], start=start)
    hand = kinds(truth, "fault")[0]
    assert hand["t"] > t_mid + 0.01 and hand["from"] == "L" and hand["to"] == "R"
    r1s4 = [e.pos for e in out.events if isinstance(e, SwitchEvent) and e.switch == "R1S4"]
    assert r1s4 == ["mid", "L", "mid", "R"]


def test_a_one_off_jam_stops_one_coin_for_good():
    board, out, truth = go(["jam@R1S4 right outlet,t=1,once"], [(0.5, 3), (2.0, 3), (3.5, 3), (5.0, 3)])
    drops = kinds(truth, "drop")
    assert drops[1]["jammed"] == ["R1S4 right outlet"] and board.end()["jammed_in_board"] == 1
    assert not any(d["jammed"] for d in drops[2:])


def test_faults_on_a_hole_are_refused():
    with pytest.raises(EngineError, match="R2S2.*hole"):
        go(["switch_stuck@R2S2"], [], start=None, variants=Variants(holes=True))
