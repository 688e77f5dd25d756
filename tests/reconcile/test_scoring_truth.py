"""The benchmark scorer's reading of the virtual board's truth: a fault's
first wrong drop is one it acted on (benchmarks/scoring.py)."""

from benchmarks import scoring


def _drop(n, t, entry, faults=(), flips=None):
    flips = flips or {"R2S6": 1}
    return {"kind": "drop", "drop": n, "t": t, "t_end": t + 0.5, "entry": entry, "exits": [], "flips": flips,
            "engine": {"exits": [], "flips": dict(flips) if not faults else {}}, "rested": [], "missed": [], "faults": list(faults)}


def test_a_physical_fault_that_never_acted_on_a_coin_is_not_exercised():
    truth = [{"kind": "fault", "id": 1, "fault": "pad_not_holding", "where": "R2S6", "t": 25.0},
             _drop(1, 26.0, 7), _drop(2, 28.0, 7)]
    events = [{"t": 26.2, "kind": "switch", "switch": "R2S6", "pos": "mid"}]
    (f,) = scoring.faults_of(scoring.virtual_truth(truth, events))
    assert "first_drop" not in f and "first_effect" not in f


def test_a_coin_passing_a_physical_fault_as_it_starts_is_not_its_first_effect():
    # The fault starts while drop 1's coin flips R2S6; it acts on drop 2.
    truth = [{"kind": "fault", "id": 1, "fault": "switch_stuck", "where": "R2S6", "t": 25.0},
             _drop(1, 24.9, 7), _drop(2, 28.0, 7, faults=[1])]
    events = [{"t": 25.1, "kind": "switch", "switch": "R2S6", "pos": "mid"}]
    (f,) = scoring.faults_of(scoring.virtual_truth(truth, events))
    assert f.get("first_drop") == 2 and "first_effect" not in f


def test_a_hand_shows_at_once_and_a_coin_put_on_a_pad_shows_where_a_coin_meets_it():
    hand = [{"kind": "fault", "id": 1, "fault": "moved_by_hand", "where": "R2S6", "t": 25.0}, _drop(1, 28.0, 7)]
    (f,) = scoring.faults_of(scoring.virtual_truth(hand, [{"t": 25.2, "kind": "switch", "switch": "R2S6", "pos": "mid"}]))
    assert f.get("first_effect") == 25.2


def _rec(drop, t, entry, verdict, diag=()):
    return {"drop": drop, "t": t, "entry": entry, "verdict": verdict, "diagnosis": [{"fault": f, "where": w} for f, w in diag]}


def test_a_fault_named_on_a_coin_it_acted_on_before_its_first_wrong_drop_is_caught_there():
    truth = [{"kind": "coin", "drop": 1, "t": 10.0, "entry": 5, "acted": [1]}, {"kind": "coin", "drop": 2, "t": 12.0, "entry": 3, "acted": []},
             {"kind": "coin", "drop": 3, "t": 14.0, "entry": 5, "acted": [1]},
             {"kind": "fault", "id": 1, "fault": "entry_sensor_chatter", "where": "entry 5", "t": 9.0, "first_drop": 3}]
    named = [_rec(1, 10.0, 5, "mismatch", [("entry_sensor_chatter", "entry 5")]), _rec(2, 12.0, 3, "ok"), _rec(3, 14.0, 5, "ok")]
    (res,) = scoring.score_faults(named, truth)
    assert res["flagged"] and res["top1_first"]
    other = [_rec(1, 10.0, 5, "mismatch", [("switch_stuck", "R1S5")]), _rec(2, 12.0, 3, "ok"), _rec(3, 14.0, 5, "ok")]
    (res,) = scoring.score_faults(other, truth)
    assert not res["flagged"]  # flagged for something else: its first wrong drop's record speaks


def test_a_hand_a_coin_then_joined_is_judged_by_that_group_s_flagged_record():
    # The hand's flip starts a group at 25.05; a coin goes in at 25.17 and
    # another at 25.34, both in that group (one t_end); the group's flagged
    # record names the hand.
    truth = [{"kind": "coin", "drop": 1, "t": 25.17, "entry": 6, "acted": []}, {"kind": "coin", "drop": 2, "t": 25.34, "entry": 6, "acted": []},
             {"kind": "fault", "id": 1, "fault": "moved_by_hand", "where": "R3S3", "t": 25.0, "first_effect": 25.05}]
    records = [_rec(1, 25.17, 6, "ok") | {"t_end": 25.9},
               _rec(2, 25.34, 6, "mismatch", [("moved_by_hand", "R3S3")]) | {"t_end": 25.9}]
    (res,) = scoring.score_faults(records, truth)
    assert res["flagged"] and res["top1_first"]


def test_a_coin_put_on_a_pad_shows_where_the_board_first_does_otherwise_past_drops_in_flight_together():
    # Virtual board: a coin put on R1S2's pad (its lever side: only a hand puts
    # it there). Drop 20 tips it silently onto R2S2, a drop whose every event
    # the board without that coin makes too; drop 30, the next coin at R2S2,
    # is the first to differ. Drops in flight together come before drop 20:
    # their combined outcome is the engine's, so they do not stop the search
    # (before: it stopped there and took the first drop to meet R1S2).
    from benchmarks.models.virtual_runs import run_virtual

    log, truth = run_virtual(248159310, ["coin_added@R1S2,t=25.0"])
    lines = [d for d in truth if d.get("kind") == "drop"]
    assert any(d.get("overlap") and 25.0 < d["t"] < 36.0 for d in lines)
    (f,) = scoring.faults_of(scoring.virtual_truth(truth, log[1:]))
    assert f.get("first_drop") == 30

