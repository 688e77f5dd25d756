"""A coin that fell while the hub's events were lost, found resting later
(issue 13, board5 case outage_coin_found_later): two coins went into entry 1
during a hub reset, the snapshot shows R1S1 turned, and one of them rests
unseen on R3S1; 3.7 s later the next coin into entry 1 meets it. The outage
did it, not a hand or a fault: that drop is a healthy board's from the board
with the coin there (it was flagged `coin_added` "not a hand, not a fault")."""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

CASE = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / "board5" / "cases" / "outage_coin_found_later.jsonl"


def _records(lines: list[str]) -> list[dict]:
    _, reports = reconcile_log(load(lines))
    return [r.to_json() for r in reports]


def test_a_coin_of_the_outage_found_later_is_a_healthy_drop():
    recs = _records(CASE.read_text().splitlines())
    drops = [r for r in recs if r["drop"] is not None]
    assert drops[0]["verdict"] == "mismatch" and drops[0]["diagnosis"][0]["fault"] == "events_lost"
    last = drops[-1]
    assert last["entry"] == 1
    assert last["observed"] == {"exits": [1], "flips": {"R1S1": 1, "R3S1": 1, "R4S1": 1, "R5S1": 1}}
    assert last["verdict"] == "ok", last
    assert last["expected"] == last["observed"], "predicted from the board with the outage's coin on R3S1"
    assert [r for r in recs if r["verdict"] == "mismatch"] == drops[:1]


def test_the_same_coin_with_no_outage_is_still_a_coin_added():
    """Without the reset (the board seen all along, the snapshot's R1S1 a
    hall or a hand), the coin past R1S1 nobody saw go in is a fault's: flagged."""
    lines = [ln for ln in CASE.read_text().splitlines() if json.loads(ln).get("kind") != "status"]
    recs = _records(lines)
    last = [r for r in recs if r["drop"] is not None][-1]
    assert last["entry"] == 1 and last["verdict"] == "mismatch", last
    assert not any("not a fault" in d["say"] for d in last["diagnosis"]), last["diagnosis"]
