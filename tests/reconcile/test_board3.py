"""board3 (benchmarks/models/board3), the held-out board model: it runs, its
healthy logs parse and keep the hub's rules, its healthy sensed outcomes are
the rules' own, and its fault runs say where each fault first showed."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks import scoring  # noqa: E402
from benchmarks.models.board3 import Board, Session  # noqa: E402
from benchmarks.models.board3 import session as session_mod  # noqa: E402
from benchmarks.models.board3.geometry import Physical, cascade  # noqa: E402
from coindrel.engine import BoardState, drop, standard_geometry  # noqa: E402
from coindrel.reconcile.offline import load  # noqa: E402


def test_its_rules_are_the_engines():
    """Two independent implementations of rules.md agree on random boards."""
    g = standard_geometry()
    b = Board()
    rng = random.Random(5)
    for _ in range(150):
        st = Physical([rng.randrange(2) for _ in range(38)], [int(rng.random() < 0.3) for _ in range(38)])
        entries = [rng.randrange(8) for _ in range(rng.randrange(1, 4))]
        out = drop(BoardState.parse(st.text(b), g), entries)
        exits, flips, _ = cascade(b, st, entries)
        assert exits == sorted(out.exits)
        assert {b.labels[s]: n for s, n in flips.items()} == {g.labels[k]: c for k, c in enumerate(out.flip_counts) if c}
        assert st.text(b) == out.board.rows()


@pytest.mark.parametrize("seed", [3, 4, 11])
def test_healthy_logs_parse_and_keep_the_hubs_rules(seed):
    log, truth = Session(seed, drops=40).run()
    parsed = load([json.dumps(d) for d in log])
    assert len(parsed.events) == len(log) - 1
    ts = [d["t"] for d in log[1:]]
    assert ts == sorted(ts)
    last = {}
    for d in log[1:]:
        if d["kind"] == "switch":
            prev = last.get(d["switch"])
            assert {prev, d["pos"]} != {"L", "R"}, f"{d}: a flip must show mid first"
            last[d["switch"]] = d["pos"]
    coins = scoring.coins_of(truth)
    assert len(coins) == 40 and not any(c["acted"] for c in coins)
    # a beam is broken once per coin: as many entry events as coins went in
    assert Counter(d["entry"] for d in log[1:] if d["kind"] == "entry") == Counter(c["entry"] for c in coins)
    assert not scoring.faults_of(truth)


def test_healthy_sensed_outcomes_are_the_rules(monkeypatch):
    """A shadow kept from the start never differs from what the sensors said
    (a fault that never acts is never 'shown')."""
    for seed in (1, 2, 7):
        s = Session(seed, drops=40)
        s.specs = [{"id": 9, "fault": "coin_added", "where": "R1S1", "from_drop": 10 ** 9, "rate": 1.0, "t_on": 0.0}]
        _, truth = s.run()
        (f,) = scoring.faults_of(truth)
        assert "first_drop" not in f and "first_effect" not in f, (seed, f)


@pytest.mark.parametrize("fault", [
    ("switch_stuck", "R1S4", 5, 1.0, {}),
    ("exit_sensor_dead", "exit 5", 5, 1.0, {}),
    ("moved_by_hand", "R2S3", 5, 1.0, {}),
    ("hall_fault", "R1S5", 5, 1.0, {"mode": "inverted"}),
])
def test_fault_runs_say_where_the_fault_showed(fault):
    _, truth = Session(21, drops=30, faults=[fault]).run()
    (f,) = scoring.faults_of(truth)
    assert f["fault"] == fault[0] and f["where"] == fault[1]
    assert f.get("first_drop") is not None or f.get("first_effect") is not None


def test_players_pace_and_doubles():
    rng = random.Random(2)
    plan = Session(2, drops=400).plan(rng)
    gaps = [b[0] - a[0] for a, b in zip(plan, plan[1:])]
    assert min(gaps) < 0.1  # two coins nearly together
    assert any(0.8 <= g <= 20 for g in gaps) and max(gaps) <= 20 + 90
    assert session_mod.Session(2, drops=20, stream=4.0).plan(random.Random(1))[-1][0] < 1 + 2 + 20 / 4 * 1.25
