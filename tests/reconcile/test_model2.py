"""The reconciler on the second board model (benchmarks/models/board2, written
independently of coindrel.virtual), scored from its JSON lines only."""

import json

from benchmarks import scoring
from benchmarks.models.board2 import Session
from coindrel.reconcile.offline import load, reconcile_log, reconciler_for


def lines(log):
    rec, reports = reconcile_log(load([json.dumps(d) for d in log]))
    return [r.to_json() for r in reports]


def test_healthy_sessions_with_doubles_hesitation_and_overlap_are_all_ok():
    coins = 0
    for seed in range(3):
        log, truth = Session(seed, drops=60, overlap=0.3, doubles=0.15).run()
        s = scoring.score_healthy(lines(log), truth)
        coins += s["coins"]
        assert s["false_alarms"] == 0, s["examples"]
        assert s["unmatched"] == 0 and s["extra_records"] == 0
    assert coins == 180


def test_two_coins_in_one_entry_are_two_drops_not_a_chattering_beam():
    log, truth = Session(11, drops=60, doubles=0.5).run()
    coins = scoring.coins_of(truth)
    doubles = [b for a, b in zip(coins, coins[1:]) if a["entry"] == b["entry"] and b["t"] - a["t"] < 0.1]
    assert len(doubles) >= 5
    out = lines(log)
    assert all(r["verdict"] == "ok" for r in out)
    assert sum(1 for r in out if r["drop"] is not None) == len(coins)


def test_an_intermittent_sticky_rocker_keeps_its_name_and_gets_a_rate():
    log, truth = Session(5, drops=45, faults=[("switch_stuck", "R1S3", 12, 0.5, {})]).run()
    out = [r for r in lines(log) if r["verdict"] != "ok"]
    named = [d for r in out for d in r["diagnosis"][:1]]
    assert named and all((d["fault"], d["where"]) in {("switch_stuck", "R1S3"), ("hall_fault", "R1S3")} for d in named)
    rated = [d for r in out for d in r["diagnosis"] if d["fault"] == "switch_stuck" and "rate" in d]
    assert rated and all(0 < d["rate"] < 1 for d in rated)


def test_a_tie_is_revised_when_a_later_drop_tells_and_the_scorer_counts_it():
    log, truth = Session(5, drops=45, faults=[("switch_stuck", "R1S3", 12, 0.5, {})]).run()
    out = lines(log)
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert [d["fault"] for d in first["diagnosis"][:2]] == ["hall_fault", "switch_stuck"]
    rev = next(r for r in out if r["verdict"] == "revised")
    assert rev["drop"] is None and rev["revises"] == first["drop"] and rev["diagnosis"][0]["fault"] == "switch_stuck"
    assert "later drops" in rev["diagnosis"][0]["say"]
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and not res["top1_first"] and res["top1"]


def test_a_stream_of_four_coins_a_second_is_scored_while_it_runs():
    log, truth = Session(4242, drops=120, stream=4.0).run()
    L = load([json.dumps(d) for d in log])
    rec = reconciler_for(L)
    late = []
    events = list(L.events)
    i, t = 0, 0.0
    while i < len(events):
        t += 0.1
        while i < len(events) and events[i].t <= t:
            rec.feed(events[i])
            i += 1
        late += [t - r.t for r in rec.poll(t) if r.drop is not None]
    assert len(late) >= 110  # all but the last few coins, while coins still go in
    assert max(late) < 6.0


def test_the_work_budget_bounds_every_diagnosis():
    log, truth = Session(3, drops=40, faults=[("switch_stuck", "R3S4", 8, 1.0, {}), ("exit_sensor_dead", "exit 7", 8, 1.0, {}),
                                              ("hall_fault", "R2S3", 9, 1.0, {"mode": "frozen"})]).run()
    L = load([json.dumps(d) for d in log])
    rec = reconciler_for(L)
    rec.budget = 40
    from coindrel.reconcile.offline import replay

    reports = [r for r in replay(rec, L.events) if hasattr(r, "work")]
    assert reports and max(r.work for r in reports) <= 40 + 60  # the budget, plus each live world as it is and hand moves


def test_the_scorer_fails_an_unflagged_first_drop():
    truth = [{"kind": "coin", "drop": 1, "t": 1.0, "entry": 3, "acted": [1]},
             {"kind": "fault", "id": 1, "fault": "jam", "where": "R3S2 left outlet", "t": 0.5, "first_drop": 1}]
    ok = [{"drop": 1, "entry": 3, "t": 1.0, "verdict": "ok", "diagnosis": []}]
    (r,) = scoring.score_faults(ok, truth)
    assert r["exercised"] and not r["flagged"] and not r["top1"] and not r["listed"]
    bad = [{"drop": 1, "entry": 3, "t": 1.0, "verdict": "mismatch", "diagnosis": [{"fault": "exit_sensor_dead", "where": "exit 4"}]},
           {"drop": None, "revises": 1, "t": 3.0, "verdict": "revised", "diagnosis": [{"fault": "jam", "where": "R3S2 left outlet"}]}]
    (r,) = scoring.score_faults(bad, truth)
    assert r["flagged"] and not r["top1_first"] and r["top1"] and r["listed"]


def test_a_stream_on_a_faulty_board_is_still_scored_while_it_runs():
    # Exit 7's beam goes dead 20 s into a 4 coins/s stream: the open group
    # never matches the belief, so it is cut where its first coins have landed.
    log, truth = Session(4242, drops=160, stream=4.0).run()
    log = [log[0]] + [e for e in log[1:] if e["t"] < 20 or e.get("exit") != 7]
    L = load([json.dumps(d) for d in log])
    rec = reconciler_for(L)
    late, flagged = [], []
    events = list(L.events)
    i, t = 0, 0.0
    while i < len(events):
        t += 0.1
        while i < len(events) and events[i].t <= t:
            rec.feed(events[i])
            i += 1
        for r in rec.poll(t):
            if r.drop is not None:
                late.append(t - r.t)
                if not r.ok:
                    flagged.append(r.to_json())
    assert len(late) >= 140 and max(late) < 12.0
    assert flagged and all(f["diagnosis"][0]["fault"] == "exit_sensor_dead" and f["diagnosis"][0]["where"] == "exit 7" for f in flagged)


def test_a_pivot_that_sticks_on_one_of_two_coins_is_named_at_once():
    # Two coins of one drop should each have flipped R5S8; its hall showed
    # one clean flip: the sensor is alive and the rocker stuck on one coin.
    log, truth = Session(965274705, drops=45, faults=[("switch_stuck", "R5S8", 12, 0.5, {})]).run()
    out = lines(log)
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and res["top1_first"]
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert first["observed"]["flips"]["R5S8"] == 1 and first["expected"]["flips"]["R5S8"] == 2


def test_a_hall_held_frozen_that_wiggles_on_a_later_coin_makes_it_a_sticky_pivot():
    # R1S6 stays put for a coin (its hall shows nothing: stuck rocker or a
    # hall that missed the flip tie). The next coin there wiggles the hall
    # without a flip: the sensor is alive, so the rocker stuck; the first
    # drop is revised to switch_stuck.
    log, truth = Session(681674954, drops=45, faults=[("switch_stuck", "R1S6", 12, 0.5, {})]).run()
    out = lines(log)
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and not res["top1_first"] and res["top1"]
    first = next(r for r in out if r["verdict"] == "mismatch")
    rev = next(r for r in out if r["verdict"] == "revised" and r["revises"] == first["drop"])
    assert (rev["diagnosis"][0]["fault"], rev["diagnosis"][0]["where"]) == ("switch_stuck", "R1S6")


def test_a_rocker_that_reached_its_new_side_and_then_reads_mid_has_a_drifted_hall():
    # R2S5's magnet drifts: at rest it reads mid (a knocked rocker or a
    # drifted sensor: tied). A coin turns it over: the hall reads R, then
    # mid again at rest. A knocked rocker would be seated by that flip, a
    # misaligned one never reaches R: the first drop is revised to hall_fault.
    log, truth = Session(823967203, drops=45, faults=[("hall_fault", "R2S5", 12, 1.0, {"mode": "drift"})]).run()
    out = lines(log)
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and not res["top1_first"] and res["top1"]
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert first["diagnosis"][0]["fault"] == "switch_unseated"
    rev = next(r for r in out if r["verdict"] == "revised" and r["revises"] == first["drop"])
    assert (rev["diagnosis"][0]["fault"], rev["diagnosis"][0]["where"]) == ("hall_fault", "R2S5")
