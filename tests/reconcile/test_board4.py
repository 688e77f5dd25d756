"""board4, the fourth (held-out) board model: its physics does what the engine
says, its healthy logs respect sensing.md's physical facts, its truth comes
from a shadow run that differs only where a fault acted, and a seed always
gives the same session."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks.models.board4 import Session
from benchmarks.models.board4.layout import SPOTS, text_rows
from coindrel.engine import BoardState, drop, standard_geometry

G = standard_geometry()


def _engine_totals(log, truth):
    board = BoardState.parse(log[0]["state"], G)
    exits, flips = Counter(), Counter()
    for c in truth:
        if c["kind"] == "coin":
            out = drop(board, [c["entry"] - 1])
            board = out.board
            exits.update(x + 1 for x in out.exits)
            flips.update(out.flips_by_label())
    return board, exits, flips


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("holes", [False, True])
def test_cascade_agrees_with_the_engine(seed, holes):
    """Coins in flight together, waiting on moving rockers, hesitating: the
    board after the session, every exit and every flip are the engine's
    (rules.md section 4: the order coins are processed in does not matter)."""
    s = Session(seed, drops=60, holes=holes)
    log, truth = s.run()
    board, exits, flips = _engine_totals(log, truth)
    phys = s.world.physics
    assert text_rows(*phys.state()) == board.rows()
    assert Counter(x + 1 for _, x, _ in phys.exits) == exits
    assert Counter(SPOTS[n].label for _, n, _ in phys.flips) == flips


def test_single_drops_agree_with_the_engine_drop_by_drop():
    """Drops that do not overlap: each one's own exits and flips are the engine's."""
    checked = 0
    for seed in range(6):
        s = Session(seed, drops=50)
        log, truth = s.run()
        phys = s.world.physics
        coins = [c for c in truth if c["kind"] == "coin"]
        board = BoardState.parse(log[0]["state"], G)
        for i, c in enumerate(coins):
            out = drop(board, [c["entry"] - 1])
            board = out.board
            near = [d for d in coins if d is not c and abs(d["t"] - c["t"]) < 2.5]
            if near:
                continue
            mine = sorted(x + 1 for _, x, o in phys.exits if o == c["drop"])
            assert mine == sorted(x + 1 for x in out.exits)
            assert Counter(SPOTS[n].label for _, n, o in phys.flips if o == c["drop"]) == Counter(out.flips_by_label())
            checked += 1
    assert checked > 60


def test_healthy_logs_respect_the_physical_facts():
    """sensing.md section 2: every flip shows as mid then the new side, a beam
    breaks once per coin, times never go backwards."""
    merged = 0
    for seed in range(8):
        s = Session(seed, drops=60)
        log, truth = s.run()
        events = log[1:]
        ts = [e["t"] for e in events]
        assert ts == sorted(ts)
        coins = [c for c in truth if c["kind"] == "coin"]
        # One break per coin, except coins in the beam together (one break, as a real beam sees them).
        touching = sum(1 for a, b in zip(coins, coins[1:]) if a["entry"] == b["entry"] and b["t"] - a["t"] < 0.04)
        entries = sum(1 for e in events if e["kind"] == "entry")
        assert len(coins) - touching <= entries <= len(coins)
        merged += len(coins) - entries
        exits = sorted(s.world.physics.exits)
        close = sum(1 for a, b in zip(exits, exits[1:]) if a[1] == b[1] and b[0] - a[0] < 0.02)
        assert len(exits) - close <= sum(1 for e in events if e["kind"] == "exit") <= len(exits)
        side = {}
        for e in events:
            if e["kind"] != "switch":
                continue
            before = side.get(e["switch"])
            if e["pos"] in ("L", "R") and before in ("L", "R"):
                pytest.fail(f"seed {seed}: {e['switch']} went {before} to {e['pos']} without mid")
            side[e["switch"]] = e["pos"]
        assert all(c["acted"] == [] for c in coins)
    assert 0 < merged < 30  # touching doubles happen, rarely


def test_a_healthy_session_and_its_shadow_never_differ():
    for seed in range(5):
        s = Session(seed, drops=50)
        assert Session.sensed(s.simulate()) == Session.sensed(s.simulate(set()))
        # A fault that never comes (its drop is past the session's last) changes nothing either.
        late = Session(seed, drops=50, faults=[("switch_stuck", "R3S4", 999, 1.0, {}), ("exit_sensor_dead", "exit 5", 999, 0.5, {})])
        log, truth = late.run()
        assert log[1:] == Session(seed, drops=50, holes=False).run()[0][1:]
        assert all("first_drop" not in f and "first_effect" not in f for f in truth if f["kind"] == "fault")


def test_deterministic_per_seed():
    a = Session(7, faults=[("jam", "R4S2 left outlet", 10, 1.0, {})]).run()
    b = Session(7, faults=[("jam", "R4S2 left outlet", 10, 1.0, {})]).run()
    assert a == b
    assert Session(8).run()[0] != Session(7).run()[0]


CASES = [
    ("switch_stuck", "R1S3", 1.0, {}), ("switch_stuck", "R1S3", 0.5, {}), ("pad_not_holding", "R1S2", 1.0, {}),
    ("jam", "R1S4 left outlet", 1.0, {}), ("hall_fault", "R1S5", 1.0, {"mode": "frozen"}),
    ("hall_fault", "R1S5", 1.0, {"mode": "inverted"}), ("hall_fault", "R1S6", 1.0, {"mode": "drift"}),
    ("switch_unseated", "R1S1", 1.0, {}), ("exit_sensor_dead", "exit 8", 1.0, {}), ("entry_sensor_dead", "entry 3", 0.5, {}),
    ("exit_sensor_chatter", "exit 9", 1.0, {}), ("entry_sensor_chatter", "entry 4", 1.0, {}),
    ("moved_by_hand", "R1S7", 1.0, {}), ("coin_added", "R1S2", 1.0, {}), ("coin_removed", "R1S1", 1.0, {}),
]


@pytest.mark.parametrize("name,where,rate,opts", CASES)
def test_every_fault_shows_in_the_truth_after_it_began(name, where, rate, opts):
    """Each fault name acts in some session, first where (or when) the shadow
    says, never before it began; drops before it are the healthy board's."""
    for seed in range(40):
        s = Session(seed, drops=40, faults=[(name, where, 8, rate, opts)])
        log, truth = s.run()
        f = next(d for d in truth if d["kind"] == "fault")
        coins = [c for c in truth if c["kind"] == "coin"]
        if "first_drop" in f:
            assert f["first_drop"] >= 8
            assert 1 in [c for c in coins if c["drop"] == f["first_drop"]][0]["acted"]
        elif "first_effect" in f:
            assert f["first_effect"] >= f["t"] - 1e-6
        else:
            continue
        assert all(not c["acted"] for c in coins if c["drop"] < 8)
        return
    pytest.fail(f"{name} at {where} never acted in 40 sessions")


def test_faults_change_what_the_sensors_say():
    """A dead exit beam: the truth's first drop is a coin the board sent there
    whose exit event is missing from the log."""
    s = Session(3, drops=40, faults=[("exit_sensor_dead", "exit 1", 5, 1.0, {})])
    log, truth = s.run()
    f = next(d for d in truth if d["kind"] == "fault")
    assert "first_drop" in f
    assert not any(e["kind"] == "exit" and e["exit"] == 1 and e["t"] >= f["t"] for e in log[1:])
    assert any(x == 0 and t >= f["t"] for t, x, _ in s.world.physics.exits)


def test_with_several_faults_each_fault_shows_where_it_alone_changed_something():
    """Each fault's truth comes from the session without that one fault: a
    second fault that never acts leaves the first's truth as it was alone."""
    alone = Session(4, drops=40, faults=[("switch_stuck", "R2S3", 8, 1.0, {})]).run()[1]
    both = Session(4, drops=40, faults=[("switch_stuck", "R2S3", 8, 1.0, {}), ("exit_sensor_dead", "exit 5", 999, 1.0, {})]).run()[1]
    first = [d for d in alone if d["kind"] == "fault"][0]
    again = [d for d in both if d["kind"] == "fault"]
    assert {k: v for k, v in again[0].items()} == first
    assert "first_drop" not in again[1] and "first_effect" not in again[1]


def test_the_cases_are_logs_the_reconciler_reads(tmp_path):
    from pathlib import Path

    from coindrel.obslog import read_log

    cases = sorted((Path(__file__).resolve().parents[2] / "benchmarks/models/board4/cases").glob("*.jsonl"))
    logs = [c for c in cases if not c.name.endswith(".truth.jsonl")]
    assert len(logs) >= 4
    for c in logs:
        log = read_log(c)
        assert log.events and not log.problems, c.name


def test_false_alarms_are_sorted_by_what_the_healthy_board_did():
    from benchmarks.models.board4.classes import classify

    truth = [{"kind": "coin", "drop": 1, "t": 10.0, "entry": 3, "acted": [], "notes": ["in the entry beam with the coin before"]},
             {"kind": "coin", "drop": 2, "t": 20.0, "entry": 3, "acted": []}, {"kind": "note", "t": 30.2, "what": "hub restart"}]
    records = [{"drop": 1, "t": 10.0, "t_end": 11.0, "verdict": "mismatch"}, {"drop": 2, "t": 20.0, "t_end": 21.0, "verdict": "mismatch"},
               {"drop": 3, "t": 29.9, "t_end": 30.0, "verdict": "mismatch"}, {"drop": 4, "t": 40.0, "verdict": "ok"}]
    assert [k for k, _ in classify(records, truth)] == ["in the entry beam with the coin before", "follow-on", "hub restart"]
