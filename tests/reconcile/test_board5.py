"""board5 (benchmarks/models/board5), the fifth, held-out board model: its
coins in time do what the engine says (alone, together, on random boards),
its healthy logs keep the hub's rules and never differ from their engine
shadow, it is deterministic per seed, and its fault runs say where each
fault first showed in what the sensors say."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks import scoring  # noqa: E402
from benchmarks.models.board5 import Session  # noqa: E402
from benchmarks.models.board5 import layout as lay  # noqa: E402
from benchmarks.models.board5.faults import Faults  # noqa: E402
from benchmarks.models.board5.physics import Coin, Physics  # noqa: E402
from benchmarks.models.board5.truth import first_unlike  # noqa: E402
from coindrel.engine import BoardState, drop, standard_geometry  # noqa: E402
from coindrel.reconcile.offline import load  # noqa: E402


def test_its_board_is_the_engines():
    g = standard_geometry()
    assert lay.LABELS == list(g.labels)


def test_coins_in_time_do_what_the_engine_says():
    """Random boards (coins resting, pads anywhere), one to three coins at
    once or one after another: the board after, every exit, every flip."""
    rng = random.Random(5)
    for k in range(120):
        pads = [rng.randrange(2) for _ in lay.SWITCHES]
        coins = [int(rng.random() < 0.3) for _ in lay.SWITCHES]
        phys = Physics(random.Random(k), pads, Faults(random.Random(k), []))
        phys.coins = list(coins)
        entries = [rng.randrange(8) for _ in range(rng.randrange(1, 4))]
        t = 1.0
        for i, e in enumerate(entries):
            phys.drop_coin(t, e, Coin(i + 1, rng.random() < 0.4, 1.0), 10.0)
            t += rng.choice((0.0, 0.003, 0.2, 1.5))
        phys.quiet()
        out = drop(BoardState.parse(lay.text_rows(pads, coins)), entries)
        assert lay.text_rows(phys.pads, phys.coins) == out.board.rows()
        assert sorted(lane for _, lane, _ in phys.exits) == sorted(out.exits)
        flips = Counter()
        for seen in phys.seen.values():
            flips.update(seen["flips"])
        assert dict(flips) == {s: n for s, n in enumerate(out.flip_counts) if n}
        assert all(m[0] + m[1] <= n[0] + 1e-9 for ms in phys.motions for m, n in zip(ms, ms[1:])), \
            "a rocker finishes one move before the next"


@pytest.mark.parametrize("seed", [3, 4, 11, 12])
def test_healthy_logs_keep_the_hubs_rules_and_their_shadow(seed):
    session = Session(seed, drops=40, restarts=False)
    log, truth = session.run()
    parsed = load([json.dumps(d) for d in log])
    assert len(parsed.events) == len(log) - 1
    ts = [d["t"] for d in log[1:]]
    assert ts == sorted(ts)
    last = {}
    for d in log[1:]:
        if d["kind"] == "switch":
            assert {last.get(d["switch"]), d["pos"]} != {"L", "R"}, f"{d}: a flip must show mid first"
            last[d["switch"]] = d["pos"]
    coins = scoring.coins_of(truth)
    assert len(coins) == 40 and not any(c["acted"] for c in coins)
    assert Counter(d["entry"] for d in log[1:] if d["kind"] == "entry") == Counter(c["entry"] for c in coins)
    assert not scoring.faults_of(truth)
    # every group of coins sensed as the engine has it, from the header's board on
    assert first_unlike(log[0]["state"], coins, session.physics, -1.0) is None


def test_a_hub_restart_loses_what_fell_meanwhile_and_reports_the_snapshot():
    for seed in range(60):
        log, truth = Session(seed, drops=40).run()
        notes = [d for d in truth if d.get("kind") == "note" and d["what"] == "restart"]
        if notes:
            break
    else:
        raise AssertionError("no session of 60 had a hub restart")
    r = notes[0]
    states = [d for d in log[1:] if d["kind"] == "status"]
    assert [d["state"] for d in states][:3] == ["disconnected", "connected", "resync"]
    assert not any(r["t"] + 0.021 < d["t"] < r["end"] - 0.006 for d in log[1:] if d["kind"] != "status")
    lost = [d for d in states if d["state"] == "lost"]
    assert (lost[0]["count"] if lost else 0) == r["changed"]
    ts = [d["t"] for d in log[1:]]
    assert ts == sorted(ts)
    load([json.dumps(d) for d in log])


def test_a_stream_never_goes_quiet_and_still_agrees():
    session = Session(8, drops=60, stream=4.0)
    log, truth = session.run()
    coins = scoring.coins_of(truth)
    gaps = [b["t"] - a["t"] for a, b in zip(coins, coins[1:])]
    assert max(gaps) < 0.4
    assert first_unlike(log[0]["state"], coins, session.physics, -1.0) is None


def test_deterministic_per_seed():
    a = Session(21, drops=30, faults=[("switch_stuck", "R3S4", 5, 0.5, {})]).run()
    b = Session(21, drops=30, faults=[("switch_stuck", "R3S4", 5, 0.5, {})]).run()
    assert a == b
    assert Session(22, drops=30).run()[0] != Session(21, drops=30).run()[0]


def _fault_run(name, where, opts=None, seeds=range(40)):
    for seed in seeds:
        session = Session(seed, drops=40, faults=[(name, where, 8, 1.0, opts or {})])
        log, truth = session.run()
        f = scoring.faults_of(truth)
        if f and (f[0].get("first_drop") is not None or f[0].get("first_effect") is not None):
            return session, log, truth, f[0]
    raise AssertionError(f"{name} at {where} never showed in {len(seeds)} sessions")


@pytest.mark.parametrize("name,where", [("switch_stuck", "R2S3"), ("pad_not_holding", "R1S4"),
                                        ("jam", "R2S3 left outlet"), ("exit_sensor_dead", "exit 8"),
                                        ("entry_sensor_chatter", "entry 2"), ("coin_removed", "R1S5")])
def test_a_fault_shows_first_where_its_shadow_differs(name, where):
    session, log, truth, f = _fault_run(name, where)
    coins = scoring.coins_of(truth)
    if f.get("first_drop") is not None:
        c = next(c for c in coins if c["drop"] == f["first_drop"])
        assert f["id"] in c["acted"]
        # before it, everything sensed is what the engine does from the header's board; there it differs
        group = first_unlike(log[0]["state"], coins, session.physics, -1.0)
        assert [x["drop"] for x in group] == [f["first_drop"]]
    else:
        assert f["first_effect"] >= f["t"]


@pytest.mark.parametrize("mode", ["frozen", "drift", "inverted"])
def test_hall_faults_show_in_the_readings(mode):
    _, log, truth, f = _fault_run("hall_fault", "R2S4", {"mode": mode})
    if mode == "frozen":
        # a stuck channel says nothing more; it shows at the first coin whose flip it leaves out
        assert not [e for e in log[1:] if e.get("switch") == "R2S4" and e["t"] >= f["t"]]
        if f.get("first_drop") is not None:
            assert f["id"] in next(c for c in scoring.coins_of(truth) if c["drop"] == f["first_drop"])["acted"]
        return
    after = [e for e in log[1:] if e.get("switch") == "R2S4" and e["t"] >= f["first_effect"] - 1e-6]
    assert after and after[0]["t"] == pytest.approx(f["first_effect"], abs=1e-5)


def test_moved_by_hand_and_unseated_show_at_their_first_reading():
    _, log, truth, f = _fault_run("moved_by_hand", "R4S2")
    first = next(e for e in log[1:] if e.get("switch") == "R4S2" and e["t"] >= f["t"] - 1e-6)
    assert first["t"] == f["first_effect"] and first["pos"] == "mid"
    _, log, truth, f = _fault_run("switch_unseated", "R3S3")
    assert any(e.get("switch") == "R3S3" and e["pos"] == "mid" and abs(e["t"] - f["first_effect"]) < 1e-5 for e in log[1:])


def test_an_unknown_fault_name_is_refused_with_the_names():
    with pytest.raises(ValueError, match="no fault named 'stuck'.*switch_stuck"):
        Session(1, faults=[("stuck", "R1S1", 3, 1.0, {})]).run()


def test_a_coin_no_sensor_saw_shows_where_a_later_coin_meets_its_pad():
    """entry_sensor_dead: a missed coin that rests at once says nothing; its
    fault shows at the next coin the resting coin changes."""
    for seed in range(80):
        session = Session(seed, drops=40, faults=[("entry_sensor_dead", "entry 3", 6, 1.0, {})], restarts=False)
        log, truth = session.run()
        coins = scoring.coins_of(truth)
        f = scoring.faults_of(truth)[0]
        missed = [c for c in coins if c["entry"] == 3 and c["t"] > f["t"]]
        empty = {"entry": 0, "exits": [], "flips": {}}
        if missed and session.physics.seen.get(missed[0]["drop"], empty) == empty and f.get("first_drop"):
            assert f["first_drop"] > missed[0]["drop"]
            return
    raise AssertionError("no session of 80 had a missed coin resting at once")
